// The one executor (coll/exec.h) with messages in flight, without MPI:
// every rank's plan runs in its own thread against a FakeNet
// (tests/fake_net.h) that completes messages in random orders, for every
// algorithm, rank counts up to 16 (odd, even, prime, powers of two) and
// windows 0, 1, ..., p and 32, MPI_Alltoall and MPI_Alltoallv (block sizes
// 0, 1 and 2 elements). Every block must arrive exactly once at its place
// (payloads encode source, destination and element), no rank may deadlock,
// exceed the window, or touch a buffer a pending message reads or fills.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coll/algorithms.h"
#include "coll/exec.h"
#include "coll/plan.h"
#include "tests/fake_net.h"

namespace topoa2a::test {
namespace {

long long encode(int s, int d, int i) { return ((s * 64LL + d) * 8 + i) + 1; }

// Elements of block (s, d) in the alltoallv case: 0, 1 or 2.
int vcount(int s, int d) { return (s + 2 * d) % 3; }

constexpr int kN = 2;  // elements per block, alltoall

struct RankRun {
  std::vector<long long> send, recv;
  std::vector<int> sc, sd, rc, rd;
  int err = MPI_SUCCESS;
  bool deadlocked = false;
};

void setup(RankRun& r, int p, int me, bool v) {
  if (!v) {
    r.send.resize(static_cast<size_t>(p) * kN);
    r.recv.assign(static_cast<size_t>(p) * kN, -1);
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < kN; ++i) r.send[d * kN + i] = encode(me, d, i);
    return;
  }
  int so = 0, ro = 0;
  for (int d = 0; d < p; ++d) {
    r.sc.push_back(vcount(me, d));
    r.sd.push_back(so);
    so += r.sc.back();
    r.rc.push_back(vcount(d, me));
    r.rd.push_back(ro);
    ro += r.rc.back();
  }
  r.send.resize(static_cast<size_t>(so) + 1);
  r.recv.assign(static_cast<size_t>(ro) + 1, -1);
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < r.sc[d]; ++i) r.send[r.sd[d] + i] = encode(me, d, i);
}

// Runs every rank; returns the failures.
std::vector<std::string> run_machine(const Algorithm& a, int p, int window, bool v, unsigned seed) {
  const Params params = resolve_params(p, Params{});
  std::vector<Plan> plans;
  int largest = 0;
  for (int r = 0; r < p; ++r) {
    const Schedule s = a.build(p, r, params);
    plans.push_back(make_plan(s, p, r, window_depth(s, window)));
    for (const PlanStep& st : plans.back().steps) largest = std::max(largest, st.messages());
  }
  FakeNet net(p, seed, std::max(window, largest));
  std::vector<RankRun> runs(p);
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    setup(runs[r], p, r, v);
    threads.emplace_back([&, r] {
      FakeTransport tr(net, p, r);
      RankRun& x = runs[r];
      try {
        if (!v)
          x.err = run_alltoall(plans[r], tr,
                               {x.send.data(), kN, MPI_LONG_LONG, x.recv.data(), kN, MPI_LONG_LONG},
                               window, nullptr);
        else
          x.err = run_alltoallv(plans[r], tr,
                                {x.send.data(), x.sc.data(), x.sd.data(), MPI_LONG_LONG,
                                 x.recv.data(), x.rc.data(), x.rd.data(), MPI_LONG_LONG},
                                window, nullptr);
      } catch (const Deadlock&) {
        x.deadlocked = true;
      }
      net.finished(r);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<std::string> errors = net.errors();
  for (int d = 0; d < p && errors.size() < 20; ++d) {
    const RankRun& x = runs[d];
    if (x.deadlocked) continue;  // reported by the net
    if (x.err != MPI_SUCCESS) errors.push_back("rank " + std::to_string(d) + " returned an error");
    for (int s = 0; s < p; ++s) {
      const int n = v ? x.rc[s] : kN, at = v ? x.rd[s] : s * kN;
      for (int i = 0; i < n; ++i)
        if (x.recv[at + i] != encode(s, d, i))
          errors.push_back("rank " + std::to_string(d) + ": block from " + std::to_string(s) +
                           " element " + std::to_string(i) + " is wrong");
    }
    if (v && x.recv.back() != -1) errors.push_back("write past the receive blocks");
  }
  return errors;
}

class Window : public ::testing::TestWithParam<const Algorithm*> {};

TEST_P(Window, EveryBlockOnceNoDeadlockBuffersRespected) {
  const Algorithm& a = *GetParam();
  for (int p : {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16}) {
    if (!a.check(p, resolve_params(p, Params{})).empty()) continue;
    std::vector<int> windows;
    for (int w = 0; w <= p; ++w) windows.push_back(w);
    windows.push_back(32);
    for (int w : windows)
      for (bool v : {false, true})
        for (unsigned seed : {1u, 2u}) {
          SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " window " +
                       std::to_string(w) + (v ? " alltoallv" : " alltoall") + " seed " +
                       std::to_string(seed));
          const auto errors = run_machine(a, p, w, v, seed * 7919u + p * 31u + w);
          for (const auto& e : errors) ADD_FAILURE() << e;
          if (!errors.empty()) return;
        }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Window, ::testing::ValuesIn([] {
                           std::vector<const Algorithm*> v;
                           for (const Algorithm& a : algorithms()) v.push_back(&a);
                           return v;
                         }()),
                         [](const ::testing::TestParamInfo<const Algorithm*>& info) {
                           return std::string(info.param->name);
                         });

// Window 0 (and any window smaller than a round) is round by round
// (depth 1); otherwise as many whole rounds as fit. The 1-factor exchange on
// an even p has p - 1 rounds of one send and one receive each.
TEST(WindowDepth, RoundByRoundAndWholeRounds) {
  const int p = 8;
  const Schedule s = algorithm(AlgorithmId::kOneFactor).build(p, 3, Params{});
  ASSERT_EQ(static_cast<int>(s.rounds.size()), p - 1);
  for (int w : {0, 1, 2, 3, 4, 5, 6, 13, 14, 32})
    EXPECT_EQ(window_depth(s, w), std::min(p - 1, std::max(1, w / 2))) << "window " << w;
  EXPECT_EQ(make_plan(s, p, 3, 1).depth, 1);
  EXPECT_EQ(default_window(s, 3), kDirectWindow);
  const Schedule ring = algorithm(AlgorithmId::kRing).build(p, 3, Params{});
  EXPECT_EQ(default_window(ring, 3), kForwardingWindow);
}

// The nonblocking path (start_alltoall[v], progress(false)): every rank runs
// several operations at once, each on its own network (its own
// communicator), and steps them without ever blocking, in an order of its
// own (rank r starts with operation r mod K and goes round from there; odd
// ranks go the other way round), so that ranks complete them in different
// orders. Every block must arrive once, in every operation; a run in which
// some rank stops making progress fails (a bound on the passes: the nets
// complete one event per test, so a live run needs far fewer).
struct NbOp {
  const Algorithm* algo;
  bool v;
  int window;
};

std::vector<std::string> run_interleaved(const std::vector<NbOp>& ops, int p, unsigned seed) {
  const int k = static_cast<int>(ops.size());
  std::vector<std::vector<Plan>> plans(k);
  std::vector<std::unique_ptr<FakeNet>> nets;
  for (int o = 0; o < k; ++o) {
    const Params params = resolve_params(p, Params{});
    int largest = 0;
    for (int r = 0; r < p; ++r) {
      const Schedule s = ops[o].algo->build(p, r, params);
      plans[o].push_back(make_plan(s, p, r, window_depth(s, ops[o].window)));
      for (const PlanStep& st : plans[o].back().steps) largest = std::max(largest, st.messages());
    }
    nets.push_back(std::make_unique<FakeNet>(p, seed + 101u * o, std::max(ops[o].window, largest)));
  }
  std::vector<std::vector<RankRun>> runs(k, std::vector<RankRun>(p));
  std::vector<std::string> stuck(p);
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      std::vector<std::unique_ptr<FakeTransport>> trs;
      std::vector<std::unique_ptr<Operation>> live;
      for (int o = 0; o < k; ++o) {  // started in the same order on every rank
        RankRun& x = runs[o][r];
        setup(x, p, r, ops[o].v);
        trs.push_back(std::make_unique<FakeTransport>(*nets[o], p, r));
        if (!ops[o].v)
          live.push_back(start_alltoall(
              plans[o][r], *trs[o],
              {x.send.data(), kN, MPI_LONG_LONG, x.recv.data(), kN, MPI_LONG_LONG}, ops[o].window));
        else
          live.push_back(start_alltoallv(plans[o][r], *trs[o],
                                         {x.send.data(), x.sc.data(), x.sd.data(), MPI_LONG_LONG,
                                          x.recv.data(), x.rc.data(), x.rd.data(), MPI_LONG_LONG},
                                         ops[o].window));
      }
      int left = k;
      std::vector<char> finished(k, 0);
      long passes = 0;
      try {
        while (left > 0) {
          if (++passes > 2000000) {
            stuck[r] = "rank " + std::to_string(r) + " makes no progress";
            break;
          }
          for (int j = 0; j < k; ++j) {
            const int o = (r % 2 ? r + k - j : r + j) % k;
            if (finished[o] || !live[o]->progress(false)) continue;
            finished[o] = 1;
            --left;
            runs[o][r].err = live[o]->result();
            nets[o]->finished(r);
            std::this_thread::yield();
          }
        }
      } catch (const Deadlock&) {
        stuck[r] = "rank " + std::to_string(r) + ": a net saw a deadlock";
      }
      for (int o = 0; o < k; ++o)
        if (!finished[o]) nets[o]->finished(r);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<std::string> errors;
  for (const auto& s : stuck)
    if (!s.empty()) errors.push_back(s);
  for (int o = 0; o < k; ++o) {
    for (const auto& e : nets[o]->errors()) errors.push_back("op " + std::to_string(o) + ": " + e);
    for (int d = 0; d < p && errors.size() < 20; ++d) {
      const RankRun& x = runs[o][d];
      if (x.err != MPI_SUCCESS)
        errors.push_back("rank " + std::to_string(d) + " op " + std::to_string(o) +
                         " returned an error");
      for (int s = 0; s < p; ++s) {
        const int n = ops[o].v ? x.rc[s] : kN, at = ops[o].v ? x.rd[s] : s * kN;
        for (int i = 0; i < n; ++i)
          if (x.recv[at + i] != encode(s, d, i))
            errors.push_back("op " + std::to_string(o) + " rank " + std::to_string(d) +
                             ": block from " + std::to_string(s) + " element " + std::to_string(i) +
                             " is wrong");
      }
    }
  }
  return errors;
}

TEST(Nonblocking, SeveralOperationsInterleavedEveryBlockOnce) {
  for (int p : {2, 3, 4, 5, 7, 8}) {
    // Every algorithm once as an alltoall, beside a ring alltoallv and a
    // 1-factor alltoall with windows of their own.
    for (const Algorithm& a : algorithms()) {
      if (!a.check(p, resolve_params(p, Params{})).empty()) continue;
      const std::vector<NbOp> ops = {{&a, false, 1},
                                     {&algorithm(AlgorithmId::kRing), true, 0},
                                     {&algorithm(AlgorithmId::kOneFactor), false, p}};
      for (unsigned seed : {1u, 2u}) {
        SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " seed " +
                     std::to_string(seed));
        const auto errors = run_interleaved(ops, p, seed * 7919u + p);
        for (const auto& e : errors) ADD_FAILURE() << e;
        if (!errors.empty()) return;
      }
    }
    {
      SCOPED_TRACE("alltoallv of every kind, p=" + std::to_string(p));
      std::vector<NbOp> ops;
      for (const Algorithm& a : algorithms())
        if (a.alltoallv && a.check(p, resolve_params(p, Params{})).empty())
          ops.push_back({&a, true, 2});
      const auto errors = run_interleaved(ops, p, 77u + p);
      for (const auto& e : errors) ADD_FAILURE() << e;
      if (!errors.empty()) return;
    }
  }
}

}  // namespace
}  // namespace topoa2a::test
