// The network-ordered schedules (torus, direct_scheduled) on the grids and
// networks they are meant for: correctness on every grid shape, and the
// load properties their headers promise. No MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "coll/algorithms.h"
#include "coll/plan.h"
#include "tests/sim.h"

namespace topoa2a::test {
namespace {

// Row-major ranks of a grid (torus.cc's numbering: the last dimension
// varies fastest).
struct Torus {
  std::vector<int> dims;
  int rank_of(const std::vector<int>& c) const {
    int r = 0;
    for (size_t k = 0; k < dims.size(); ++k) r = r * dims[k] + c[k];
    return r;
  }
};

std::string text(const std::vector<int>& dims) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// The torus planner packs up to about 3.1p slots (8x8x8): 4p allowed.
void expect_network_correct(const Algorithm& a, int p, const Params& params) {
  CorrectOptions o;
  o.scratch_per_p = 4;
  o.what = "dims " + text(params.dims);
  test::expect_correct(a, p, params, o);
}

// Every ordered factorisation of p into `n` extents >= 2 (and p itself).
void factorisations(int p, int n, std::vector<int>& cur, std::vector<std::vector<int>>& out) {
  if (p == 1) {
    if (!cur.empty()) out.push_back(cur);
    return;
  }
  if (n == 0) return;
  for (int f = 2; f <= p; ++f)
    if (p % f == 0) {
      cur.push_back(f);
      factorisations(p / f, n - 1, cur, out);
      cur.pop_back();
    }
}

std::vector<std::vector<int>> grids(int p, int max_dims) {
  std::vector<int> cur;
  std::vector<std::vector<int>> out;
  factorisations(p, max_dims, cur, out);
  return out;
}

TEST(Torus, EveryGridUpToThreeDimensionsUpTo64Ranks) {
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  for (int p = 2; p <= 64; ++p)
    for (const auto& dims : grids(p, 3)) expect_network_correct(torus, p, Params::of_dims(dims));
}

TEST(Torus, FourDimensionsExtentsOfOneAndLargeCubes) {
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  expect_network_correct(torus, 16, Params::of_dims(std::vector<int>{2, 2, 2, 2}));
  expect_network_correct(torus, 36, Params::of_dims(std::vector<int>{3, 2, 3, 2}));
  expect_network_correct(torus, 12, Params::of_dims(std::vector<int>{1, 3, 1, 4}));
  expect_network_correct(torus, 512, Params::of_dims(std::vector<int>{8, 8, 8}));
  expect_network_correct(torus, 1, Params::of_dims(std::vector<int>{1}));
}

TEST(Torus, DefaultGridAndBadDims) {
  EXPECT_EQ(default_dims(64, 3), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(default_dims(12, 3), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(default_dims(7, 3), (std::vector<int>{7}));
  EXPECT_EQ(default_dims(512, 2), (std::vector<int>{32, 16}));
  EXPECT_EQ(default_dims(1, 3), (std::vector<int>{1}));
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  EXPECT_NE(
      torus.check(12, Params::of_dims(std::vector<int>{2, 2, 2})).find("do not have 12 ranks"),
      std::string::npos);
  EXPECT_NE(torus.check(12, Params::of_dims(std::vector<int>{0, 12})), "");
}

// Every dimension is busy from the first round: in round 1 each rank sends
// to a neighbour along every dimension of extent > 2 in both directions
// (lanes start on different dimensions).
TEST(Torus, AllDimensionsWorkFromTheFirstRound) {
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  const std::vector<int> dims{4, 4, 4};
  const Schedule s = torus.build(64, 21, Params::of_dims(dims));
  std::set<int> peers;
  for (const Transfer& t : s.rounds[0].sends) peers.insert(t.peer);
  // rank 21 = (1, 1, 1): its six neighbours
  EXPECT_EQ(peers, (std::set<int>{5, 37, 17, 25, 20, 22}));
}

// Both directions of every dimension carry the same blocks over the whole
// schedule (translation invariance: rank 0's sends are every rank's), the
// antipodal blocks of an even extent split half and half, so the busiest
// link carries the bisection bound's share. Odd extents are symmetric as
// they are; an extent of 2 has one neighbour.
TEST(Torus, BothDirectionsOfEveryDimensionCarryTheSameLoad) {
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  for (const std::vector<int>& dims :
       {std::vector<int>{4, 4, 4}, std::vector<int>{8, 8}, std::vector<int>{16, 16},
        std::vector<int>{6, 4}, std::vector<int>{8, 4, 2}, std::vector<int>{5, 3},
        std::vector<int>{8, 8, 8}}) {
    int p = 1;
    for (int d : dims) p *= d;
    const Torus t{dims};
    const Schedule s = torus.build(p, 0, Params::of_dims(dims));
    std::vector<long long> plus(dims.size(), 0), minus(dims.size(), 0);
    for (const Round& r : s.rounds)
      for (const Transfer& x : r.sends)
        for (size_t k = 0; k < dims.size(); ++k) {
          if (dims[k] <= 2) continue;
          std::vector<int> c(dims.size(), 0);
          c[k] = 1;
          if (x.peer == t.rank_of(c)) plus[k] += static_cast<long long>(x.blocks.size());
          c[k] = dims[k] - 1;
          if (x.peer == t.rank_of(c)) minus[k] += static_cast<long long>(x.blocks.size());
        }
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] <= 2) continue;
      SCOPED_TRACE(text(dims) + " dimension " + std::to_string(k));
      EXPECT_GT(plus[k], 0);
      // Odd-sized antipodal units give their extra block to alternate
      // directions: the totals come out equal.
      EXPECT_EQ(plus[k], minus[k]);
    }
  }
}

// Round by round (the torus's default window), a round lasts as long as
// its busiest link: the rounds' busiest links add up to about the busiest
// link's load over the whole schedule (the bisection bound's) on uneven
// grids too, where a lane would otherwise reach a long dimension while
// another lane still works on it (8x8x4: 1.34 times). Equal extents are
// within 1.05 as long as the lanes split the blocks evenly (4x4x4's 63
// moving blocks over 3 lanes give 1.125, left out).
TEST(Torus, RoundsAddUpToTheBusiestLinksLoad) {
  const Algorithm& torus = algorithm(AlgorithmId::kTorus);
  for (const std::vector<int>& dims :
       {std::vector<int>{4, 8, 8}, std::vector<int>{8, 4, 4}, std::vector<int>{16, 4},
        std::vector<int>{6, 4}, std::vector<int>{12, 4}, std::vector<int>{8, 8}}) {
    int p = 1;
    for (int d : dims) p *= d;
    const Params params = Params::of_dims(dims);
    std::vector<Schedule> all;
    for (int r = 0; r < p; ++r) all.push_back(torus.build(p, r, params));
    std::map<std::pair<int, int>, long long> total;
    long long rounds_sum = 0;
    for (size_t k = 0; k < all[0].rounds.size(); ++k) {
      std::map<std::pair<int, int>, long long> link;
      for (int r = 0; r < p; ++r)
        for (const Transfer& x : all[r].rounds[k].sends) {
          const long long n = static_cast<long long>(x.blocks.size());
          link[{r, x.peer}] += n;
          total[{r, x.peer}] += n;
        }
      long long busiest = 0;
      for (const auto& l : link) busiest = std::max(busiest, l.second);
      rounds_sum += busiest;
    }
    long long busiest = 0;
    for (const auto& l : total) busiest = std::max(busiest, l.second);
    SCOPED_TRACE(text(dims));
    EXPECT_LE(static_cast<double>(rounds_sum), 1.05 * static_cast<double>(busiest));
  }
}

TEST(DirectScheduled, TorusDragonflyAndSwitchOrders) {
  const Algorithm& ds = algorithm(AlgorithmId::kDirectScheduled);
  for (int p = 2; p <= 64; ++p) {
    expect_network_correct(ds, p, Params{});
    for (const auto& dims : grids(p, 3))
      expect_network_correct(ds, p, Params::of_dims(dims, Fabric::kTorus));
    for (const auto& dims : grids(p, 2))
      if (dims.size() == 2)
        expect_network_correct(ds, p, Params::of_dims(dims, Fabric::kDragonfly));
  }
  expect_network_correct(ds, 512, Params::of_dims(std::vector<int>{8, 8, 8}, Fabric::kTorus));
}

TEST(DirectScheduled, RestrictionsAreChecked) {
  const Algorithm& ds = algorithm(AlgorithmId::kDirectScheduled);
  EXPECT_NE(ds.check(12, Params::of_dims(std::vector<int>{2, 2, 2}, Fabric::kTorus)), "");
  EXPECT_NE(ds.check(12, Params::of_dims(std::vector<int>{12}, Fabric::kDragonfly)), "");
  EXPECT_EQ(ds.check(12, Params::of_dims(std::vector<int>{3, 4}, Fabric::kDragonfly)), "");
}

// The worst window of `window` consecutive rounds (every start): its
// busiest (dimension, direction) over what that one would carry if the
// whole schedule's load were spread evenly over the rounds. 1 is ideal.
double worst_of(const std::vector<std::vector<double>>& load, int window) {
  std::vector<double> total(load[0].size(), 0);
  for (const auto& l : load)
    for (size_t j = 0; j < l.size(); ++j) total[j] += l[j];
  const double even = *std::max_element(total.begin(), total.end()) * window / load.size();
  double worst = 0;
  for (size_t b = 0; b + window <= load.size(); ++b) {
    std::vector<double> sum(total.size(), 0);
    for (size_t i = b; i < b + window; ++i)
      for (size_t j = 0; j < sum.size(); ++j) sum[j] += load[i][j];
    worst = std::max(worst, *std::max_element(sum.begin(), sum.end()) / even);
  }
  return worst;
}

// The links a shift (rank 0 sending to `peer`) loads on a torus: per
// dimension and direction, its hops (shortest way, ties the positive way;
// every rank sends one message per round, so every link of that dimension
// and direction carries this many messages).
std::vector<double> shift_load(int peer, const std::vector<int>& dims) {
  std::vector<double> l(2 * dims.size(), 0);
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    const int c = peer % dims[k];
    peer /= dims[k];
    if (c == 0) continue;
    if (c <= dims[k] - c)
      l[2 * k] += c;
    else
      l[2 * k + 1] += dims[k] - c;
  }
  return l;
}

// worst_of for the rounds of direct_scheduled on a torus.
double worst_window(const Algorithm& a, const std::vector<int>& dims, int window) {
  int p = 1;
  for (int d : dims) p *= d;
  const Schedule s = a.build(p, 0, Params::of_dims(dims, Fabric::kTorus));
  std::vector<std::vector<double>> load;
  for (const Round& r : s.rounds) load.push_back(shift_load(r.sends[0].peer, dims));
  return worst_of(load, window);
}

// worst_of for the plain shift order j + i.
double worst_window_plain(const std::vector<int>& dims, int window) {
  int p = 1;
  for (int d : dims) p *= d;
  std::vector<std::vector<double>> load;
  for (int sh = 1; sh < p; ++sh) load.push_back(shift_load(sh, dims));
  return worst_of(load, window);
}

// The greedy order keeps every window's links far more even than the plain
// shift order j + i, which sends a window's messages all the same way.
TEST(DirectScheduled, WindowsLoadTheTorusEvenly) {
  const Algorithm& ds = algorithm(AlgorithmId::kDirectScheduled);
  for (const std::vector<int>& dims : {std::vector<int>{8, 8}, std::vector<int>{4, 4, 4},
                                       std::vector<int>{8, 8, 8}, std::vector<int>{16, 16}}) {
    for (int w : {8, 16, 32}) {
      const double greedy = worst_window(ds, dims, w);
      SCOPED_TRACE(text(dims) + " window " + std::to_string(w));
      const double plain = worst_window_plain(dims, w);
      std::printf("%s window %d: busiest link / even share %.2f (plain shift order %.2f)\n",
                  text(dims).c_str(), w, greedy, plain);
      EXPECT_LT(greedy, 2.1) << "busiest link of a window over its even share";
      EXPECT_LT(greedy * 1.3, plain) << "no better than the plain shift order";
    }
  }
}

}  // namespace
}  // namespace topoa2a::test
