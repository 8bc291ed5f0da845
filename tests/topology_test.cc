// Unit tests of topology/: layouts, the network file and forced topology
// parsers, applying descriptions, cost parameters (the JSON rules:
// rules_test.cc; the cost model: cost_model_test.cc). No MPI.
#include "topology/topology.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/bad_input.h"
#include "topology/cost_model.h"  // CostParams

namespace topoa2a {
namespace {

// ---------------------------------------------------------------------------
// Layouts

TEST(Layout, BlockRoundRobinOtherSingle) {
  Topology b = topology_from_layout({7, 7, 3, 3, 5, 5});
  EXPECT_EQ(b.size, 6);
  EXPECT_EQ(b.nodes, 3);
  EXPECT_EQ(b.ranks_per_node, 2);
  EXPECT_EQ(b.placement, Placement::kBlock);
  EXPECT_EQ(b.node_of_rank, (std::vector<int>{0, 0, 1, 1, 2, 2}));

  Topology rr = topology_from_layout({4, 9, 4, 9});
  EXPECT_EQ(rr.placement, Placement::kRoundRobin);
  EXPECT_EQ(rr.ranks_per_node, 2);

  Topology other = topology_from_layout({0, 1, 1, 0});
  EXPECT_EQ(other.placement, Placement::kOther);

  Topology uneven = topology_from_layout({0, 0, 0, 1});
  EXPECT_EQ(uneven.ranks_per_node, 0);
  EXPECT_EQ(uneven.placement, Placement::kBlock);

  Topology single = topology_from_layout({2, 2, 2});
  EXPECT_EQ(single.nodes, 1);
  EXPECT_EQ(single.placement, Placement::kSingle);
  EXPECT_FALSE(single.spans_network());

  Topology u = uniform_topology(3, 4, Placement::kRoundRobin);
  EXPECT_EQ(u.size, 12);
  EXPECT_EQ(u.placement, Placement::kRoundRobin);
  EXPECT_EQ(u.network.kind, NetKind::kUnknown);
  EXPECT_EQ(u.network.source, "detected");
  EXPECT_TRUE(u.spans_network());
}

// ---------------------------------------------------------------------------
// Network file

TEST(NetworkFile, ClusterExample) {
  const std::string text =
      "# an 8-node cluster behind one switch\n"
      "network switch\n"
      "\n"
      "   # indented comment\n";
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_network_file(text, "c.net", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kSwitch);
  EXPECT_TRUE(d.dims.empty());
  EXPECT_TRUE(d.hosts.empty());
}

TEST(NetworkFile, TorusWithHosts) {
  const std::string text =
      "network torus 4x4   # 16 nodes\r\n"
      "host n00 0 0\r\n"
      "host n01 0 1\n"
      "host n13 13          # linear index: row 3, column 1\n"
      "rank 5 2 2\n"
      "nodes 16x2\n";
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_network_file(text, "t.net", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kTorus);
  EXPECT_EQ(d.dims, (std::vector<int>{4, 4}));
  EXPECT_EQ(d.hosts.at("n00"), (std::vector<int>{0, 0}));
  EXPECT_EQ(d.hosts.at("n01"), (std::vector<int>{0, 1}));
  EXPECT_EQ(d.hosts.at("n13"), (std::vector<int>{13}));
  EXPECT_EQ(d.ranks.at(5), (std::vector<int>{2, 2}));
  EXPECT_EQ(d.layout_nodes, 16);
  EXPECT_EQ(d.layout_ranks_per_node, 2);
}

TEST(NetworkFile, KindsAndDims) {
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_network_file("network ring 8\n", "f", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kRing);
  EXPECT_EQ(d.dims, std::vector<int>{8});
  ASSERT_TRUE(parse_network_file("network hypercube 16\nhost a 1 0 1 1\n", "f", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kHypercube);
  ASSERT_TRUE(parse_network_file("network mesh 2x3x4", "f", &d, &err)) << err;
  EXPECT_EQ(d.dims, (std::vector<int>{2, 3, 4}));
  ASSERT_TRUE(parse_network_file("network fat_tree\n", "f", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kFatTree);
  ASSERT_TRUE(parse_network_file("", "f", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kUnknown);
  // A dragonfly: groups x endpoints per group [x global links per pair];
  // host coordinates are (group, index).
  ASSERT_TRUE(parse_network_file("network dragonfly 4x16x2\nhost a 3 15\n", "f", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kDragonfly);
  EXPECT_EQ(d.dims, (std::vector<int>{4, 16, 2}));
  EXPECT_EQ(d.hosts["a"], (std::vector<int>{3, 15}));
  ASSERT_TRUE(parse_network_file("network dragonfly 2x8\n", "f", &d, &err)) << err;
  EXPECT_EQ(d.dims, (std::vector<int>{2, 8}));
}

TEST(NetworkFile, MalformedGivesPosition) {
  const BadInput cases[] = {
      {"# x\nnetwork tours 4x4\n", "bad.net:2:9: ", "expected a network kind (switch, ring"},
      {"network torus 4x0\n",
       "bad.net:1:17: ", "extent 0 is out of range; each extent must be 1.."},
      {"network torus 4xx4\n", "bad.net:1:17: ", "expected dimensions"},
      {"network\n", "bad.net:1:8: ", "expected a network kind"},
      {"network torus 4x4 extra\n", "bad.net:1:19: ", "expected end of line"},
      {"network switch 4\n", "bad.net:1:16: ", "takes no dimensions"},
      {"network hypercube 12\n", "bad.net:1:19: ", "power of two"},
      {"network ring 2x2\n", "bad.net:1:14: ", "one dimension"},
      {"network dragonfly\n", "bad.net:1:18: ", "GROUPSxENDPOINTS_PER_GROUP[xGLOBAL_LINKS]"},
      {"network dragonfly 4\n", "bad.net:1:19: ", "a dragonfly takes GROUPSx"},
      {"network dragonfly 2x2x2x2\n", "bad.net:1:19: ", "a dragonfly takes GROUPSx"},
      {"network dragonfly 2x4\nhost a 2 0\n", "bad.net:2:8: ", "coordinate 2 is outside 0..1"},
      {"host a 0 0\nnetwork torus 2x2\n", "bad.net:1:1: ", "after the network line"},
      {"network torus 4x4\nhost a 0 4\n", "bad.net:2:10: ", "coordinate 4 is outside 0..3"},
      {"network torus 4x4\nhost a 16\n", "bad.net:2:8: ", "outside 0..15"},
      {"network torus 4x4\nhost a 1 2 3\n", "bad.net:2:8: ", "expected 2 coordinates"},
      {"network torus 4x4\nhost a 1 x\n", "bad.net:2:10: ", "expected a coordinate"},
      {"network torus 4x4\nhost a 1 1\nhost a 2 2\n", "bad.net:3:6: ", "duplicate host 'a'"},
      {"network torus 4x4\nhost a\n", "bad.net:2:7: ", "expected coordinates"},
      {"network torus 4x4\nrank -1 0 0\n", "bad.net:2:6: ", "expected a rank"},
      {"network switch\nhost a 0\n", "bad.net:2:1: ", "need a network with coordinates"},
      {"network ring 4\nnetwork ring 4\n", "bad.net:2:1: ", "duplicate network line"},
      {"nodes 2\n", "bad.net:1:7: ", "NODESxRANKS_PER_NODE"},
      {"  netwrok ring\n",
       "bad.net:1:3: ", "expected 'network', 'nodes', 'host', 'rank' or 'bandwidth'"},
  };
  for (const BadInput& c : cases) {
    NetworkDesc d;
    std::string err;
    EXPECT_FALSE(parse_network_file(c.text, "bad.net", &d, &err)) << c.text;
    expect_error(c, err);
  }
}

// ---------------------------------------------------------------------------
// Forced topology

TEST(Forced, ValidStrings) {
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("ring", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kRing);
  EXPECT_TRUE(d.dims.empty());
  ASSERT_TRUE(parse_forced_topology("torus:4x4", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kTorus);
  EXPECT_EQ(d.dims, (std::vector<int>{4, 4}));
  ASSERT_TRUE(parse_forced_topology("hypercube", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kHypercube);
  ASSERT_TRUE(parse_forced_topology("switch", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kSwitch);
  ASSERT_TRUE(parse_forced_topology("nodes:2x4", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kUnknown);
  EXPECT_EQ(d.layout_nodes, 2);
  EXPECT_EQ(d.layout_ranks_per_node, 4);
  ASSERT_TRUE(parse_forced_topology(" nodes:4x2 , Torus:2x2 ", &d, &err)) << err;
  EXPECT_EQ(d.layout_nodes, 4);
  EXPECT_EQ(d.kind, NetKind::kTorus);
  EXPECT_EQ(d.dims, (std::vector<int>{2, 2}));
  ASSERT_TRUE(parse_forced_topology("dragonfly:4x64x4", &d, &err)) << err;
  EXPECT_EQ(d.kind, NetKind::kDragonfly);
  EXPECT_EQ(d.dims, (std::vector<int>{4, 64, 4}));
}

TEST(Forced, ErrorsNameValidValues) {
  const char* bad[] = {"tourus",     "",          "torus:4x",   "nodes:2",
                       "ring,torus", "ring:2x2",  "switch:4",   "nodes:2x2,nodes:2x2",
                       "ring,,",     "dragonfly", "dragonfly:8"};
  for (const char* b : bad) {
    NetworkDesc d;
    std::string err;
    EXPECT_FALSE(parse_forced_topology(b, &d, &err)) << b;
    EXPECT_NE(err.find("MPIR_CVAR_TOPOA2A_TOPOLOGY"), std::string::npos) << err;
    EXPECT_NE(
        err.find("valid items: switch, fat_tree[:KxU], ring[:N], mesh[:AxB...], torus[:AxB...], "
                 "hypercube[:N], dragonfly:GxH[xL], nodes:NxR"),
        std::string::npos)
        << err;
  }
  NetworkDesc d;
  std::string err;
  EXPECT_FALSE(parse_forced_topology("nodes:2x4,tourus", &d, &err));
  EXPECT_NE(err.find("column 11: unknown item 'tourus'"), std::string::npos) << err;
}

// ---------------------------------------------------------------------------
// Applying descriptions

TEST(Apply, ForcedLayout) {
  Topology t = uniform_topology(1, 8);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("nodes:2x4", &d, &err));
  configure_topology(&t, nullptr, "", &d);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.ranks_per_node, 4);
  EXPECT_EQ(t.placement, Placement::kBlock);
  EXPECT_EQ(t.layout_source, "forced");
  EXPECT_FALSE(t.network.rank_level);

  Topology bad = uniform_topology(1, 6);
  configure_topology(&bad, nullptr, "", &d);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_NE(bad.errors[0].find("describes 8 ranks but MPI_COMM_WORLD has 6"), std::string::npos);
  EXPECT_EQ(bad.nodes, 1);

  // A sub-communicator of world ranks {1, 6}: nodes by world rank.
  Topology sub = topology_from_layout({0, 0});
  sub.world_size = 8;
  sub.world_rank = {1, 6};
  configure_topology(&sub, nullptr, "", &d);
  EXPECT_TRUE(sub.errors.empty());
  EXPECT_EQ(sub.nodes, 2);
  EXPECT_EQ(sub.global_node_of_rank, (std::vector<int>{0, 1}));
}

TEST(Apply, ForcedNetworkOnOneNodeIsRankLevel) {
  Topology t = uniform_topology(1, 8);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("ring", &d, &err));
  configure_topology(&t, nullptr, "", &d);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.network.kind, NetKind::kRing);
  EXPECT_TRUE(t.network.rank_level);
  EXPECT_EQ(t.network.dims, std::vector<int>{8});
  EXPECT_EQ(t.network.source, "forced");
  EXPECT_TRUE(t.spans_network());

  Topology h = uniform_topology(1, 16);
  ASSERT_TRUE(parse_forced_topology("hypercube", &d, &err));
  configure_topology(&h, nullptr, "", &d);
  EXPECT_EQ(h.network.dims, std::vector<int>(4, 2));
  EXPECT_EQ(describe(h.network), "hypercube 16");

  Topology bad = uniform_topology(1, 12);
  configure_topology(&bad, nullptr, "", &d);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_NE(bad.errors[0].find("power-of-two"), std::string::npos);
  EXPECT_EQ(bad.network.kind, NetKind::kUnknown);

  // Forced layout and network together: the network joins the nodes.
  Topology both = uniform_topology(1, 8);
  ASSERT_TRUE(parse_forced_topology("nodes:4x2,ring", &d, &err));
  configure_topology(&both, nullptr, "", &d);
  EXPECT_EQ(both.nodes, 4);
  EXPECT_FALSE(both.network.rank_level);
  EXPECT_EQ(both.network.dims, std::vector<int>{4});
  EXPECT_EQ(both.network.endpoint_of_rank, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));

  // A dragonfly of ranks: 4 groups of 4, 2 global links per group pair;
  // the global link count is not an endpoint dimension.
  Topology df = uniform_topology(1, 16);
  ASSERT_TRUE(parse_forced_topology("dragonfly:4x4x2", &d, &err));
  configure_topology(&df, nullptr, "", &d);
  EXPECT_TRUE(df.errors.empty());
  EXPECT_TRUE(df.network.rank_level);
  EXPECT_FALSE(df.network.direct());
  EXPECT_EQ(df.network.dims, (std::vector<int>{4, 4}));
  EXPECT_EQ(df.network.global_links, 2);
  EXPECT_EQ(df.network.group_of(df.network.endpoint_of_rank[13]), 3);
  EXPECT_EQ(describe(df.network), "dragonfly 4x4 (2 global links per group pair)");
  Topology small = uniform_topology(16, 1);
  ASSERT_TRUE(parse_forced_topology("dragonfly:2x4", &d, &err));
  configure_topology(&small, nullptr, "", &d);
  ASSERT_EQ(small.errors.size(), 1u);
  EXPECT_NE(small.errors[0].find("8 endpoints, fewer than the 16 nodes"), std::string::npos)
      << small.errors[0];
}

TEST(Apply, FileHostsPlaceNodes) {
  Topology t = uniform_topology(4, 2);
  t.node_names = {"c", "a", "d", "b"};
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(
      parse_network_file("network torus 2x2\nhost a 0 0\nhost b 0 1\nhost c 1 0\n"
                         "host d 1 1\nhost unused 0 0\n",
                         "t.net", &d, &err))
      << err;
  configure_topology(&t, &d, "file:t.net", nullptr);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_TRUE(t.warnings.empty());
  EXPECT_EQ(t.network.source, "file:t.net");
  EXPECT_FALSE(t.network.rank_level);
  EXPECT_EQ(t.network.endpoint_of_rank, (std::vector<int>{2, 2, 0, 0, 3, 3, 1, 1}));

  // A node without a host line: placed by number, with a warning.
  Topology w = uniform_topology(2, 1);
  w.node_names = {"a", "zz"};
  configure_topology(&w, &d, "file:t.net", nullptr);
  EXPECT_TRUE(w.errors.empty());
  ASSERT_EQ(w.warnings.size(), 1u);
  EXPECT_NE(w.warnings[0].find("zz"), std::string::npos);

  // Too many nodes for the network.
  Topology big = uniform_topology(5, 1);
  configure_topology(&big, &d, "file:t.net", nullptr);
  ASSERT_EQ(big.errors.size(), 1u);
  EXPECT_NE(big.errors[0].find("4 endpoints, fewer than the 5 nodes"), std::string::npos);
  EXPECT_EQ(big.network.kind, NetKind::kUnknown);

  // The forced network wins over the file.
  Topology f = uniform_topology(4, 1);
  NetworkDesc forced;
  ASSERT_TRUE(parse_forced_topology("switch", &forced, &err));
  configure_topology(&f, &d, "file:t.net", &forced);
  EXPECT_EQ(f.network.kind, NetKind::kSwitch);
  EXPECT_EQ(f.network.source, "forced");
}

TEST(Apply, FileRankLinesMakeRankLevel) {
  Topology t = uniform_topology(1, 4);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_network_file("network ring 4\nrank 0 3\nrank 1 2\nrank 2 1\nrank 3 0\n", "r",
                                 &d, &err));
  configure_topology(&t, &d, "file:r", nullptr);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_TRUE(t.network.rank_level);
  EXPECT_EQ(t.network.endpoint_of_rank, (std::vector<int>{3, 2, 1, 0}));
}

TEST(Apply, CartNetwork) {
  Topology t = uniform_topology(16, 1);
  t.proc_topo = ProcTopo::kCart;
  t.cart_dims = {4, 4};
  t.cart_periods = {1, 1};
  configure_topology(&t, nullptr, "", nullptr);
  EXPECT_EQ(t.network.kind, NetKind::kTorus);
  EXPECT_EQ(t.network.source, "cart");
  EXPECT_EQ(describe(t.network), "torus 4x4");

  Topology one = uniform_topology(1, 16);  // one node: the cart is not the machine
  one.proc_topo = ProcTopo::kCart;
  one.cart_dims = {4, 4};
  one.cart_periods = {0, 0};
  configure_topology(&one, nullptr, "", nullptr);
  EXPECT_EQ(one.network.kind, NetKind::kUnknown);
}

// ---------------------------------------------------------------------------
// Cost parameters

TEST(Cost, ParseOverrides) {
  CostParams c;
  EXPECT_DOUBLE_EQ(c.ts_intra, 0.5e-6);
  EXPECT_DOUBLE_EQ(c.tw_intra, 0.1e-9);
  EXPECT_DOUBLE_EQ(c.ts_inter, 2e-6);
  EXPECT_DOUBLE_EQ(c.tw_inter, 0.1e-9);
  std::string err;
  ASSERT_TRUE(parse_cost_params("ts_inter=1.5us, tw_inter=0.08ns/B,ts_intra=3e-7", &c, &err))
      << err;
  EXPECT_DOUBLE_EQ(c.ts_inter, 1.5e-6);
  EXPECT_DOUBLE_EQ(c.tw_inter, 0.08e-9);
  EXPECT_DOUBLE_EQ(c.ts_intra, 3e-7);
  EXPECT_DOUBLE_EQ(c.tw_intra, 0.1e-9);
  EXPECT_DOUBLE_EQ(c.ts_hop, 0);
  ASSERT_TRUE(parse_cost_params("ts_hop=100ns", &c, &err)) << err;
  EXPECT_DOUBLE_EQ(c.ts_hop, 0.1e-6);
  EXPECT_DOUBLE_EQ(c.o, 0.25e-6);
  ASSERT_TRUE(parse_cost_params("o=0.5us", &c, &err)) << err;
  EXPECT_DOUBLE_EQ(c.o, 0.5e-6);
  EXPECT_DOUBLE_EQ(c.ts_hop, 0.1e-6);  // untouched
  EXPECT_EQ(to_string(CostParams{}),
            "ts_intra=0.5us,tw_intra=0.1ns,ts_inter=2us,tw_inter=0.1ns,ts_hop=0us,o=0.25us,"
            "g_nic=0us");

  for (const char* bad : {"", "ts=1", "ts_inter", "ts_inter=-1", "ts_inter=1xs", "ts_inter=abc"}) {
    CostParams keep;
    EXPECT_FALSE(parse_cost_params(bad, &keep, &err)) << bad;
    EXPECT_NE(err.find("MPIR_CVAR_TOPOA2A_COST"), std::string::npos);
    EXPECT_NE(err.find("ts_intra, tw_intra, ts_inter, tw_inter"), std::string::npos) << err;
    EXPECT_DOUBLE_EQ(keep.ts_inter, 2e-6);
  }
}

TEST(Cost, FromTopology) {
  Topology t = uniform_topology(1, 2);
  std::string err;
  EXPECT_DOUBLE_EQ(cost_params_for(t, &err).ts_inter, 2e-6);
  EXPECT_TRUE(err.empty());
  t.cost_text = "ts_inter=5us";
  EXPECT_DOUBLE_EQ(cost_params_for(t, &err).ts_inter, 5e-6);
  EXPECT_DOUBLE_EQ(cost_params_for(t, &err).tw_inter, 0.1e-9);
  t.cost_text = "ts_inter=5 parsecs";
  EXPECT_DOUBLE_EQ(cost_params_for(t, &err).ts_inter, 2e-6);
  EXPECT_NE(err.find("unknown unit"), std::string::npos) << err;
}

}  // namespace
}  // namespace topoa2a
