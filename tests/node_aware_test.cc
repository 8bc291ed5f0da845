// Schedule tests of the node-aware algorithms (node_aware, multileader):
// no MPI. Every rank count up to 64 with every node count and ranks per
// node, uneven nodes, round-robin and shuffled numbering, the networks of
// the inter-node phase, and a few power-of-two layouts up to 1024 ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

#include "coll/algorithms.h"
#include "coll/nodes.h"
#include "coll/plan.h"
#include "tests/sim.h"
#include "topology/node_layout.h"

namespace topoa2a::test {
namespace {

std::vector<int> block_layout(int nodes, int q) {
  std::vector<int> v;
  for (int r = 0; r < nodes * q; ++r) v.push_back(r / q);
  return v;
}
std::vector<int> round_robin_layout(int nodes, int q) {
  std::vector<int> v;
  for (int r = 0; r < nodes * q; ++r) v.push_back(r % nodes);
  return v;
}
// p ranks on `nodes` nodes whose sizes differ by at most one, node by node.
std::vector<int> uneven_layout(int p, int nodes) {
  std::vector<int> v;
  for (int r = 0; r < p; ++r) v.push_back(static_cast<int>(1LL * r * nodes / p));
  return v;
}
std::vector<int> shuffled(std::vector<int> v, unsigned seed) {
  std::mt19937 g(seed);
  std::shuffle(v.begin(), v.end(), g);
  return v;
}

Params with_layout(const std::vector<int>& nodes, int leaders = 0, NodeNet net = NodeNet::kSwitch,
                   std::vector<int> dims = {}, const std::vector<int>& endpoint = {}) {
  Params prm;
  prm.layout = make_node_layout(nodes, net, std::move(dims), endpoint);
  prm.leaders = leaders;
  return prm;
}

std::string describe(const Params& prm) {
  std::string s = "layout";
  for (int x : prm.layout->node_of_rank) s += " " + std::to_string(x);
  return s + " leaders " + std::to_string(prm.leaders);
}

// The schedule is correct (every block reaches its destination once,
// nothing sent that is not held), takes the table's rounds and volume,
// and its plan runs on buffers.
void expect_node_correct(const Algorithm& a, int p, const Params& prm, bool plans = false) {
  // A multileader leader holds its group's blocks from every other node
  // until it scatters them: G (p - q) blocks, G its group's size.
  // node_aware: a lane holds what it gathered and what it received, about
  // 2(p-q) blocks, which the plan's packing spreads over up to 5p slots.
  const Nodes nd = nodes_of(p, prm);
  const int k = prm.leaders > 0 ? std::min(prm.leaders, nd.qmax) : nd.qmax;
  CorrectOptions o;
  o.plans = plans;
  o.scratch_per_p = (a.id == AlgorithmId::kMultiLeader ? (nd.qmax + k - 1) / k : 1) + 4;
  o.what = describe(prm);
  test::expect_correct(a, p, prm, o);
}

const Algorithm& node_aware() { return algorithm(AlgorithmId::kNodeAware); }
const Algorithm& multileader() { return algorithm(AlgorithmId::kMultiLeader); }
const Algorithm& node_aware_log() { return algorithm(AlgorithmId::kNodeAwareLog); }

TEST(NodeSteps, EveryOrderedPairMeetsOnceOnEveryNetwork) {
  auto check = [](const Params& prm, int n, NodeSteps::Kind want) {
    const Nodes nd = nodes_of(n, prm);
    const NodeSteps st(nd, prm);
    EXPECT_EQ(st.kind(), want) << n;
    std::set<std::pair<int, int>> seen;
    for (int j = 0; j < st.count(); ++j) {
      std::set<int> targets;
      for (int a = 0; a < n; ++a) {
        const int b = st.to(j, a);
        EXPECT_TRUE(targets.insert(b).second) << "step " << j << " is not a permutation";
        EXPECT_EQ(st.from(j, b), a);
        if (b == a) continue;
        EXPECT_TRUE(seen.insert({a, b}).second) << a << "->" << b << " twice";
        EXPECT_EQ(st.step_of(a, b), j) << a << "->" << b;
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1)) << n;
  };
  for (int n = 2; n <= 64; ++n) {
    std::vector<int> one_each(n);
    for (int a = 0; a < n; ++a) one_each[a] = a;
    check(with_layout(one_each), n,
          is_pow2(n) ? NodeSteps::Kind::kXor : NodeSteps::Kind::kOneFactor);
    // A ring whose endpoints are the nodes, in a shuffled order.
    check(with_layout(one_each, 0, NodeNet::kRing, {n}, shuffled(one_each, n)), n,
          NodeSteps::Kind::kShift);
  }
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{4, 4}, {2, 3}, {3, 5}, {2, 2, 4}, {4, 2, 3}}) {
    int n = 1;
    for (int d : dims) n *= d;
    std::vector<int> one_each(n);
    for (int a = 0; a < n; ++a) one_each[a] = a;
    check(with_layout(one_each, 0, NodeNet::kTorus, dims, shuffled(one_each, 7)), n,
          NodeSteps::Kind::kShift);
    check(with_layout(one_each, 0, NodeNet::kMesh, dims, one_each), n, NodeSteps::Kind::kShift);
  }
  // A hypercube pairs endpoints by XOR; a torus the nodes do not fill falls
  // back to the 1-factor pairing.
  std::vector<int> eight = {0, 1, 2, 3, 4, 5, 6, 7};
  check(with_layout(eight, 0, NodeNet::kHypercube, {2, 2, 2}, shuffled(eight, 3)), 8,
        NodeSteps::Kind::kXor);
  check(with_layout({0, 1, 2, 3, 4, 5}, 0, NodeNet::kTorus, {3, 3}, {0, 1, 2, 3, 4, 5}), 6,
        NodeSteps::Kind::kOneFactor);
  // A dragonfly's XOR steps come in bit-reversed order (any placement).
  for (int n : {8, 32, 64}) {
    std::vector<int> one_each(n);
    for (int a = 0; a < n; ++a) one_each[a] = a;
    check(with_layout(one_each, 0, NodeNet::kDragonfly, {4, n / 4}, shuffled(one_each, 5)), n,
          NodeSteps::Kind::kXor);
  }
}

// On a dragonfly of 64 nodes in 4 groups, every run of 16 steps (one
// inter-node round of 16 lanes) takes each pair of groups alike: the steps
// that leave the group split evenly over the three group distances. In
// distance order the first run stayed inside the groups (15 of 16 steps)
// and each later run used the global links of one group pair only.
TEST(NodeSteps, DragonflyRoundsSpreadOverAllGroupPairs) {
  const int n = 64, per_group = 16, lanes = 16;
  std::vector<int> one_each(n);
  for (int a = 0; a < n; ++a) one_each[a] = a;
  const Params prm = with_layout(one_each, 0, NodeNet::kDragonfly, {4, per_group}, one_each);
  const NodeSteps st(nodes_of(n, prm), prm);
  ASSERT_EQ(st.count(), n - 1);
  for (int first = 0; first < st.count(); first += lanes) {
    std::vector<int> per_distance(4, 0);  // steps by group distance (XOR of the groups)
    for (int j = first; j < std::min(first + lanes, st.count()); ++j)
      ++per_distance[(0 ^ st.to(j, 0)) / per_group];
    for (int g = 1; g < 4; ++g)
      EXPECT_EQ(per_distance[g], lanes / 4)
          << "steps " << first << ".." << first + lanes - 1 << ", group distance " << g;
  }
}

// On a 4x4 torus the first round of 4 lanes takes the four one-hop shifts:
// both directions of both dimensions.
TEST(NodeSteps, TorusShiftsSpreadOverDimensionsAndDirections) {
  std::vector<int> one_each(16);
  for (int a = 0; a < 16; ++a) one_each[a] = a;
  const Params prm = with_layout(one_each, 0, NodeNet::kTorus, {4, 4}, one_each);
  const NodeSteps st(nodes_of(16, prm), prm);
  std::set<int> first4;
  for (int j = 0; j < 4; ++j) first4.insert(st.to(j, 5));  // node (1,1)
  EXPECT_EQ(first4, (std::set<int>{1, 4, 6, 9}));
}

TEST(NodeAware, EveryLayoutUpTo64Ranks) {
  for (int p = 1; p <= 64; ++p) {
    for (int q = 1; q <= p; ++q) {
      if (p % q != 0) continue;
      expect_node_correct(node_aware(), p, with_layout(block_layout(p / q, q)), p <= 16);
      expect_node_correct(node_aware(), p, with_layout(round_robin_layout(p / q, q)));
    }
    for (int n = 2; n < p; ++n) {
      if (p % n == 0) continue;
      expect_node_correct(node_aware(), p, with_layout(uneven_layout(p, n)));
    }
  }
}

TEST(NodeAwareLog, EveryLayoutUpTo64Ranks) {
  for (int p = 1; p <= 64; ++p) {
    for (int q = 1; q <= p; ++q) {
      if (p % q != 0) continue;
      expect_node_correct(node_aware_log(), p, with_layout(block_layout(p / q, q)), p <= 16);
      expect_node_correct(node_aware_log(), p, with_layout(round_robin_layout(p / q, q)));
    }
    for (int n = 2; n < p; ++n) {
      if (p % n == 0) continue;
      expect_node_correct(node_aware_log(), p, with_layout(uneven_layout(p, n)));
    }
  }
}

TEST(NodeAwareLog, ShuffledAndLopsidedLayouts) {
  for (int p : {5, 12, 17, 30, 48, 64}) {
    for (int n : {2, 3, 4, 7}) {
      if (n > p) continue;
      expect_node_correct(node_aware_log(), p, with_layout(shuffled(uneven_layout(p, n), p * n)),
                          true);
    }
    std::vector<int> lop(p, 0);
    for (int r = 1; r < p; ++r) lop[r] = 1 + (r - 1) / 4;
    expect_node_correct(node_aware_log(), p, with_layout(shuffled(lop, p)), true);
  }
}

// The point of the variant: each intra-node phase takes ceil(log2 q)
// rounds with at most one message per rank each way (q-1 or q for
// node_aware), the inter-node rounds are node_aware's, ranks numbered
// round-robin; q need not be a power of two.
TEST(NodeAwareLog, LogRoundsInsideTheNode) {
  for (int n = 1; n <= 9; ++n) {
    for (int q = 1; q <= 12; ++q) {
      const int p = n * q;
      if (p > 72) continue;
      SCOPED_TRACE("N=" + std::to_string(n) + " q=" + std::to_string(q));
      const Params prm = with_layout(round_robin_layout(n, q));
      const int lg = bruck_rounds(q);
      const int direct = rounds_1f(q);
      const int inter = node_aware().rounds(p, prm) - direct - ((q == 1 || n <= 2) ? 0 : direct);
      const int r3 = (q == 1 || n <= 2) ? 0 : lg;
      if (p <= 1) continue;
      ASSERT_EQ(node_aware_log().rounds(p, prm), lg + inter + r3);
      for (int r = 0; r < p; ++r) {
        const Schedule s = node_aware_log_build(p, r, prm);
        for (int k = 0; k < static_cast<int>(s.rounds.size()); ++k) {
          const Round& round = s.rounds[k];
          const bool intra = k < lg || k >= lg + inter;
          if (!intra) {
            EXPECT_EQ(round.sends.size(),
                      node_aware_round(p, r, prm, k - lg + direct).sends.size());
            continue;
          }
          EXPECT_LE(round.sends.size(), 1u) << "rank " << r << " round " << k;
          EXPECT_LE(round.recvs.size(), 1u) << "rank " << r << " round " << k;
          for (const Transfer& t : round.sends) EXPECT_EQ(t.peer % n, r % n) << "leaves the node";
        }
      }
    }
  }
}

// The header's formulas for equal nodes with q dividing N-1 (and N = 2).
TEST(NodeAwareLog, HeaderFormulas) {
  const double ts = 2.0, tw = 0.25, m = 8;
  auto pop = [](int q) {
    int s = 0;
    for (int j = 0; j < q; ++j) s += __builtin_popcount(j);
    return s;
  };
  for (auto [n, q] : std::vector<std::pair<int, int>>{
           {4, 3}, {10, 3}, {16, 5}, {16, 3}, {6, 5}, {8, 7}, {16, 15}, {4, 1}, {8, 1}}) {
    const int p = n * q, lg = bruck_rounds(q);
    const Params prm = with_layout(block_layout(n, q));
    const long long want = 1LL * n * pop(q) + 1LL * q * (n - 1) + 1LL * (n - 1) * pop(q);
    for (int r = 0; r < p; ++r)
      EXPECT_EQ(node_aware_log().blocks_sent(p, r, prm), want) << n << "x" << q;
    EXPECT_EQ(node_aware_log().rounds(p, prm), 2 * lg + (n - 1) / q);
    double want_t = (n - 1) / q * (ts + tw * m * q * q);
    for (int k = 0; k < lg; ++k) {
      int c = 0;
      for (int j = 0; j < q; ++j) c += (j >> k) & 1;
      want_t += (ts + tw * m * c * n) + (ts + tw * m * c * (n - 1));
    }
    EXPECT_DOUBLE_EQ(node_aware_log().time(p, prm, ts, tw, m), want_t) << n << "x" << q;
  }
  EXPECT_EQ(pop(16), 32);
  for (int q = 1; q <= 9; ++q) {  // two nodes: no delivery phase
    const Params prm = with_layout(block_layout(2, q));
    EXPECT_EQ(node_aware_log().rounds(2 * q, prm), bruck_rounds(q) + 1);
    for (int r = 0; r < 2 * q; ++r)
      EXPECT_EQ(node_aware_log().blocks_sent(2 * q, r, prm), 2LL * pop(q) + q);
  }
}

TEST(NodeAware, ShuffledAndLopsidedLayouts) {
  for (int p : {5, 12, 17, 30, 48, 64}) {
    for (int n : {2, 3, 4, 7}) {
      if (n > p) continue;
      expect_node_correct(node_aware(), p, with_layout(shuffled(uneven_layout(p, n), p * n)), true);
    }
    // One node with a single rank, the others full.
    std::vector<int> lop(p, 0);
    for (int r = 1; r < p; ++r) lop[r] = 1 + (r - 1) / 4;
    expect_node_correct(node_aware(), p, with_layout(shuffled(lop, p)), true);
  }
}

TEST(NodeAware, NetworkOrders) {
  // 4x4 torus of nodes of 4 ranks, a ring of 6 nodes of 3, a hypercube of
  // 8 nodes of 2, a 2x3 mesh of 5-rank nodes, a dragonfly.
  struct Case {
    int nodes, q;
    NodeNet net;
    std::vector<int> dims;
  };
  for (const Case& c : std::vector<Case>{{16, 4, NodeNet::kTorus, {4, 4}},
                                         {6, 3, NodeNet::kRing, {6}},
                                         {8, 2, NodeNet::kHypercube, {2, 2, 2}},
                                         {6, 5, NodeNet::kMesh, {2, 3}},
                                         {8, 4, NodeNet::kDragonfly, {2, 4}}}) {
    std::vector<int> ep;
    const std::vector<int> layout = round_robin_layout(c.nodes, c.q);
    for (int x : layout) ep.push_back((x * 5) % c.nodes);  // any placement
    if (c.nodes % 5 == 0) ep.assign(layout.begin(), layout.end());
    expect_node_correct(node_aware(), c.nodes * c.q, with_layout(layout, 0, c.net, c.dims, ep),
                        true);
    expect_node_correct(multileader(), c.nodes * c.q, with_layout(layout, 2, c.net, c.dims, ep),
                        true);
    expect_node_correct(node_aware_log(), c.nodes * c.q, with_layout(layout, 0, c.net, c.dims, ep),
                        true);
  }
}

TEST(NodeAware, PowerOfTwoLayoutsUpTo1024) {
  for (auto [n, q] :
       std::vector<std::pair<int, int>>{{32, 32}, {64, 16}, {16, 64}, {256, 4}, {2, 512}})
    expect_node_correct(node_aware(), n * q, with_layout(block_layout(n, q)));
  for (auto [n, q] : std::vector<std::pair<int, int>>{{32, 32}, {64, 16}, {4, 256}})
    expect_node_correct(node_aware_log(), n * q, with_layout(block_layout(n, q)));
  expect_node_correct(multileader(), 1024, with_layout(block_layout(32, 32)));
  expect_node_correct(multileader(), 512, with_layout(block_layout(32, 16), 4));
}

// One aggregated message per node pair and lane: in the inter-node rounds
// every rank sends at most one message to each other node, and exactly
// ceil(S/q) of them (S = N-1 steps, no idle node); a node pair exchanges
// over one lane, or over floor or ceil(q / R) lanes when its round has R < q
// steps.
TEST(NodeAware, OneMessagePerNodePairAndLane) {
  for (int n = 2; n <= 16; ++n) {
    for (int q = 1; q <= 8; ++q) {
      if (n * q > 64) continue;
      const int p = n * q;
      const Params prm = with_layout(round_robin_layout(n, q));
      SCOPED_TRACE("N=" + std::to_string(n) + " q=" + std::to_string(q));
      const int s = (n % 2 == 1 && !is_pow2(n)) ? n : n - 1;
      const int r1 = rounds_1f(q), t = (s + q - 1) / q;
      const int r3 = (q == 1 || n == 2) ? 0 : r1;
      ASSERT_EQ(node_aware().rounds(p, prm), r1 + t + r3);
      const int full = s / q, rest = s % q;
      std::map<std::pair<int, int>, int> per_pair;  // (node, node) -> messages
      for (int r = 0; r < p; ++r) {
        std::set<int> to_nodes;
        int sent = 0;
        for (int k = r1; k < r1 + t; ++k) {
          for (const Transfer& tr : node_aware_round(p, r, prm, k).sends) {
            EXPECT_NE(tr.peer % n, r % n) << "inter-node round talks inside the node";
            EXPECT_EQ(tr.peer / n, r / n) << "not the counterpart lane";
            EXPECT_TRUE(to_nodes.insert(tr.peer % n).second) << "second message to a node";
            ++per_pair[{r % n, tr.peer % n}];
            ++sent;
          }
        }
        if (n % 2 == 0 || is_pow2(n)) {
          EXPECT_EQ(sent, t) << "rank " << r;
        }
      }
      EXPECT_EQ(static_cast<int>(per_pair.size()), n * (n - 1));
      for (const auto& [pair, count] : per_pair) {
        if (rest == 0 || count == 1) continue;  // full rounds: one lane per pair
        EXPECT_TRUE(count == q / rest || count == (q + rest - 1) / rest)
            << pair.first << "->" << pair.second << ": " << count << " lanes";
        (void)full;
      }
    }
  }
}

// Unequal nodes: lanes that share a rank merge, so two ranks exchange at
// most one message each way per round.
TEST(NodeAware, AtMostOneMessagePerRankPairAndRound) {
  for (int p : {7, 10, 13, 22, 31, 40}) {
    for (int n : {2, 3, 4, 6}) {
      const Params prm = with_layout(shuffled(uneven_layout(p, n), p + n));
      for (int r = 0; r < p; ++r) {
        const Schedule s = node_aware_build(p, r, prm);
        for (const Round& round : s.rounds) {
          std::set<int> to, from;
          for (const Transfer& t : round.sends)
            EXPECT_TRUE(to.insert(t.peer).second) << p << " " << n;
          for (const Transfer& t : round.recvs)
            EXPECT_TRUE(from.insert(t.peer).second) << p << " " << n;
        }
      }
    }
  }
}

// The header's formulas for equal nodes with q dividing N-1 (and N = 2).
TEST(NodeAware, HeaderFormulas) {
  const double ts = 2.0, tw = 0.25, m = 8;
  for (auto [n, q] : std::vector<std::pair<int, int>>{
           {4, 3}, {10, 3}, {16, 5}, {16, 3}, {6, 5}, {8, 7}, {4, 1}, {8, 1}}) {
    const int p = n * q;
    const Params prm = with_layout(block_layout(n, q));
    const int r1 = rounds_1f(q);
    const long long want = 1LL * n * (q - 1) + 1LL * q * (n - 1) + 1LL * (n - 1) * (q - 1);
    for (int r = 0; r < p; ++r)
      EXPECT_EQ(node_aware().blocks_sent(p, r, prm), want) << n << "x" << q;
    EXPECT_EQ(node_aware().rounds(p, prm), 2 * r1 + (n - 1) / q);
    EXPECT_DOUBLE_EQ(node_aware().time(p, prm, ts, tw, m), r1 * (ts + tw * m * n) +
                                                               (n - 1) / q * (ts + tw * m * q * q) +
                                                               r1 * (ts + tw * m * (n - 1)));
  }
  for (int q = 1; q <= 8; ++q) {  // two nodes: no delivery phase
    const Params prm = with_layout(block_layout(2, q));
    for (int r = 0; r < 2 * q; ++r) EXPECT_EQ(node_aware().blocks_sent(2 * q, r, prm), 3 * q - 2);
    EXPECT_EQ(node_aware().rounds(2 * q, prm), rounds_1f(q) + 1);
  }
}

TEST(NodeAware, NoLayoutIsOneRankPerNode) {
  for (int p = 1; p <= 33; ++p) {
    EXPECT_EQ(node_aware().rounds(p, Params{}), p <= 1 ? 0 : (is_pow2(p) ? p - 1 : rounds_1f(p)));
    for (int r = 0; r < p; ++r) EXPECT_EQ(node_aware().blocks_sent(p, r, Params{}), p - 1);
  }
}

TEST(NodeAware, LayoutOfAnotherCommunicatorIsRefusedWithReason) {
  const Params prm = with_layout(block_layout(2, 2));
  EXPECT_TRUE(node_aware().check(4, prm).empty());
  EXPECT_NE(node_aware().check(6, prm).find("4 ranks"), std::string::npos)
      << node_aware().check(6, prm);
  EXPECT_NE(multileader().check(3, prm).find("4 ranks"), std::string::npos);
  Params bad = prm;
  bad.leaders = -1;
  EXPECT_NE(multileader().check(4, bad).find("leaders"), std::string::npos);
  EXPECT_EQ(make_node_layout({}), nullptr);
  EXPECT_EQ(make_node_layout({0, -1}), nullptr);
}

TEST(NodeLayout, RenumbersByFirstAppearanceAndHashesEverything) {
  const auto a = make_node_layout({7, 3, 7, 3});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->nodes, 2);
  EXPECT_EQ(a->node_of_rank, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_NE(a->hash, make_node_layout({0, 0, 1, 1})->hash);
  EXPECT_EQ(a->hash, make_node_layout({0, 1, 0, 1})->hash);
  EXPECT_NE(a->hash, make_node_layout({0, 1, 0, 1}, NodeNet::kRing, {2})->hash);
  // Endpoints per rank become endpoints per node; inconsistent ones are dropped.
  EXPECT_EQ(make_node_layout({0, 1, 0, 1}, NodeNet::kRing, {2}, {1, 0, 1, 0})->endpoint_of_node,
            (std::vector<int>{1, 0}));
  EXPECT_TRUE(
      make_node_layout({0, 1, 0, 1}, NodeNet::kRing, {2}, {1, 0, 0, 0})->endpoint_of_node.empty());
}

// The plugin's layout comes from the communicator's Topology.
TEST(NodeLayout, FromTopology) {
  Topology t = uniform_topology(4, 2, Placement::kRoundRobin);
  auto l = node_layout_for(t);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->nodes, 4);
  EXPECT_EQ(l->node_of_rank, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(l->net, NodeNet::kSwitch);
  NetworkDesc torus;
  std::string err;
  ASSERT_TRUE(parse_network_file("network torus 2x2\n", "f", &torus, &err)) << err;
  ASSERT_TRUE(apply_network(&t, torus, "file:f", false)) << t.errors.at(0);
  l = node_layout_for(t);
  EXPECT_EQ(l->net, NodeNet::kTorus);
  EXPECT_EQ(l->dims, (std::vector<int>{2, 2}));
  EXPECT_EQ(l->endpoint_of_node.size(), 4u);
  EXPECT_EQ(NodeSteps(nodes_of(8, Params({}, l)), Params({}, l)).kind(), NodeSteps::Kind::kShift);
  EXPECT_NE(l->hash, node_layout_for(uniform_topology(4, 2, Placement::kRoundRobin))->hash);
  EXPECT_EQ(node_layout_for(Topology{}), nullptr);
}

TEST(MultiLeader, EveryLayoutAndLeaderCountUpTo64Ranks) {
  for (int p = 1; p <= 64; ++p) {
    for (int q = 1; q <= p; ++q) {
      if (p % q != 0) continue;
      for (int k : {0, 1, 2, 3, q, q + 1}) {
        if (k > q + 1) continue;
        expect_node_correct(multileader(), p, with_layout(round_robin_layout(p / q, q), k),
                            p <= 12);
      }
    }
    for (int n : {2, 3, 5}) {
      if (n >= p) continue;
      for (int k : {0, 1, 2})
        expect_node_correct(multileader(), p, with_layout(shuffled(uneven_layout(p, n), p), k));
    }
  }
}

// The header's formulas for equal nodes, G = q/k ranks per group.
TEST(MultiLeader, HeaderFormulas) {
  const double ts = 2.0, tw = 0.25, m = 8;
  for (auto [n, q, k] : std::vector<std::tuple<int, int, int>>{
           {4, 4, 1}, {4, 4, 2}, {4, 4, 4}, {3, 6, 2}, {5, 6, 3}, {2, 8, 0}, {8, 2, 1}}) {
    const int p = n * q, kk = k == 0 ? q : k, g = q / kk;
    const Params prm = with_layout(block_layout(n, q), k);
    const int r1 = rounds_1f(q), s = is_pow2(n) ? n - 1 : rounds_1f(n);
    EXPECT_EQ(multileader().rounds(p, prm), r1 + s + g - 1);
    for (int r = 0; r < p; ++r) {
      const bool leader = (r % q) % g == 0;
      const long long want = leader ? (q - 1) + (p - q) - 1LL * (n - 1) * g +
                                          1LL * q * (n - 1) * g + 1LL * (g - 1) * (p - q)
                                    : (q - 1) + (p - q);
      EXPECT_EQ(multileader().blocks_sent(p, r, prm), want) << n << "x" << q << " k=" << k;
    }
    EXPECT_DOUBLE_EQ(multileader().time(p, prm, ts, tw, m), r1 * (ts + tw * m * (1 + (n - 1) * g)) +
                                                                s * (ts + tw * m * q * g) +
                                                                (g - 1) * (ts + tw * m * (p - q)));
  }
}

}  // namespace
}  // namespace topoa2a::test
