// Schedule and plan tests: no MPI. Every algorithm, every rank count, every
// rank, simulated as a whole machine.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "coll/algorithms.h"
#include "coll/plan.h"
#include "tests/sim.h"

namespace topoa2a::test {
namespace {

std::vector<int> rank_counts(const Algorithm& a) {
  std::vector<int> ps;
  if (a.check(3, Params{}).empty()) {
    for (int p = 1; p <= 64; ++p) ps.push_back(p);
  } else {  // power-of-two algorithms
    for (int p = 1; p <= 1024; p *= 2) ps.push_back(p);
  }
  return ps;
}

class EveryAlgorithm : public ::testing::TestWithParam<const Algorithm*> {};

TEST_P(EveryAlgorithm, EveryBlockArrivesOnceWithSeedRoundsAndVolume) {
  const Algorithm& a = *GetParam();
  for (int p : rank_counts(a)) expect_correct(a, p, resolve_params(p, Params{}));
}

TEST_P(EveryAlgorithm, RestrictionIsDeclared) {
  const Algorithm& a = *GetParam();
  for (int p : {3, 6, 12}) {
    const bool pow2_only = std::string(a.restrictions).find("power of two") != std::string::npos;
    EXPECT_EQ(a.check(p, resolve_params(p, Params{})).empty(), !pow2_only) << a.name << p;
  }
}

INSTANTIATE_TEST_SUITE_P(All, EveryAlgorithm, ::testing::ValuesIn([] {
                           std::vector<const Algorithm*> v;
                           for (const Algorithm& a : algorithms()) v.push_back(&a);
                           return v;
                         }()),
                         [](const auto& info) { return std::string(info.param->name); });

TEST(Table, IdsIndexTheTableAndNamesAreUnique) {
  std::set<std::string> names;
  for (size_t i = 0; i < algorithms().size(); ++i) {
    const Algorithm& a = algorithms()[i];
    EXPECT_EQ(static_cast<size_t>(a.id), i);
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_EQ(find_algorithm(a.name), &a);
    EXPECT_EQ(&algorithm(a.id), &a);
  }
  EXPECT_EQ(find_algorithm("no_such"), nullptr);
  EXPECT_EQ(algorithm_names(),
            "ring, ring_bidir, mesh, hypercube, onefactor, onefactor_xor, node_aware, multileader, "
            "torus, direct_scheduled, node_aware_log");
}

TEST(Mesh, EveryGridOfEveryRankCount) {
  const Algorithm& mesh = algorithm(AlgorithmId::kMesh);
  for (int p = 1; p <= 64; ++p)
    for (int r = 1; r <= p; ++r)
      if (p % r == 0) expect_correct(mesh, p, Params::of_grid(Grid{r, p / r}));
}

TEST(Mesh, DefaultGridIsClosestToSquare) {
  EXPECT_EQ(default_grid(16).rows, 4);
  EXPECT_EQ(default_grid(12).rows, 3);
  EXPECT_EQ(default_grid(12).cols, 4);
  EXPECT_EQ(default_grid(8).rows, 2);
  EXPECT_EQ(default_grid(7).rows, 1);
  EXPECT_EQ(default_grid(1).cols, 1);
}

TEST(Mesh, BadGridIsRejectedWithReason) {
  const Algorithm& mesh = algorithm(AlgorithmId::kMesh);
  EXPECT_NE(mesh.check(8, Params::of_grid(Grid{3, 3})).find("3x3"), std::string::npos);
  Grid g;
  EXPECT_TRUE(parse_grid("4x2", &g));
  EXPECT_EQ(g.rows, 4);
  EXPECT_EQ(g.cols, 2);
  EXPECT_FALSE(parse_grid("4x", &g));
  EXPECT_FALSE(parse_grid("0x4", &g));
  EXPECT_FALSE(parse_grid("4x2x1", &g));
  EXPECT_FALSE(parse_grid("4*2", &g));
}

// Grid arithmetic in 64 bits: 3 x 1431655766 is 4294967298, which a 32-bit
// product wraps to 2 (it then passed for p=2 and the mesh plan ran out of
// memory); 4294967298 read with %d became 2.
TEST(Mesh, GridNumbersAreCheckedNotWrapped) {
  Grid g;
  std::string why;
  EXPECT_FALSE(parse_grid("3x1431655766", &g, &why));
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
  EXPECT_NE(why.find("at most 2147483647"), std::string::npos) << why;
  EXPECT_FALSE(parse_grid("4294967298x1", &g, &why));
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
  EXPECT_FALSE(parse_grid("1x99999999999999999999999", &g, &why));
  EXPECT_FALSE(parse_grid("-2x-1", &g, &why));
  EXPECT_FALSE(parse_grid(" 4x2", &g, &why));
  EXPECT_FALSE(parse_grid("4x2 ", &g, &why));
  EXPECT_FALSE(parse_grid("+4x2", &g, &why));
  EXPECT_FALSE(parse_grid("0x4", &g, &why));
  EXPECT_NE(why.find("must be positive"), std::string::npos) << why;
  EXPECT_TRUE(parse_grid("1x2147483647", &g, &why)) << why;
  EXPECT_EQ(g.cols, 2147483647);
  EXPECT_TRUE(parse_grid("46341X46340", &g, &why)) << why;  // 2147441940
  EXPECT_FALSE(parse_grid("46341x46341", &g, &why));        // 2147488281

  EXPECT_FALSE((Grid{3, 1431655766}.valid_for(2)));
  EXPECT_FALSE((Grid{65536, 65536}.valid_for(0)));
  EXPECT_TRUE((Grid{46341, 46340}.valid_for(2147441940)));
  const Algorithm& mesh = algorithm(AlgorithmId::kMesh);
  EXPECT_FALSE(mesh.check(2, Params::of_grid(Grid{3, 1431655766})).empty());
}

TEST(Mesh, DefaultGridAndLog2NearIntMax) {
  const Grid g = default_grid(2147395600);  // 46340^2
  EXPECT_EQ(g.rows, 46340);
  EXPECT_EQ(g.cols, 46340);
  const Grid prime = default_grid(2147483647);  // a prime
  EXPECT_EQ(prime.rows, 1);
  EXPECT_EQ(prime.cols, 2147483647);
  EXPECT_EQ(ilog2(2147483647), 31);
  EXPECT_EQ(ilog2(1 << 30), 30);
}

TEST(SeedFormulas, MeshOnSquareGridAndRing) {
  const double ts = 3.0, tw = 0.5, m = 8.0;
  for (int q : {2, 4, 8}) {
    const int p = q * q;
    EXPECT_DOUBLE_EQ(algorithm(AlgorithmId::kMesh).time(p, resolve_params(p, {}), ts, tw, m),
                     (2 * ts + tw * m * p) * (q - 1));
  }
  EXPECT_DOUBLE_EQ(algorithm(AlgorithmId::kRing).time(10, {}, ts, tw, m),
                   (ts + 0.5 * tw * m * 10) * 9);
  EXPECT_DOUBLE_EQ(algorithm(AlgorithmId::kOneFactor).time(7, {}, ts, tw, m), 7 * (ts + tw * m));
  EXPECT_DOUBLE_EQ(algorithm(AlgorithmId::kOneFactor).time(8, {}, ts, tw, m), 7 * (ts + tw * m));
  EXPECT_DOUBLE_EQ(algorithm(AlgorithmId::kHypercube).time(16, {}, ts, tw, m),
                   4 * (ts + tw * m * 8));
}

// The seed's even rule worked by hand for p = 4: round i pairs p-1 with
// idle = 2i mod 3 and the others by (i - j) mod 3.
TEST(OneFactor, SeedPairingForFourRanks) {
  const int want[3][4] = {{3, 2, 1, 0}, {1, 0, 3, 2}, {2, 3, 0, 1}};
  for (int j = 0; j < 4; ++j) {
    const Schedule s = onefactor_build(4, j, {});
    ASSERT_EQ(s.rounds.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(s.rounds[i].sends.at(0).peer, want[i][j]);
  }
}

TEST(OneFactor, OddRankCountIdlesEachRankOnce) {
  for (int p : {3, 5, 7, 9}) {
    for (int j = 0; j < p; ++j) {
      const Schedule s = onefactor_build(p, j, {});
      int idle = 0;
      for (const Round& r : s.rounds) idle += r.idle();
      EXPECT_EQ(s.rounds.size(), static_cast<size_t>(p));
      EXPECT_EQ(idle, 1);
    }
  }
}

TEST(Plan, RingForwardsWithoutCopying) {
  for (int p : {3, 8, 17}) {
    const Plan plan = make_plan(ring_build(p, 1, {}), p, 1);
    EXPECT_EQ(plan.blocks_copied, p - 1) << "only round 1 packs; later rounds send a tail";
  }
}

// The checker itself: breaking one block of a correct schedule is caught.
class BrokenSchedule : public ::testing::Test {
 protected:
  std::vector<Schedule> good = build_all(algorithm(AlgorithmId::kMesh), 6, resolve_params(6, {}));
  bool caught(const std::vector<Schedule>& s) { return !simulate_schedules(s).errors.empty(); }
};

TEST_F(BrokenSchedule, CorrectOneIsAccepted) { EXPECT_FALSE(caught(good)); }

TEST_F(BrokenSchedule, DroppedBlockIsCaught) {
  auto s = good;
  Transfer& t = s[0].rounds[0].sends[0];
  const Block b = t.blocks.back();
  t.blocks.pop_back();
  for (Transfer& rv : s[t.peer].rounds[0].recvs)
    if (rv.peer == 0) rv.blocks.pop_back();
  (void)b;
  EXPECT_TRUE(caught(s));
}

TEST_F(BrokenSchedule, DuplicatedBlockIsCaught) {
  auto s = good;
  Transfer& t = s[0].rounds[0].sends[0];
  t.blocks.push_back(t.blocks.front());
  for (Transfer& rv : s[t.peer].rounds[0].recvs)
    if (rv.peer == 0) rv.blocks.push_back(rv.blocks.front());
  EXPECT_TRUE(caught(s));
}

TEST_F(BrokenSchedule, MisroutedBlockIsCaught) {
  auto s = good;
  Transfer& t = s[0].rounds[0].sends[0];
  t.blocks[0].dst = (t.blocks[0].dst + 1) % 6;
  for (Transfer& rv : s[t.peer].rounds[0].recvs)
    if (rv.peer == 0) rv.blocks[0].dst = t.blocks[0].dst;
  EXPECT_TRUE(caught(s));
}

TEST_F(BrokenSchedule, UnmatchedSendIsCaught) {
  auto s = good;
  s[1].rounds[0].recvs.clear();
  EXPECT_TRUE(caught(s));
}

}  // namespace
}  // namespace topoa2a::test
