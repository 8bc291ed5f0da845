// Unit tests of per-class link bandwidths (the network file's bandwidth
// lines; no MPI): parsing, and the cost model pricing each link at its own
// bandwidth. Expected values come from the formulas in topology/README.md
// ("Links", "Pricing a step"); each would fail if the bandwidths were
// ignored.
#include <gtest/gtest.h>

#include <string>

#include "tests/bad_input.h"
#include "topology/cost_model.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

// `nodes` single-rank nodes on the network of a network file.
Topology from_file(const std::string& text, int nodes) {
  Topology t = uniform_topology(nodes, 1);
  NetworkDesc d;
  std::string err;
  EXPECT_TRUE(parse_network_file(text, "bw.net", &d, &err)) << err;
  configure_topology(&t, &d, "file:bw.net", nullptr);
  EXPECT_TRUE(t.errors.empty()) << (t.errors.empty() ? "" : t.errors.front());
  return t;
}

// The defaults: a NIC carries 10 GB/s (tw_inter = 0.1 ns/B).
TEST(Bandwidth, TaperedFatTreeUplinks) {
  const CostParams c;
  const size_t m = 1 << 16;
  const double md = static_cast<double>(m);
  auto all_at_once = [&](const std::string& extra) {
    const Topology t = from_file("network fat_tree 16x8\n" + extra, 32);
    return CostModel(t, c).estimate("onefactor_xor", m, 31).predicted;
  };
  // Every rank's 31 messages in flight: its NIC carries 31 blocks, each
  // leaf's 8 up-links 16 x 16 / 8 = 32 blocks each.
  const double base = c.ts_inter + 30 * c.o;
  EXPECT_NEAR(all_at_once(""), base + 32 * md * c.tw_inter, 1e-12);
  // Up-links twice as fast as a NIC: 16 NIC-blocks, the NIC is the busiest.
  EXPECT_NEAR(all_at_once("bandwidth uplink 20GB/s\n"), base + 31 * md * c.tw_inter, 1e-12);
  // Half as fast: 64.
  EXPECT_NEAR(all_at_once("bandwidth uplink 40Gb/s\n"), base + 64 * md * c.tw_inter, 1e-12);
}

TEST(Bandwidth, DragonflyGlobalLinks) {
  const CostParams c;
  const size_t m = 1 << 16;
  const double md = static_cast<double>(m);
  auto all_at_once = [&](const std::string& extra) {
    const Topology t = from_file("network dragonfly 2x16x1\n" + extra, 32);
    return CostModel(t, c).estimate("onefactor_xor", m, 31).predicted;
  };
  // 16 ranks of a group send 16 blocks each to the other group over one
  // global link: 256 blocks; a NIC 31.
  const double base = c.ts_inter + 30 * c.o;
  EXPECT_NEAR(all_at_once(""), base + 256 * md * c.tw_inter, 1e-12);
  // A global link 4x a NIC: 64 NIC-blocks.
  EXPECT_NEAR(all_at_once("bandwidth global 40GB/s\n"), base + 64 * md * c.tw_inter, 1e-12);
}

TEST(Bandwidth, RingLinksScaleTheBandwidthTerm) {
  // Round by round the ring algorithm's busiest link carries its largest
  // message; at half a NIC's bandwidth every round's bandwidth term doubles
  // (tw_intra = tw_inter: no other term hides it) and the start-ups stay.
  const CostParams c;
  const size_t m = 1 << 16;
  const Topology fast = from_file("network ring 8\n", 8);
  const Topology slow = from_file("network ring 8\nbandwidth dim1 5GB/s\n", 8);
  const CostModel f(fast, c), s(slow, c);
  const double start = f.estimate("ring", 0).predicted;
  EXPECT_NEAR(s.estimate("ring", 0).predicted, start, 1e-15);
  EXPECT_NEAR(s.estimate("ring", m).predicted - start,
              2 * (f.estimate("ring", m).predicted - start), 1e-12);
  EXPECT_GT(f.estimate("ring", m).predicted, start);
  // Only the second dimension of a 2x4 torus slow: the estimate changes
  // (traffic crosses it), and slowing both by 2 doubles the bandwidth term.
  const Topology t = from_file("network torus 2x4\n", 8);
  const Topology t2 = from_file("network torus 2x4\nbandwidth dim2 5GB/s\n", 8);
  const Topology tb =
      from_file("network torus 2x4\nbandwidth dim1 5GB/s\nbandwidth dim2 5GB/s\n", 8);
  const CostModel a(t, c), b(t2, c), both(tb, c);
  EXPECT_GT(b.estimate("ring", m).predicted, a.estimate("ring", m).predicted);
  const double t0 = a.estimate("ring", 0).predicted;
  EXPECT_NEAR(both.estimate("ring", m).predicted - t0, 2 * (a.estimate("ring", m).predicted - t0),
              1e-12);
  EXPECT_NE(describe(t2.network).find("links: dim2 5 GB/s"), std::string::npos)
      << describe(t2.network);
}

TEST(Bandwidth, Values) {
  double b = 0;
  std::string why;
  ASSERT_TRUE(parse_bandwidth("25GB/s", &b, &why));
  EXPECT_DOUBLE_EQ(b, 25e9);
  ASSERT_TRUE(parse_bandwidth("100Gb/s", &b, &why));
  EXPECT_DOUBLE_EQ(b, 12.5e9);
  ASSERT_TRUE(parse_bandwidth("1.5e3MB/s", &b, &why));
  EXPECT_DOUBLE_EQ(b, 1.5e9);
  EXPECT_FALSE(parse_bandwidth("25", &b, &why));
  EXPECT_NE(why.find("expected a unit"), std::string::npos) << why;
  EXPECT_FALSE(parse_bandwidth("0GB/s", &b, &why));
  EXPECT_FALSE(parse_bandwidth("-1GB/s", &b, &why));
  EXPECT_FALSE(parse_bandwidth("infGB/s", &b, &why));
}

TEST(Bandwidth, FileErrorsNameLineAndColumn) {
  const BadInput cases[] = {
      {"bandwidth dim1 1GB/s\n", "bw.net:1:1: ", "must come after the network line"},
      {"network torus 4x4\nbandwidth dim3 1GB/s\n",
       "bw.net:2:11: ", "a torus's links are dim1..dim2"},
      {"network ring 8\nbandwidth uplink 1GB/s\n", "bw.net:2:11: ", "a ring's links are dim1"},
      {"network switch\nbandwidth uplink 1GB/s\n",
       "bw.net:2:11: ", "a switch network has no links beyond the NICs"},
      {"network fat_tree\nbandwidth uplink 1GB/s\n", "bw.net:2:11: ", "needs a tapered fat tree"},
      {"network dragonfly 2x16\nbandwidth dim1 1GB/s\n",
       "bw.net:2:11: ", "a dragonfly's links are 'global'"},
      {"network dragonfly 2x16\nbandwidth global 25 GB/s\n", "bw.net:2:18: ", "expected a unit"},
      {"network ring 8\nbandwidth dim1 0GB/s\n", "bw.net:2:16: ", "not a positive bandwidth"},
      {"network ring 8\nbandwidth dim1\n", "bw.net:2:15: ", "expected a bandwidth after 'dim1'"},
      {"network ring 8\nbandwidth dim1 1GB/s\nbandwidth dim1 2GB/s\n",
       "bw.net:3:11: ", "duplicate bandwidth of 'dim1' (first at line 2)"},
      {"network ring 8\nbandwidth dim1 1GB/s x\n", "bw.net:2:22: ", "expected end of line"},
  };
  for (const BadInput& c : cases) {
    NetworkDesc d;
    std::string err;
    EXPECT_FALSE(parse_network_file(c.text, "bw.net", &d, &err)) << c.text;
    expect_error(c, err);
  }
  // Dimensions derived from the job: checked when applied.
  Topology t = uniform_topology(16, 1);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_network_file("network torus\nbandwidth dim3 1GB/s\n", "bw.net", &d, &err))
      << err;
  configure_topology(&t, &d, "file:bw.net", nullptr);
  ASSERT_FALSE(t.errors.empty());
  EXPECT_NE(t.errors.front().find("bandwidth dim3: a torus's links are dim1..dim2"),
            std::string::npos)
      << t.errors.front();
}

}  // namespace
}  // namespace topoa2a
