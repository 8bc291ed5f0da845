// Unit tests of the cost model (topology/cost_model.h): the messages it
// derives from the schedules and its pricing of rounds and windows of
// messages in flight (the choice: cost_choice_test.cc). Expected values come from the formulas in
// topology/README.md ("Cost model"), never from a run. No MPI.
#include "topology/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "coll/algorithms.h"
#include "tests/model_topologies.h"
#include "topology/model_pattern.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

// ---------------------------------------------------------------------------
// The model

// The copies one rank makes in each round of its schedule, one after
// another: ts per message plus tw m per block (at least one start-up).
double serial_copies(const Algorithm& a, int p, const Params& params, int rank, double ts,
                     double tw, double m) {
  double t = 0;
  for (const Round& r : a.build(p, rank, params).rounds) {
    int msgs = 0;
    size_t blocks = 0;
    for (const Transfer& x : r.sends) {
      if (x.peer == rank || x.blocks.empty()) continue;
      ++msgs;
      blocks += x.blocks.size();
    }
    t += std::max(1, msgs) * ts + tw * m * static_cast<double>(blocks);
  }
  return t;
}

// Without a network a rank's copies in a round follow one another: with one
// message per round (the seed's single-port algorithms) every round costs
// (ts_intra, tw_intra x its largest message) and, round by round, the
// estimates are exactly the seed formulas; the two-port ones (ring_bidir,
// torus) pay for both messages, above their seed formula (which counts the
// longer direction, as on a network whose links work in parallel). A
// window never does worse (on one node its copies serialise: the same sum,
// except that onefactor on odd p loses its idle round).
TEST(Model, OneNodeIsTheSeedFormulas) {
  const CostParams c;
  for (int p : {2, 5, 8, 12, 16}) {
    const Topology t = uniform_topology(1, p);
    const CostModel model(t, c);
    for (size_t m : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
      const double md = static_cast<double>(m);
      for (const Algorithm& a : algorithms()) {
        const Estimate rounds = model.estimate(a.name, m, 0);
        if (!rounds.applicable) continue;
        const Params params = resolve_params(p, rounds.params);
        const double seed = a.time(p, params, c.ts_intra, c.tw_intra, md);
        if (a.id == AlgorithmId::kRingBidir || a.id == AlgorithmId::kTorus) {
          const double serial = serial_copies(a, p, params, 0, c.ts_intra, c.tw_intra, md);
          EXPECT_NEAR(rounds.predicted, serial, 1e-12 * serial) << a.name << " p=" << p;
          if (p > 2) {
            EXPECT_GT(rounds.predicted, seed) << a.name << " p=" << p;
          }
        } else {
          EXPECT_NEAR(rounds.predicted, seed, 1e-12 * seed) << a.name << " p=" << p;
        }
        EXPECT_EQ(rounds.network_fraction, 0);
        const Estimate best = model.estimate(a.name, m);
        EXPECT_LE(best.predicted, rounds.predicted * (1 + 1e-12)) << a.name;
        if (!(a.id == AlgorithmId::kOneFactor && p % 2 == 1)) {
          EXPECT_NEAR(best.predicted, rounds.predicted, 1e-12 * seed) << a.name << " p=" << p;
          EXPECT_EQ(best.window, 0) << a.name << " p=" << p;  // ties: round by round
        }
      }
      // MPICH's brucks: round k moves the blocks whose index has bit k set,
      // plus the two local rotations.
      double brucks = 2.0 * p * md * c.tw_intra;
      for (int k = 0; (1 << k) < p; ++k) {
        int blocks = 0;
        for (int i = 0; i < p; ++i) blocks += (i >> k) & 1;
        brucks += c.ts_intra + c.tw_intra * md * blocks;
      }
      EXPECT_NEAR(model.estimate("brucks", m).predicted, brucks, 1e-12 * brucks) << p;
      const double pairwise = (p - 1) * (c.ts_intra + c.tw_intra * md);
      EXPECT_NEAR(model.estimate("pairwise", m).predicted, pairwise, 1e-12 * pairwise);
    }
  }
}

// The model's messages are the schedules': every algorithm of the table,
// every rank and round, p up to 64 (odd, even, prime, powers of two).
TEST(Model, MessagesAreTheSchedules) {
  std::vector<int> sizes;
  for (int p = 1; p <= 17; ++p) sizes.push_back(p);
  for (int p : {24, 31, 32, 37, 48, 61, 63, 64}) sizes.push_back(p);
  std::vector<ModelMessage> got;
  for (const Algorithm& a : algorithms()) {
    for (int p : sizes) {
      const Params params = resolve_params(p, Params{});
      if (!a.check(p, params).empty()) continue;
      MessagePattern pat;
      ASSERT_TRUE(pat.bind(a.name, p, params));
      ASSERT_EQ(pat.rounds(), a.rounds(p, params)) << a.name << " p=" << p;
      EXPECT_EQ(pat.forwards(), !a.direct);
      for (int r = 0; r < p; ++r) {
        const Schedule s = a.build(p, r, params);
        ASSERT_EQ(static_cast<int>(s.rounds.size()), pat.rounds());
        for (int k = 0; k < pat.rounds(); ++k) {
          ASSERT_TRUE(model_messages(a.name, p, params, r, k, &got));
          const std::vector<Transfer>& want = s.rounds[k].sends;
          ASSERT_EQ(got.size(), want.size()) << a.name << " p=" << p << " r=" << r << " k=" << k;
          for (size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(got[i].peer, want[i].peer) << a.name << " p=" << p << " r=" << r;
            EXPECT_EQ(got[i].blocks, static_cast<long long>(want[i].blocks.size()))
                << a.name << " p=" << p << " r=" << r << " k=" << k;
          }
        }
      }
    }
  }
  EXPECT_FALSE(model_messages("bogus", 4, Params{}, 0, 0, &got));
}

// At p = 1024 (a 32x32 torus) the rounds the model routes are the
// schedules' rounds, and it samples within its budget: every round of the
// log-round hypercube, a few of the p-1-round ones, both mesh phases.
TEST(Model, SampledRoundsAt1024) {
  const Topology t = forced("torus:32x32", 1024);
  const CostModel model(t, CostParams{});
  std::vector<ModelMessage> got;
  for (const Algorithm& a : algorithms()) {
    const std::vector<CostModel::Option>& opts = model.options(a.name);
    ASSERT_FALSE(opts.empty()) << a.name;
    for (const CostModel::Option& o : opts) {
      if (!o.why_not.empty()) continue;
      const Params params = resolve_params(1024, o.params);
      ASSERT_FALSE(o.sampled_rounds.empty()) << a.name;
      EXPECT_LT(o.sampled_rounds.size(), static_cast<size_t>(o.rounds) + 1);
      if (a.id == AlgorithmId::kHypercube) {
        EXPECT_EQ(o.sampled_rounds.size(), 10u);
      } else if (a.id == AlgorithmId::kDirectScheduled || a.id == AlgorithmId::kOneFactorXor) {
        // Products on the torus's own grid: the 64 ranks of one line per
        // dimension price a round, so many more rounds fit the budget
        // (cost_product_test.cc).
        EXPECT_GT(o.sampled_rounds.size(), 200u) << a.name;
      } else {
        EXPECT_LT(o.sampled_rounds.size(), 200u) << a.name;
      }
      if (a.id == AlgorithmId::kMesh && params.grid.rows > 1 && params.grid.cols > 1) {
        const int c = params.grid.cols;  // both phases
        EXPECT_LT(o.sampled_rounds.front(), c - 1);
        EXPECT_GE(o.sampled_rounds.back(), c - 1);
      }
      for (int r : {0, 1, 511, 1023}) {
        const Schedule s = a.build(1024, r, params);
        for (int k : o.sampled_rounds) {
          ASSERT_TRUE(model_messages(a.name, 1024, params, r, k, &got));
          const std::vector<Transfer>& want = s.rounds[k].sends;
          ASSERT_EQ(got.size(), want.size()) << a.name << " r=" << r << " k=" << k;
          for (size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(got[i].peer, want[i].peer);
            EXPECT_EQ(got[i].blocks, static_cast<long long>(want[i].blocks.size()));
          }
        }
      }
    }
  }
}

// Every option of the model on topology `forced` (p = 1024, over the
// model's budget) that, in some round, sends rank 0's blocks to a peer
// `far` says is far, has such a round among its sampled rounds; `counted`
// must be among the options checked.
template <class Far>
void expect_samples_cover(const char* forced_topology, AlgorithmId counted, Far far) {
  const Topology t = forced(forced_topology, 1024);
  const CostModel model(t, CostParams{});
  std::vector<ModelMessage> got;
  auto reaches = [&](const char* name, const Params& params, int k) {
    EXPECT_TRUE(model_messages(name, 1024, params, 0, k, &got));
    for (const ModelMessage& m : got)
      if (m.blocks > 0 && far(t, m.peer)) return true;
    return false;
  };
  int checked = 0;
  for (const Algorithm& a : algorithms()) {
    for (const CostModel::Option& o : model.options(a.name)) {
      if (!o.why_not.empty()) continue;
      const Params params = resolve_params(1024, o.params);
      bool any = false, sampled = false;
      for (int k = 0; k < o.rounds && !any; ++k) any = reaches(a.name, params, k);
      for (int k : o.sampled_rounds) sampled = sampled || reaches(a.name, params, k);
      EXPECT_EQ(sampled, any) << forced_topology << ": " << a.name << " " << o.note;
      checked += a.id == counted;
    }
  }
  EXPECT_GT(checked, 0) << forced_topology;
}

// On 64 nodes of 16 ranks every schedule that sends over the network has a
// sampled round that does: node_aware's 15 + 4 + 16 rounds, sampled
// evenly, once priced only its intra-node phases.
TEST(Model, SampledRoundsCoverTheNetworkPhase) {
  expect_samples_cover(
      "nodes:64x16,fat_tree", AlgorithmId::kNodeAware,
      [](const Topology& t, int peer) { return t.unit_of_rank(peer) != t.unit_of_rank(0); });
}

// On a dragonfly of 2 groups, multileader's 31 node steps (bit-reversed:
// coll/nodes.h) alternate between the groups; evenly spread samples all
// stayed inside one and the model priced multileader without its global
// links (6.5 ms at 2 KiB, simulated 20.6 ms). A schedule that sends to the
// other group has a sampled round that does.
TEST(Model, SampledRoundsCoverTheGlobalLinks) {
  expect_samples_cover(
      "nodes:32x32,dragonfly:2x16x4", AlgorithmId::kMultiLeader, [](const Topology& t, int peer) {
        const Network& n = t.network;
        return n.group_of(n.endpoint_of_rank[peer]) != n.group_of(n.endpoint_of_rank[0]);
      });
}

// MPICH's patterns, as its code runs them: brucks round k to rank + 2^k
// with the blocks whose index has bit k set; pairwise to rank XOR i (p a
// power of two) or rank + i; scattered to rank - i, i = 0..p-1, in batches
// of 32 (i = 0 is its message to itself).
TEST(Model, MpichPatterns) {
  std::vector<ModelMessage> got;
  for (int p : {2, 5, 8, 12, 13, 64}) {
    for (int r = 0; r < p; ++r) {
      for (int k = 0; (1 << k) < p; ++k) {
        ASSERT_TRUE(model_messages("brucks", p, Params{}, r, k, &got));
        int blocks = 0;
        for (int i = 0; i < p; ++i) blocks += (i >> k) & 1;
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].peer, (r + (1 << k)) % p);
        EXPECT_EQ(got[0].blocks, blocks);
      }
      for (int i = 1; i < p; ++i) {
        ASSERT_TRUE(model_messages("pairwise", p, Params{}, r, i - 1, &got));
        EXPECT_EQ(got[0].peer, is_pow2(p) ? (r ^ i) : (r + i) % p);
      }
      for (int i = 0; i < p; ++i) {
        ASSERT_TRUE(model_messages("scattered", p, Params{}, r, i, &got));
        EXPECT_EQ(got[0].peer, ((r - i) % p + p) % p);
      }
    }
  }
}

TEST(Model, ScatteredPricesAllMessagesInFlight) {
  const CostParams c;
  // One node: the copies take the CPU one after another, the pairwise
  // formula, (p-1)(ts + tw m).
  const CostModel one(uniform_topology(1, 6), c);
  EXPECT_NEAR(one.estimate("scattered", 4096).predicted, 5 * (c.ts_intra + c.tw_intra * 4096),
              1e-15);
  EXPECT_EQ(one.estimate("scattered", 4096).rounds, 1);
  // A switch: one batch of 15 messages in flight: one start-up, o for each
  // further message, the NIC's 15 blocks.
  const CostModel sw(forced("switch", 16), c);
  for (size_t m : {size_t{8}, size_t{1} << 20}) {
    const double md = static_cast<double>(m);
    EXPECT_NEAR(sw.estimate("scattered", m).predicted, c.ts_inter + 14 * c.o + 15 * md * c.tw_inter,
                1e-15);
    EXPECT_NEAR(sw.estimate("pairwise", m).predicted, 15 * (c.ts_inter + md * c.tw_inter), 1e-15);
  }
  EXPECT_EQ(sw.estimate("scattered", 64).window, 16);  // its message to itself too
  // topoa2a's direct exchanges price the same with all messages in flight;
  // the choice is one of them (ties go to the table), with that window.
  const Choice big = choose_auto(forced("switch", 16), 1 << 20, c);
  EXPECT_NE(find_algorithm(big.algorithm), nullptr) << big.reason;
  EXPECT_EQ(big.window, 15) << big.reason;
  // Two ranks: one message, nothing to overlap.
  const CostModel two(forced("switch", 2), c);
  EXPECT_DOUBLE_EQ(two.estimate("scattered", 4096).predicted,
                   two.estimate("pairwise", 4096).predicted);
  // A torus: all at once, the busiest link carries the all-pairs load once,
  // below the sum of the per-round maxima of the same exchange round by
  // round; scattered's one batch is onefactor_xor's window of 15.
  const CostModel tm(forced("torus:4x4", 16), c);
  EXPECT_DOUBLE_EQ(tm.estimate("scattered", 1 << 20).predicted,
                   tm.estimate("onefactor_xor", 1 << 20, 15).predicted);
  EXPECT_LT(tm.estimate("onefactor_xor", 1 << 20, 15).predicted,
            tm.estimate("onefactor_xor", 1 << 20, 0).predicted);
  // Many ranks, small blocks: 255 messages' o lose to log2(p) rounds.
  EXPECT_EQ(choose_auto(forced("torus:16x16", 256), 8, c).algorithm, "hypercube");
}

// MPICH's scattered on 64 nodes behind a switch: batches of 32 and 31
// messages in flight, each one start-up, o per further message and its
// NIC's blocks: T = 2 ts + 61 o + 63 m tw. Its latency share does not grow
// with its messages (the earlier model charged 63 start-ups).
TEST(Model, ScatteredLatencyRatio) {
  const Topology t = forced("switch", 64);
  CostParams slow, fast;
  slow.ts_inter = slow.ts_intra = 5e-6;
  fast.ts_inter = fast.ts_intra = 0.1e-6;
  for (size_t m : {size_t{8}, size_t{2048}, size_t{32768}}) {
    const double md = static_cast<double>(m);
    auto formula = [&](const CostParams& c) {
      return 2 * c.ts_inter + 61 * c.o + 63 * md * c.tw_inter;
    };
    const double ts = CostModel(t, slow).estimate("scattered", m).predicted;
    const double tf = CostModel(t, fast).estimate("scattered", m).predicted;
    EXPECT_NEAR(ts, formula(slow), 1e-12 * ts) << m;
    EXPECT_NEAR(tf, formula(fast), 1e-12 * tf) << m;
    EXPECT_NEAR(ts / tf, formula(slow) / formula(fast), 1e-9) << m;
    EXPECT_EQ(CostModel(t, slow).estimate("scattered", m).rounds, 2);
  }
}

// A direct exchange on a switch, W messages in flight per rank: windows of
// W rounds, each one start-up, o per further message and the NIC's W
// blocks: T(W) = ceil(R/W) ts + (R - ceil(R/W)) o + R m tw; round by round
// R (ts + m tw). It falls with W down to the links' time R m tw.
TEST(Model, WindowPricingOnASwitch) {
  const CostParams c;
  const CostModel model(forced("switch", 16), c);
  const int R = 15;
  EXPECT_EQ(model.windows("onefactor_xor"), (std::vector<int>{0, 2, 4, 8, 15}));
  for (size_t m : {size_t{8}, size_t{4096}, size_t{1} << 20}) {
    const double md = static_cast<double>(m);
    double prev = 0;
    for (int w : model.windows("onefactor_xor")) {
      const Estimate e = model.estimate("onefactor_xor", m, w);
      ASSERT_TRUE(e.applicable) << e.why_not;
      EXPECT_EQ(e.window, w);
      const int steps = w == 0 ? R : (R + w - 1) / w;
      EXPECT_EQ(e.rounds, steps);
      const double want = w == 0 ? R * (c.ts_inter + md * c.tw_inter)
                                 : steps * c.ts_inter + (R - steps) * c.o + R * md * c.tw_inter;
      EXPECT_NEAR(e.predicted, want, 1e-12 * want) << "W=" << w << " m=" << m;
      if (w > 0) {
        EXPECT_LT(e.predicted, prev) << "W=" << w << " m=" << m;
      }
      EXPECT_GE(e.predicted, R * md * c.tw_inter);
      prev = e.predicted;
    }
    EXPECT_EQ(model.estimate("onefactor_xor", m).window, R);
  }
  EXPECT_FALSE(model.estimate("onefactor_xor", 64, 3).applicable);
  // 4 ranks share each NIC: still non-increasing in W, and never below the
  // NIC's time for its 4 x 12 network blocks.
  const CostModel shared(uniform_topology(4, 4), c);
  for (size_t m : {size_t{64}, size_t{1} << 20}) {
    double prev = 1e300;
    for (int w : shared.windows("onefactor")) {
      const Estimate e = shared.estimate("onefactor", m, w);
      EXPECT_LE(e.predicted, prev * (1 + 1e-12)) << "W=" << w;
      EXPECT_GE(e.predicted, 48 * static_cast<double>(m) * c.tw_inter);
      prev = e.predicted;
    }
  }
}

// Store-and-forward schedules wait for each round: no window. MPICH's
// algorithms keep theirs (pairwise round by round, scattered 32).
TEST(Model, WindowsOnlyWhereRoundsAreIndependent) {
  const CostModel model(forced("switch", 64), CostParams{});
  for (const Algorithm& a : algorithms()) {
    const std::vector<int> w = model.windows(a.name);
    if (a.direct) {
      EXPECT_EQ(w, (std::vector<int>{0, 2, 4, 8, 16, 32, 63})) << a.name;
    } else {
      EXPECT_EQ(w, std::vector<int>{0}) << a.name;
    }
  }
  EXPECT_EQ(model.windows("brucks"), std::vector<int>{0});
  EXPECT_EQ(model.windows("pairwise"), std::vector<int>{0});
  EXPECT_EQ(model.windows("scattered"), std::vector<int>{32});
  // The choice carries the window of topoa2a's algorithms only.
  for (size_t m = 1; m <= (size_t{1} << 20); m *= 16) {
    const Choice c = model.choose(m);
    const Estimate e = model.estimate(c.algorithm, m);
    EXPECT_EQ(c.window, find_algorithm(c.algorithm) ? e.window : 0) << c.reason;
  }
}

// A tapered fat tree ("fat_tree KxU": leaves of K endpoints with U up-links
// each): a message between leaves also loads its leaves' up-link bundles
// with blocks / U. 32 nodes in 2 leaves of 16, every rank's 31 messages in
// flight: the NIC carries 31 blocks, each leaf's up-links 16 x 16 / U.
TEST(Model, TaperedFatTreeChargesUplinks) {
  const CostParams c;
  const size_t m = 1 << 16;
  const double md = static_cast<double>(m);
  auto all_at_once = [&](const char* net) {
    return CostModel(forced(net, 32), c).estimate("onefactor_xor", m, 31).predicted;
  };
  const double base = c.ts_inter + 30 * c.o;
  EXPECT_NEAR(all_at_once("fat_tree"), base + 31 * md * c.tw_inter, 1e-12);
  EXPECT_NEAR(all_at_once("fat_tree:16x16"), base + 31 * md * c.tw_inter, 1e-12);
  EXPECT_NEAR(all_at_once("fat_tree:16x8"), base + 32 * md * c.tw_inter, 1e-12);
  EXPECT_NEAR(all_at_once("fat_tree:16x4"), base + 64 * md * c.tw_inter, 1e-12);
  // Round by round, XOR rounds 1..15 stay in the leaf; in rounds 16..31
  // each leaf's 16 ranks share its U = 8 up-links.
  const Estimate r = CostModel(forced("fat_tree:16x8", 32), c).estimate("onefactor_xor", m, 0);
  EXPECT_NEAR(r.predicted, 31 * c.ts_inter + (15 + 16 * 2) * md * c.tw_inter, 1e-12);
  // The description.
  EXPECT_NE(describe(forced("fat_tree:16x8", 32).network).find("leaves of 16, 8 up-links"),
            std::string::npos);
  NetworkDesc d;
  std::string err;
  EXPECT_FALSE(parse_forced_topology("fat_tree:16", &d, &err));
  EXPECT_NE(err.find("LEAFxUPLINKS"), std::string::npos) << err;
  EXPECT_TRUE(parse_network_file("network fat_tree 16x8\n", "net.txt", &d, &err)) << err;
  EXPECT_EQ(d.dims, (std::vector<int>{16, 8}));
}

}  // namespace
}  // namespace topoa2a
