#include "tests/sim.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <sstream>

namespace topoa2a::test {
namespace {

using Label = long long;  // a block (s, d) as a number; -1: empty
Label label(const Block& b, int p) { return 1LL * b.src * p + b.dst; }

std::string str(const Block& b) {
  return "(" + std::to_string(b.src) + "," + std::to_string(b.dst) + ")";
}

struct BlockLess {
  bool operator()(const Block& a, const Block& b) const {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  }
};

}  // namespace

std::vector<Schedule> build_all(const Algorithm& a, int p, const Params& params) {
  std::vector<Schedule> out;
  for (int r = 0; r < p; ++r) out.push_back(a.build(p, r, params));
  return out;
}

SimReport simulate_schedules(const std::vector<Schedule>& schedules) {
  SimReport rep;
  const int p = static_cast<int>(schedules.size());
  auto fail = [&](const std::string& msg) {
    if (rep.errors.size() < 20) rep.errors.push_back(msg);
  };
  size_t nrounds = schedules.empty() ? 0 : schedules[0].rounds.size();
  rep.rounds = static_cast<int>(nrounds);
  for (int r = 0; r < p; ++r)
    if (schedules[r].rounds.size() != nrounds)
      fail("rank " + std::to_string(r) + " has a different number of rounds");

  std::vector<std::set<Block, BlockLess>> hold(p);
  for (int r = 0; r < p; ++r)
    for (int d = 0; d < p; ++d) hold[r].insert({r, d});
  rep.blocks_sent.assign(p, 0);

  for (size_t t = 0; t < nrounds; ++t) {
    std::map<std::pair<int, int>, std::deque<const Transfer*>> wire;  // (from, to)
    for (int r = 0; r < p; ++r) {
      if (t >= schedules[r].rounds.size()) continue;
      std::set<Block, BlockLess> sent_now;
      for (const Transfer& s : schedules[r].rounds[t].sends) {
        if (s.peer < 0 || s.peer >= p || s.peer == r) {
          fail("round " + std::to_string(t) + ": rank " + std::to_string(r) +
               " sends to invalid peer " + std::to_string(s.peer));
          continue;
        }
        for (const Block& b : s.blocks) {
          if (!hold[r].count(b))
            fail("round " + std::to_string(t) + ": rank " + std::to_string(r) + " sends " + str(b) +
                 " it does not hold");
          if (!sent_now.insert(b).second)
            fail("round " + std::to_string(t) + ": rank " + std::to_string(r) + " sends " + str(b) +
                 " twice");
        }
        rep.blocks_sent[r] += static_cast<long long>(s.blocks.size());
        wire[{r, s.peer}].push_back(&s);
      }
    }
    std::vector<std::vector<Block>> arriving(p);
    for (int r = 0; r < p; ++r) {
      if (t >= schedules[r].rounds.size()) continue;
      for (const Transfer& rv : schedules[r].rounds[t].recvs) {
        auto& q = wire[{rv.peer, r}];
        if (q.empty()) {
          fail("round " + std::to_string(t) + ": rank " + std::to_string(r) +
               " expects a message from " + std::to_string(rv.peer) + " that is not sent");
          continue;
        }
        const Transfer* s = q.front();
        q.pop_front();
        if (s->blocks != rv.blocks)
          fail("round " + std::to_string(t) + ": message " + std::to_string(rv.peer) + "->" +
               std::to_string(r) + " carries other blocks than the receiver expects");
        for (const Block& b : s->blocks) arriving[r].push_back(b);
      }
    }
    for (auto& [pair, q] : wire)
      if (!q.empty())
        fail("round " + std::to_string(t) + ": message " + std::to_string(pair.first) + "->" +
             std::to_string(pair.second) + " is never received");
    for (int r = 0; r < p; ++r) {
      if (t >= schedules[r].rounds.size()) continue;
      for (const Transfer& s : schedules[r].rounds[t].sends)
        for (const Block& b : s.blocks) hold[r].erase(b);
    }
    for (int r = 0; r < p; ++r)
      for (const Block& b : arriving[r])
        if (!hold[r].insert(b).second)
          fail("round " + std::to_string(t) + ": rank " + std::to_string(r) + " receives " +
               str(b) + " a second time");
  }
  for (int d = 0; d < p; ++d) {
    std::set<Block, BlockLess> want;
    for (int s = 0; s < p; ++s) want.insert({s, d});
    if (hold[d] != want) {
      std::ostringstream os;
      os << "rank " << d << " ends holding " << hold[d].size() << " blocks, not exactly (*," << d
         << ")";
      fail(os.str());
    }
  }
  return rep;
}

std::vector<std::string> simulate_plans(const std::vector<Plan>& plans,
                                        const std::vector<Schedule>& schedules) {
  std::vector<std::string> errors;
  auto fail = [&](const std::string& m) {
    if (errors.size() < 20) errors.push_back(m);
  };
  const int p = static_cast<int>(plans.size());
  std::vector<std::vector<Label>> recvbuf(p, std::vector<Label>(p, -1)), scratch(p);
  for (int r = 0; r < p; ++r) {
    scratch[r].assign(plans[r].scratch_slots, -1);
    recvbuf[r][r] = label({r, r}, p);  // the local copy
  }
  // Round index of each rank's steps (idle rounds are dropped from plans).
  std::vector<std::vector<size_t>> step_round(p);
  for (int r = 0; r < p; ++r)
    for (size_t t = 0; t < schedules[r].rounds.size(); ++t)
      if (!schedules[r].rounds[t].idle()) step_round[r].push_back(t);

  auto slot_ok = [&](int r, int s) { return s >= 0 && s < plans[r].scratch_slots; };
  std::vector<size_t> next(p, 0);
  size_t nrounds = schedules.empty() ? 0 : schedules[0].rounds.size();
  for (size_t t = 0; t < nrounds; ++t) {
    std::map<std::pair<int, int>, std::deque<std::vector<Label>>> wire;
    std::vector<const PlanStep*> active(p, nullptr);
    for (int r = 0; r < p; ++r)
      if (next[r] < step_round[r].size() && step_round[r][next[r]] == t)
        active[r] = &plans[r].steps[next[r]++];
    for (int r = 0; r < p; ++r) {
      if (!active[r]) continue;
      for (const PlanSend& s : active[r]->sends) {
        std::vector<Label> msg;
        if (s.direct) {
          msg.push_back(label({r, s.user_block}, p));
        } else {
          for (size_t i = 0; i < s.gather.size(); ++i) {
            const Loc& loc = s.gather[i];
            const int dst = s.first_slot + static_cast<int>(i);
            if (!slot_ok(r, dst) || (loc.kind == Loc::kScratch && !slot_ok(r, loc.index))) {
              fail("rank " + std::to_string(r) + ": gather outside scratch");
              continue;
            }
            scratch[r][dst] =
                loc.kind == Loc::kSendBuf ? label({r, loc.index}, p) : scratch[r][loc.index];
          }
          for (int i = 0; i < s.nblocks; ++i) {
            const int sl = s.first_slot + i;
            msg.push_back(slot_ok(r, sl) ? scratch[r][sl] : -2);
          }
        }
        wire[{r, s.peer}].push_back(std::move(msg));
      }
    }
    for (int r = 0; r < p; ++r) {
      if (!active[r]) continue;
      for (const PlanRecv& rv : active[r]->recvs) {
        auto& q = wire[{rv.peer, r}];
        if (q.empty()) {
          fail("rank " + std::to_string(r) + ": plan receive with no matching send");
          continue;
        }
        std::vector<Label> msg = std::move(q.front());
        q.pop_front();
        if (static_cast<int>(msg.size()) != rv.nblocks) {
          fail("rank " + std::to_string(r) + ": message size differs between the plans");
          continue;
        }
        if (rv.direct) {
          recvbuf[r][rv.user_block] = msg[0];
        } else {
          for (int i = 0; i < rv.nblocks; ++i) {
            if (slot_ok(r, rv.first_slot + i))
              scratch[r][rv.first_slot + i] = msg[i];
            else
              fail("rank " + std::to_string(r) + ": receive outside scratch");
          }
        }
      }
      for (const PlanRecv& rv : active[r]->recvs)
        for (const Delivery& d : rv.deliveries)
          if (slot_ok(r, d.slot)) recvbuf[r][d.user_block] = scratch[r][d.slot];
      for (const Move& m : active[r]->moves) {
        if (slot_ok(r, m.from) && slot_ok(r, m.to))
          scratch[r][m.to] = scratch[r][m.from];
        else
          fail("rank " + std::to_string(r) + ": move outside scratch");
      }
    }
  }
  for (int d = 0; d < p; ++d)
    for (int s = 0; s < p; ++s)
      if (recvbuf[d][s] != label({s, d}, p))
        fail("plan: rank " + std::to_string(d) + " receive block " + std::to_string(s) +
             " holds the wrong data");
  return errors;
}

void expect_correct(const Algorithm& a, int p, const Params& params, const CorrectOptions& o) {
  SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " grid " +
               std::to_string(params.grid.rows) + "x" + std::to_string(params.grid.cols) + " " +
               o.what);
  ASSERT_TRUE(a.check(p, params).empty()) << a.check(p, params);
  const auto schedules = build_all(a, p, params);
  const SimReport rep = simulate_schedules(schedules);
  for (const auto& e : rep.errors) ADD_FAILURE() << e;
  EXPECT_EQ(rep.rounds, a.rounds(p, params));
  for (int r = 0; r < p; ++r)
    EXPECT_EQ(rep.blocks_sent[r], a.blocks_sent(p, r, params)) << "rank " << r;
  if (!o.plans) return;
  std::vector<Plan> plans;
  for (int r = 0; r < p; ++r) plans.push_back(make_plan(schedules[r], p, r));
  for (const auto& e : simulate_plans(plans, schedules)) ADD_FAILURE() << e;
  for (int r = 0; r < p; ++r) {
    EXPECT_LE(plans[r].scratch_slots, o.scratch_per_p * p) << "scratch must stay O(p) blocks";
    EXPECT_EQ(plans[r].blocks_sent, rep.blocks_sent[r]);
    if (a.direct) {
      EXPECT_EQ(plans[r].scratch_slots, 0) << "direct algorithms use the user buffers only";
      EXPECT_EQ(plans[r].blocks_copied, 0);
    }
  }
}

}  // namespace topoa2a::test
