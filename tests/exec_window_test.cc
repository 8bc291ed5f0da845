// The one executor (coll/exec.h) with messages in flight, without MPI:
// every rank's plan runs in its own thread against a FakeNet
// (tests/fake_net.h) that completes messages in random orders, for every
// algorithm, rank counts up to 16 (odd, even, prime, powers of two) and
// windows 0, 1, ..., p and 32, MPI_Alltoall and MPI_Alltoallv (block sizes
// 0, 1 and 2 elements). Every block must arrive exactly once at its place
// (payloads encode source, destination and element), no rank may deadlock,
// exceed the window, or touch a buffer a pending message reads or fills.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace topoa2a::test
