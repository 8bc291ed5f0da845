#include "coll/plan.h"

#include <algorithm>
#include <map>
#include <utility>

namespace topoa2a {
namespace {

// Best-fit allocator of runs of consecutive slots.
class SlotPool {
 public:
  // A run of n free slots; the smallest hole that fits, else the tail
  // (growing the pool). With may_grow false, -1 where no hole fits.
  int allocate(int n, bool may_grow = true) {
    const int size = static_cast<int>(used_.size());
    int best = -1, best_len = 0;
    for (int i = 0; i < size;) {
      if (used_[i]) {
        ++i;
        continue;
      }
      int j = i;
      while (j < size && !used_[j]) ++j;
      if (j - i >= n && (best < 0 || j - i < best_len)) {
        best = i;
        best_len = j - i;
      }
      i = j;
    }
    if (best >= 0) return mark(best, n);
    if (!may_grow) return -1;
    const int start = size + growth(n) - n;  // extend a free tail
    used_.resize(start + n, false);
    return mark(start, n);
  }
  // How much allocate(n) would grow the pool when no hole fits.
  int growth(int n) const {
    int start = static_cast<int>(used_.size());
    while (start > 0 && !used_[start - 1]) --start;
    return start + n - static_cast<int>(used_.size());
  }
  int free_count() const { return static_cast<int>(std::count(used_.begin(), used_.end(), false)); }
  void release(int slot) { used_[slot] = false; }
  int peak() const { return static_cast<int>(used_.size()); }

 private:
  int mark(int start, int n) {
    for (int i = start; i < start + n; ++i) used_[i] = true;
    return start;
  }
  std::vector<bool> used_;
};

struct BlockKey {
  bool operator()(const Block& a, const Block& b) const {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  }
};

constexpr int kStaged = 1 << 30;  // staging slots while planning: kStaged + i

struct Held {
  int slot;
  int recv_id;  // the receive that brought it
};

Plan make_plan_with(const Schedule& schedule, int p, int rank, int depth, bool allow_staging) {
  Plan plan;
  plan.p = p;
  plan.rank = rank;
  plan.depth = depth;
  plan.rounds = static_cast<int>(schedule.rounds.size());
  SlotPool pool;
  std::map<Block, Held, BlockKey> in_scratch;  // block -> where it waits
  int stage = 0;                               // most staged blocks in one round
  // Slots last used in step s are released at the end of step s + depth - 1.
  std::map<int, std::vector<int>> release_at;
  int next_id = 0;

  for (const Round& round : schedule.rounds) {
    if (round.idle()) continue;
    const int si = static_cast<int>(plan.steps.size());
    PlanStep step;
    step.first_id = next_id;
    const int first_recv_id = next_id + static_cast<int>(round.sends.size());
    next_id = first_recv_id + static_cast<int>(round.recvs.size());
    std::vector<int> to_free;                     // reusable after this round
    std::vector<int> gathered_from;               // copied out before the receives are posted
    std::vector<std::pair<Block, Held>> to_move;  // staged transit blocks
    int stage_used = 0;

    for (const Transfer& t : round.sends) {
      PlanSend s;
      s.peer = t.peer;
      s.nblocks = static_cast<int>(t.blocks.size());
      plan.blocks_sent += s.nblocks;
      if (s.nblocks == 1 && t.blocks[0].src == rank && t.blocks[0].dst == t.peer) {
        s.direct = true;
        s.user_block = t.peer;
        step.sends.push_back(std::move(s));
        continue;
      }
      plan.all_direct = false;
      s.blocks = t.blocks;
      // Already consecutive in scratch, in message order?
      bool run = true;
      int first = -1;
      for (size_t i = 0; i < t.blocks.size(); ++i) {
        auto it = in_scratch.find(t.blocks[i]);
        if (it == in_scratch.end()) {
          run = false;
          continue;
        }
        s.after.push_back(it->second.recv_id);
        if (i == 0)
          first = it->second.slot;
        else if (it->second.slot != first + static_cast<int>(i))
          run = false;
      }
      std::sort(s.after.begin(), s.after.end());
      s.after.erase(std::unique(s.after.begin(), s.after.end()), s.after.end());
      if (run && first >= 0) {
        s.first_slot = first;
        for (int i = 0; i < s.nblocks; ++i) to_free.push_back(first + i);
      } else {
        s.first_slot = pool.allocate(s.nblocks);
        for (int i = 0; i < s.nblocks; ++i) to_free.push_back(s.first_slot + i);
        for (const Block& b : t.blocks) {
          auto it = in_scratch.find(b);
          if (it != in_scratch.end()) {
            s.gather.push_back({Loc::kScratch, it->second.slot});
            if (depth == 1)
              gathered_from.push_back(it->second.slot);
            else
              to_free.push_back(it->second.slot);
          } else {
            s.gather.push_back({Loc::kSendBuf, b.dst});  // still in the user's buffer
          }
        }
        plan.blocks_copied += s.nblocks;
      }
      for (const Block& b : t.blocks) in_scratch.erase(b);
      step.sends.push_back(std::move(s));
    }

    // Round by round, the executor gathers every send before it posts any
    // receive, so the slots gathered from can already take this round's
    // incoming data.
    for (int slot : gathered_from) pool.release(slot);

    for (size_t ri = 0; ri < round.recvs.size(); ++ri) {
      const Transfer& t = round.recvs[ri];
      const int recv_id = first_recv_id + static_cast<int>(ri);
      PlanRecv r;
      r.peer = t.peer;
      r.nblocks = static_cast<int>(t.blocks.size());
      if (r.nblocks == 1 && t.blocks[0].src == t.peer && t.blocks[0].dst == rank) {
        r.direct = true;
        r.user_block = t.peer;
        step.recvs.push_back(std::move(r));
        continue;
      }
      plan.all_direct = false;
      r.blocks = t.blocks;
      // Land the message in a hole of the pool if one fits. Otherwise,
      // where the pool has room for its transit blocks once this round's
      // slots are free again, land it in the staging area and move those
      // blocks into single slots after the round; else grow the pool.
      int transit = 0;
      for (const Block& b : t.blocks) transit += b.dst != rank;
      r.first_slot = pool.allocate(r.nblocks, false);
      const bool staged = allow_staging && r.first_slot < 0 &&
                          pool.free_count() + static_cast<int>(to_free.size()) >= transit;
      if (staged) {
        r.first_slot = kStaged + stage_used;
        stage_used += r.nblocks;
      } else if (r.first_slot < 0) {
        r.first_slot = pool.allocate(r.nblocks);
      }
      for (int i = 0; i < r.nblocks; ++i) {
        const Block& b = t.blocks[i];
        const int slot = r.first_slot + i;
        if (b.dst == rank) {
          r.deliveries.push_back({slot, b.src});
          if (!staged) to_free.push_back(slot);
        } else if (staged) {
          to_move.push_back({b, {slot, recv_id}});
        } else {
          in_scratch[b] = {slot, recv_id};
        }
      }
      step.recvs.push_back(std::move(r));
    }

    // Slots read or filled this round are reusable `depth` rounds later.
    std::vector<int>& later = release_at[si + depth - 1];
    later.insert(later.end(), to_free.begin(), to_free.end());
    if (auto due = release_at.find(si); due != release_at.end()) {
      std::vector<int>& now = due->second;
      std::sort(now.begin(), now.end());
      now.erase(std::unique(now.begin(), now.end()), now.end());
      for (int slot : now) pool.release(slot);
      release_at.erase(due);
    }
    for (const auto& [block, held] : to_move) {
      const int to = pool.allocate(1);
      step.moves.push_back({held.slot, to});
      ++plan.blocks_moved;
      in_scratch[block] = {to, held.recv_id};
    }
    stage = std::max(stage, stage_used);
    plan.steps.push_back(std::move(step));
  }
  plan.messages = next_id;
  // The staging area follows the pool.
  const int base = pool.peak();
  auto place = [base](int& slot) {
    if (slot >= kStaged) slot = base + (slot - kStaged);
  };
  for (PlanStep& step : plan.steps) {
    for (PlanRecv& r : step.recvs) {
      place(r.first_slot);
      for (Delivery& d : r.deliveries) place(d.slot);
    }
    for (Move& m : step.moves) place(m.from);
  }
  plan.scratch_slots = base + stage;
  return plan;
}

// Most whole steps from step k whose messages add up to at most `window`.
int fit(const std::vector<int>& sizes, size_t k, int window) {
  int d = 0;
  long long sum = 0;
  for (size_t j = k; j < sizes.size(); ++j) {
    sum += sizes[j];
    if (sum > window) break;
    ++d;
  }
  return d;
}

}  // namespace

// Which layout needs less scratch depends on the algorithm's traffic
// pattern; planning is done once per communicator, so try both (staging
// only round by round).
Plan make_plan(const Schedule& schedule, int p, int rank, int depth) {
  depth = std::max(1, depth);
  Plan direct = make_plan_with(schedule, p, rank, depth, false);
  if (depth > 1) return direct;
  Plan staged = make_plan_with(schedule, p, rank, depth, true);
  return staged.scratch_slots < direct.scratch_slots ? staged : direct;
}

int window_depth(const Schedule& schedule, int window) {
  std::vector<int> sizes;
  for (const Round& r : schedule.rounds)
    if (!r.idle()) sizes.push_back(static_cast<int>(r.sends.size() + r.recvs.size()));
  int depth = 1;
  for (size_t k = 0; k < sizes.size(); ++k) depth = std::max(depth, fit(sizes, k, window));
  return depth;
}

int default_window(const Schedule& schedule, int rank) {
  for (const Round& r : schedule.rounds)
    for (const Transfer& t : r.sends)
      if (t.blocks.size() != 1 || t.blocks[0].src != rank || t.blocks[0].dst != t.peer)
        return kForwardingWindow;
  return kDirectWindow;
}

}  // namespace topoa2a
