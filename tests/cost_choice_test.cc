// Unit tests of the cost model's choice (topology/cost_model.h): grids,
// restrictions, ties, in place, dragonfly bundles, hop latency, formatting
// (its messages and windows: cost_model_test.cc). Expected values come from the formulas in
// topology/README.md ("Cost model"), never from a run. No MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "coll/algorithms.h"
#include "tests/model_topologies.h"
#include "topology/cost_model.h"
#include "topology/model_pattern.h"
#include "topology/node_layout.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

TEST(Model, PowerOfTwoRestrictions) {
  const CostModel m12(uniform_topology(1, 12), CostParams{});
  EXPECT_FALSE(m12.estimate("hypercube", 64).applicable);
  EXPECT_FALSE(m12.estimate("onefactor_xor", 64).applicable);
  EXPECT_NE(m12.estimate("hypercube", 64).why_not.find("power-of-two"), std::string::npos);
  EXPECT_TRUE(m12.estimate("onefactor", 64).applicable);
  const CostModel m16(uniform_topology(1, 16), CostParams{});
  EXPECT_TRUE(m16.estimate("hypercube", 64).applicable);
  EXPECT_TRUE(m16.estimate("onefactor_xor", 64).applicable);
}

std::vector<Topology> sample_topologies() {
  std::vector<Topology> out;
  out.push_back(uniform_topology(1, 1));
  out.push_back(uniform_topology(1, 8));
  out.push_back(uniform_topology(1, 12));
  out.push_back(uniform_topology(3, 4));
  out.push_back(uniform_topology(4, 8));
  out.push_back(uniform_topology(3, 4, Placement::kRoundRobin));
  out.push_back(topology_from_layout({0, 0, 0, 1, 1, 2, 2, 2, 2}));
  for (const char* forced : {"ring", "torus:4x4", "hypercube", "mesh:2x8", "nodes:4x4,ring",
                             "nodes:8x2,torus:2x4", "fat_tree"}) {
    Topology t = uniform_topology(1, 16);
    NetworkDesc d;
    std::string err;
    EXPECT_TRUE(parse_forced_topology(forced, &d, &err)) << err;
    configure_topology(&t, nullptr, "", &d);
    EXPECT_TRUE(t.errors.empty()) << forced << ": " << t.errors[0];
    out.push_back(t);
  }
  return out;
}

// The choice at every size is the minimum of the model over the candidates.
TEST(Model, ChoiceIsTheArgmin) {
  const CostParams c;
  for (const Topology& t : sample_topologies()) {
    const CostModel model(t, c);
    const std::vector<DecisionRow> table = decision_table(t, c);
    ASSERT_EQ(table.size(), 25u);
    EXPECT_EQ(table.front().bytes, 1u);
    EXPECT_EQ(table.back().bytes, size_t{16} << 20);
    for (const DecisionRow& row : table) {
      const Choice& ch = row.choice;
      ASSERT_FALSE(ch.algorithm.empty()) << ch.reason;
      EXPECT_EQ(ch.considered.size(), default_candidates().size());
      for (const std::string& name : default_candidates()) {
        const Estimate e = model.estimate(name, row.bytes);
        if (!e.applicable) continue;
        EXPECT_LE(ch.predicted, e.predicted * (1 + 1e-12))
            << describe(t) << row.bytes << " B: " << ch.algorithm << " vs " << name;
      }
      const Estimate chosen = model.estimate(ch.algorithm, row.bytes);
      EXPECT_DOUBLE_EQ(ch.predicted, chosen.predicted);
      EXPECT_EQ(ch.params.grid.rows, chosen.params.grid.rows);
      EXPECT_EQ(ch.params.grid.cols, chosen.params.grid.cols);
      EXPECT_NE(ch.reason.find("min model time " + ch.algorithm), std::string::npos) << ch.reason;
      const Choice direct = choose_auto(t, row.bytes, c);
      EXPECT_EQ(direct.algorithm, ch.algorithm);
      EXPECT_DOUBLE_EQ(direct.predicted, ch.predicted);
    }
  }
}

TEST(Model, RingNetworkPrefersRingForLargeMessages) {
  Topology t = uniform_topology(1, 8);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("ring", &d, &err));
  configure_topology(&t, nullptr, "", &d);
  const CostModel model(t, CostParams{});
  for (size_t m : {size_t{64} << 10, size_t{1} << 20, size_t{16} << 20}) {
    // Round by round, the neighbour rounds of ring_bidir win: every link
    // carries one message per round.
    const Estimate bidir = model.estimate("ring_bidir", m, 0);
    for (const Algorithm& a : algorithms()) {
      const Estimate e = model.estimate(a.name, m, 0);
      // (torus on a ring is ring_bidir: one dimension, one lane)
      if (e.applicable && a.id != AlgorithmId::kRingBidir && a.id != AlgorithmId::kTorus) {
        EXPECT_LT(bidir.predicted, e.predicted) << a.name << " " << m;
      }
    }
    // All at once moves the same load over the ring's busiest link (10
    // blocks: shifts 1..4 the positive way, 1..3 the other, 8 ranks over 8
    // links) with one start-up: within a few percent, either may win.
    const Choice all = model.choose(m);
    EXPECT_LT(bidir.predicted, 1.1 * all.predicted) << all.reason;
  }
  // On one node (no network) the ring does not win large messages.
  const Choice flat = choose_auto(uniform_topology(1, 8), size_t{1} << 20, CostParams{});
  EXPECT_NE(flat.algorithm.rfind("ring", 0), 0u) << flat.reason;
  // Neighbour rounds are congestion-free on the ring; direct exchanges are not.
  EXPECT_DOUBLE_EQ(model.estimate("ring", 1 << 20).congestion, 1.0);
  EXPECT_GT(model.estimate("onefactor_xor", 1 << 20, 0).congestion, 1.5);
}

TEST(Model, UniformMultiNodeMeshHasRowsEqualNodes) {
  const Topology t = uniform_topology(3, 4);
  const CostModel model(t, CostParams{});
  const Estimate mesh = model.estimate("mesh", 256);
  EXPECT_EQ(mesh.params.grid.rows, 3);
  EXPECT_EQ(mesh.params.grid.cols, 4);
  EXPECT_EQ(mesh.params_note, "rows=nodes");
  // Row phase inside the nodes, column phase across them.
  EXPECT_NEAR(mesh.network_fraction, 2.0 / 5.0, 1e-12);
  // Among the store-and-forward candidates the mesh takes small blocks.
  const std::vector<std::string> forwarding = {"ring", "ring_bidir", "mesh", "brucks"};
  const Choice small = CostModel(t, CostParams{}, forwarding).choose(256);
  EXPECT_EQ(small.algorithm, "mesh") << small.reason;
  EXPECT_EQ(small.params.grid.rows, 3);
  EXPECT_EQ(small.params.grid.cols, 4);
  int meshes = 0;
  for (const DecisionRow& row : decision_table(t, CostParams{}, forwarding)) {
    if (row.choice.algorithm != "mesh") continue;
    ++meshes;
    EXPECT_EQ(row.choice.params.grid.rows, t.nodes);
    EXPECT_EQ(row.choice.params.grid.cols, t.ranks_per_node);
  }
  EXPECT_GT(meshes, 0);

  // Round-robin placement: the columns are the nodes.
  const CostModel rr(uniform_topology(3, 4, Placement::kRoundRobin), CostParams{});
  const Estimate rmesh = rr.estimate("mesh", 256);
  EXPECT_EQ(rmesh.params.grid.rows, 4);
  EXPECT_EQ(rmesh.params.grid.cols, 3);
  EXPECT_EQ(rmesh.params_note, "cols=nodes");
}

TEST(Model, SmallMessagesChooseLogRounds) {
  // Non-power-of-two p on one node: Bruck's ceil(log2 p) rounds, MPICH's
  // brucks or node_aware_log, which on one node is Bruck's exchange without
  // brucks' two local rotations (so it is priced below it).
  const Choice b = choose_auto(uniform_topology(1, 12), 1, CostParams{});
  EXPECT_EQ(b.algorithm, "node_aware_log") << b.reason;
  EXPECT_EQ(algorithm(AlgorithmId::kNodeAwareLog).rounds(12, b.params), 4);
  const CostModel one(uniform_topology(1, 12), CostParams{});
  EXPECT_LT(one.estimate("node_aware_log", 1).predicted, one.estimate("brucks", 1).predicted);
  EXPECT_LT(one.estimate("brucks", 1).predicted, one.estimate("node_aware", 1).predicted);
  // Power of two: hypercube has the same rounds and no local rotation.
  const Choice h = choose_auto(uniform_topology(1, 16), 1, CostParams{});
  EXPECT_EQ(h.algorithm, "hypercube") << h.reason;
  // Large messages: a direct algorithm.
  const Choice big = choose_auto(uniform_topology(1, 12), size_t{1} << 20, CostParams{});
  EXPECT_TRUE(big.algorithm == "onefactor" || big.algorithm == "pairwise") << big.reason;
}

TEST(Model, CostParamsMatter) {
  // A very slow network start-up favours fewer network start-ups: the mesh
  // pays 2 of its 5 rounds' (rows are the nodes), a direct exchange with
  // all 11 messages of a rank in flight pays one, plus o for each further
  // network message of the rank (8), while its node's NIC carries 4 x 8
  // blocks and the rank copies its 3 in-node blocks meanwhile.
  const Topology t = uniform_topology(3, 4);
  CostParams slow;
  slow.ts_inter = 1e-3;
  const CostModel model(t, slow);
  // Mesh 3x4, 1-byte blocks: the row rounds' largest messages are 9, 6, 3
  // blocks; in the column rounds each NIC carries 4 messages of 8, then 4.
  const Estimate mesh = model.estimate("mesh", 1);
  EXPECT_NEAR(mesh.predicted,
              3 * slow.ts_intra + 18 * slow.tw_intra + 2 * slow.ts_inter + 48 * slow.tw_inter,
              1e-15);
  const Choice c = model.choose(1);
  EXPECT_TRUE(c.algorithm == "onefactor") << c.reason;
  EXPECT_EQ(c.window, 11);
  EXPECT_NEAR(c.predicted, slow.ts_inter + 7 * slow.o + 32 * slow.tw_inter, 1e-12);
  EXPECT_LT(c.predicted, mesh.predicted);
}

TEST(Model, TieBreakIsCandidateOrder) {
  const Topology t = uniform_topology(1, 8);
  EXPECT_EQ(choose_auto(t, 4096, CostParams{}, {"onefactor", "onefactor_xor"}).algorithm,
            "onefactor");
  EXPECT_EQ(choose_auto(t, 4096, CostParams{}, {"onefactor_xor", "onefactor"}).algorithm,
            "onefactor_xor");
}

TEST(Model, SwitchLikeNetworkTiesGoToXorPairing) {
  const std::vector<std::string> both = {"onefactor", "onefactor_xor"};
  // Across a fat tree, a switch or an unknown network the XOR pairing wins
  // the tie (contention-free under a fat tree's static routing), whatever
  // the candidate order; the considered list keeps the candidate order.
  for (const char* net : {"fat_tree", "switch"}) {
    const Topology t = forced(net, 16);
    const Choice c = choose_auto(t, 1 << 20, CostParams{}, both);
    EXPECT_EQ(c.algorithm, "onefactor_xor") << net << ": " << c.reason;
    ASSERT_EQ(c.considered.size(), 2u);
    EXPECT_EQ(c.considered[0].algorithm, "onefactor");
    EXPECT_EQ(choose_auto(t, 1 << 20, CostParams{}, {"onefactor_xor", "onefactor"}).algorithm,
              "onefactor_xor");
  }
  EXPECT_EQ(choose_auto(uniform_topology(16, 1), 1 << 20, CostParams{}, both).algorithm,
            "onefactor_xor");
  // With the default round-by-round candidates, large blocks on a fat tree
  // of 64 nodes.
  std::vector<std::string> rounds = default_candidates();
  rounds.erase(std::find(rounds.begin(), rounds.end(), "scattered"));
  EXPECT_EQ(choose_auto(forced("fat_tree", 64), 1 << 16, CostParams{}, rounds).algorithm,
            "onefactor_xor");
  // Not a power of two: only the plain pairing applies.
  EXPECT_EQ(choose_auto(forced("fat_tree", 12), 1 << 20, CostParams{}, both).algorithm,
            "onefactor");
  // One node (no network) keeps the candidate order.
  EXPECT_EQ(choose_auto(uniform_topology(1, 16), 1 << 20, CostParams{}, both).algorithm,
            "onefactor");
}

// MPI_IN_PLACE: MPICH's brucks, pairwise and scattered are declared
// noinplace (coll_algorithms.txt); topo_auto must not pick them.
TEST(Model, InPlaceExcludesMpichNoinplaceAlgorithms) {
  const CostParams c;
  for (const Topology& t :
       {forced("switch", 16), forced("torus:4x4", 16), uniform_topology(1, 6)}) {
    const CostModel model(t, c);
    for (size_t m = 1; m <= (16u << 20); m *= 4) {
      const Choice out = model.choose(m), in = model.choose(m, true);
      ASSERT_FALSE(in.algorithm.empty()) << in.reason;
      EXPECT_NE(in.algorithm, "brucks") << m;
      EXPECT_NE(in.algorithm, "pairwise") << m;
      EXPECT_NE(in.algorithm, "scattered") << m;
      if (find_algorithm(out.algorithm)) {
        EXPECT_EQ(in.algorithm, out.algorithm) << m;
      }
    }
  }
  // Where scattered wins out of place, one of topoa2a's runs in place.
  const Choice in = CostModel(forced("switch", 16), c).choose(1 << 20, true);
  EXPECT_NE(find_algorithm(in.algorithm), nullptr) << in.algorithm;
  bool said = false;
  for (const Estimate& e : in.considered)
    if (e.algorithm == "scattered")
      said = !e.applicable && e.why_not.find("in place") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Model, DragonflyChargesGlobalBundles) {
  CostParams c;
  c.ts_inter = c.ts_intra = 1.1e-6;
  c.tw_inter = c.tw_intra = 0.1e-9;
  const size_t m = 2048;
  const Topology df = forced("dragonfly:4x64x4", 256);
  const CostModel model(df, c);
  // The hypercube's two cross-group rounds send a whole group to one other
  // group: 64 messages of 128 blocks on 4 links, C = 16. A 1-factor round
  // sends 64 messages of one block, mostly to one or two other groups.
  const Estimate hc = model.estimate("hypercube", m);
  const Estimate of = model.estimate("onefactor", m, 0);  // round by round
  EXPECT_NEAR(hc.congestion, (6 * 1 + 2 * 16) / 8.0, 1e-9);
  EXPECT_GT(of.congestion, 2);
  EXPECT_LT(of.predicted, hc.predicted);
  // Priced as a switch, the hypercube would win: no bundle to congest.
  const CostModel sw(forced("switch", 256), c);
  EXPECT_LT(sw.estimate("hypercube", m).predicted, sw.estimate("onefactor", m, 0).predicted);
  // MPICH's scattered sends in 8 batches of 32 peers (offsets 1..31,
  // 32..63, ...): a batch's partners of one group fall in one or two groups,
  // so its bundles carry more than the all-pairs share (64 x 64 / 4 / 255);
  // in flight, it beats every round-by-round exchange here; all 255
  // messages at once (onefactor's largest window) spread the bundles' load
  // over all pairs and pay one start-up.
  const Estimate sc = model.estimate("scattered", m);
  EXPECT_EQ(sc.rounds, 8);
  EXPECT_GT(sc.congestion, 64.0 * 64 / 4 / 256);
  EXPECT_LT(sc.predicted, of.predicted);
  EXPECT_LE(model.estimate("onefactor", m, 255).predicted, sc.predicted);
  // Enough global links make the dragonfly a switch again.
  const CostModel wide(forced("dragonfly:4x64x64", 256), c);
  EXPECT_DOUBLE_EQ(wide.estimate("hypercube", m).predicted,
                   CostModel(forced("switch", 256), c).estimate("hypercube", m).predicted);
  // Small blocks still take the fewest rounds.
  EXPECT_EQ(model.choose(8).algorithm, "hypercube");
}

TEST(Model, HopLatencyChargesLinksBeyondTheFirst) {
  CostParams c;
  const Topology ring = forced("ring:8", 8);
  const Estimate base = CostModel(ring, c).estimate("hypercube", 64);
  c.ts_hop = 1e-6;
  // The hypercube's rounds on a ring of 8 go 1, 2 and 4 links: 0 + 1 + 3
  // links beyond the first.
  const Estimate hop = CostModel(ring, c).estimate("hypercube", 64);
  EXPECT_DOUBLE_EQ(hop.extra_hops, 4);
  EXPECT_NEAR(hop.predicted - base.predicted, 4e-6, 1e-15);
  // Neighbour algorithms cross one link per message.
  EXPECT_DOUBLE_EQ(CostModel(ring, c).estimate("ring", 64).extra_hops, 0);
  // Through a switch a message crosses two links, a two-level fat tree four,
  // a dragonfly three inside a group and five between groups
  // (onefactor_xor on 4 groups of 4: rounds 1..3 stay inside a group,
  // rounds 4..15 leave it).
  EXPECT_DOUBLE_EQ(CostModel(forced("switch", 16), c).estimate("onefactor", 64, 0).extra_hops, 15);
  EXPECT_DOUBLE_EQ(CostModel(forced("fat_tree", 16), c).estimate("onefactor", 64, 0).extra_hops,
                   45);
  EXPECT_DOUBLE_EQ(
      CostModel(forced("dragonfly:4x4", 16), c).estimate("onefactor_xor", 64, 0).extra_hops,
      3 * 2 + 12 * 4);
  // With all messages in flight, once: the mean over all of them (12 of
  // the 15 partners in another group: (3 x 2 + 12 x 4) / 15).
  EXPECT_NEAR(
      CostModel(forced("dragonfly:4x4", 16), c).estimate("onefactor_xor", 64, 15).extra_hops,
      (3 * 2 + 12 * 4) / 15.0, 1e-12);
  // scattered's one round pays its routes once.
  EXPECT_DOUBLE_EQ(CostModel(forced("switch", 16), c).estimate("scattered", 64).extra_hops, 1);
  // On the simulated 8x8x4 torus, 2 KiB blocks (sim/README.md), the hop
  // latency tips the choice from onefactor_xor to the hypercube, whose
  // 8 rounds pay their routes once each instead of 255 times.
  CostParams sim;
  sim.ts_inter = sim.ts_intra = 1.1e-6;
  sim.tw_inter = sim.tw_intra = 0.1e-9;
  const Topology torus = forced("torus:4x8x8", 256);
  const CostModel flat(torus, sim);
  EXPECT_LT(flat.estimate("onefactor_xor", 2048, 0).predicted,
            flat.estimate("hypercube", 2048).predicted);
  sim.ts_hop = 0.1e-6;
  const CostModel hops(torus, sim);
  EXPECT_GT(hops.estimate("onefactor_xor", 2048, 0).predicted,
            hops.estimate("hypercube", 2048).predicted);
}

TEST(Model, UnknownAndInapplicableCandidates) {
  const Topology t = uniform_topology(1, 6);
  const Choice ch = choose_auto(t, 64, CostParams{}, {"bogus", "hypercube"});
  EXPECT_TRUE(ch.algorithm.empty());
  EXPECT_NE(ch.reason.find("no candidate applies"), std::string::npos);
  ASSERT_EQ(ch.considered.size(), 2u);
  EXPECT_NE(ch.considered[0].why_not.find("unknown algorithm 'bogus'"), std::string::npos);
  EXPECT_NE(ch.considered[1].why_not.find("power-of-two"), std::string::npos);
}

TEST(Model, LargeCommunicatorsStayCheap) {
  Topology t = uniform_topology(1, 4096);
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("torus:64x64", &d, &err));
  configure_topology(&t, nullptr, "", &d);
  const std::vector<DecisionRow> table = decision_table(t, CostParams{});
  EXPECT_EQ(table.size(), 25u);
  const Topology nodes = uniform_topology(64, 64);
  EXPECT_FALSE(choose_auto(nodes, 1 << 20, CostParams{}).algorithm.empty());
}

// multileader's leaders per node are the model's choice: it prices k = 1,
// 2, 4, ... below q and k = q (every rank leads, Params::leaders 0), and
// topo_auto runs the cheapest.
TEST(Model, MultileaderPricesSeveralLeaderCounts) {
  const Topology t = uniform_topology(4, 8);
  const CostModel model(t, CostParams{}, {"multileader"});
  std::vector<std::string> notes;
  std::vector<int> ks;
  for (const CostModel::Option& o : model.options("multileader")) {
    notes.push_back(o.note);
    ks.push_back(o.params.leaders);
    EXPECT_TRUE(o.why_not.empty()) << o.why_not;
  }
  EXPECT_EQ(ks, (std::vector<int>{1, 2, 4, 0}));
  EXPECT_EQ(notes, (std::vector<std::string>{"k=1", "k=2", "k=4", "k=q"}));
}

// Without a per-message cost at the NIC, every rank leading is cheapest:
// the network steps carry the same q^2 blocks per node pair whatever k,
// and fewer leaders add gather volume and scatter rounds.
TEST(Model, MultileaderEveryRankLeadsByDefault) {
  const Topology t = uniform_topology(4, 8);
  for (size_t m : {size_t{8}, size_t{4096}}) {
    const Choice c = choose_auto(t, m, CostParams{}, {"multileader"});
    ASSERT_EQ(c.algorithm, "multileader") << c.reason;
    EXPECT_EQ(c.params.leaders, 0) << c.reason;
    EXPECT_NE(c.reason.find("multileader k=q"), std::string::npos) << c.reason;
  }
}

// A NIC that serialises its messages (g_nic, LogGP's gap) makes one leader
// per node cheapest at small blocks: one network message per node and step
// instead of q.
TEST(Model, MultileaderOneLeaderWhenTheNicSerialises) {
  const Topology t = uniform_topology(4, 8);
  CostParams slow_nic;
  slow_nic.g_nic = 20e-6;
  const Choice c = choose_auto(t, 8, slow_nic, {"multileader"});
  ASSERT_EQ(c.algorithm, "multileader") << c.reason;
  EXPECT_EQ(c.params.leaders, 1) << c.reason;
  // Each of the 3 network steps: 7 further messages through every NIC at
  // 20 us with every rank leading, none with one leader (which adds 7
  // scatter rounds inside the node instead).
  auto forced = [&](int k) {
    Topology f = t;
    f.leaders = k;
    return CostModel(f, slow_nic, {"multileader"}).estimate("multileader", 8).predicted;
  };
  EXPECT_GT(forced(8), 5 * forced(1));
  EXPECT_NEAR(c.predicted, forced(1), 1e-12);
  // g_nic is 0 unless given, and parsed like the other keys.
  CostParams parsed;
  std::string err;
  ASSERT_TRUE(parse_cost_params("g_nic=20us", &parsed, &err)) << err;
  EXPECT_DOUBLE_EQ(parsed.g_nic, 20e-6);
  EXPECT_EQ(CostParams{}.g_nic, 0);
}

// MPIR_CVAR_TOPOA2A_LEADERS (Topology::leaders) forces k: the model prices
// that one only, so what it picks is what runs.
TEST(Model, MultileaderForcedLeadersArePricedAlone) {
  Topology t = uniform_topology(4, 8);
  t.leaders = 2;
  const CostModel model(t, CostParams{}, {"multileader"});
  ASSERT_EQ(model.options("multileader").size(), 1u);
  EXPECT_EQ(model.options("multileader")[0].params.leaders, 2);
  EXPECT_EQ(model.choose(8).params.leaders, 2);
}

// MPIR_CVAR_TOPOA2A_TORUS_DIMS and MPIR_CVAR_TOPOA2A_MESH_GRID (Topology::
// torus_dims, mesh_grid): the model prices torus and mesh on the user's
// grids, the ones the run takes (topology_params), not on its own.
TEST(Model, UserGridsArePricedAsRun) {
  Topology t = forced("torus:4x4", 16);
  const CostModel by_network(t, CostParams{}, {"torus", "mesh"});
  EXPECT_EQ(by_network.options("torus")[0].params.dims, (std::vector<int>{4, 4}));
  EXPECT_GT(by_network.options("mesh").size(), 1u);  // its own grid choices
  t.torus_dims = {2, 8};
  t.mesh_grid = {8, 2};
  const CostModel model(t, CostParams{}, {"torus", "mesh"});
  ASSERT_EQ(model.options("torus").size(), 1u);
  EXPECT_EQ(model.options("torus")[0].params.dims, (std::vector<int>{2, 8}));
  Params run;
  topology_params(*find_algorithm("torus"), t, nullptr, &run);
  EXPECT_EQ(run.dims, (std::vector<int>{2, 8}));
  // 2x8: 8 rounds of a ring of 8 along the long dimension (2 lanes x 4).
  EXPECT_EQ(model.estimate("torus", 8).rounds, 8);
  EXPECT_EQ(by_network.estimate("torus", 8).rounds, 4);
  ASSERT_EQ(model.options("mesh").size(), 1u);
  EXPECT_EQ(model.options("mesh")[0].params.grid.rows, 8);
  EXPECT_EQ(model.options("mesh")[0].params.grid.cols, 2);
  // A grid that does not fit p: not applicable, and the model says why.
  t.torus_dims = {3, 5};
  const Estimate e = CostModel(t, CostParams{}, {"torus"}).estimate("torus", 8);
  EXPECT_FALSE(e.applicable);
  EXPECT_FALSE(e.why_not.empty());
}

TEST(Model, Formatting) {
  EXPECT_EQ(format_bytes(1), "1 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(size_t{16} << 20), "16 MiB");
  EXPECT_EQ(format_seconds(1.5e-6), "1.5 us");
  EXPECT_EQ(format_seconds(2.5e-3), "2.5 ms");
}

}  // namespace
}  // namespace topoa2a
