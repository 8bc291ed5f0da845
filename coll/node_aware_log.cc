// node_aware_log: node_aware's three phases (node_aware.cc; the lanes,
// phase 2 and the driver: coll/node_aware_lanes.h) with the two intra-node
// phases done by Bruck's store-and-forward exchange among the node's ranks
// (coll/nodes.h bruck_message) instead of the 1-factor pairing: in round k
// local rank i sends one message to local rank (i + 2^k) mod q carrying
// every item (what the direct phase would send from s to t) whose
// remaining distance (t - i) mod q has bit k set. Any q (the last round of
// a non-power of two is partial), unequal nodes (a node of q_a ranks runs
// ceil(log2 q_a) rounds), any numbering of ranks, as node_aware.
// Rounds: R1 = R3 = ceil(log2 q) instead of q-1 / q; the inter-node phase
// is unchanged. Blocks per rank, equal nodes, q dividing N-1, P(q) =
// sum_{j<q} popcount(j) (q = 16: 32, against q - 1 = 15): N P(q) in phase
// 1, q(N-1) over the network, (N-1) P(q) in phase 3.
// Time: sum_k (t_s + t_w m c_k N) + ((N-1)/q)(t_s' + t_w' m q^2)
//       + sum_k (t_s + t_w m c_k (N-1)), c_k = #{j < q : bit k of j} (about
// q/2), k < ceil(log2 q). Against the direct phases it saves (q - 1 -
// ceil(log2 q)) t_s per phase and costs t_w m (P(q) - (q-1)) N more: a win
// while the blocks are small (at 16 x 16 with the simulation's 1.2 us
// intra-node start-up and 0.05 ns/B, below about 1 KiB blocks). It is its
// own entry of the algorithm table, so the cost model prices it as a
// candidate beside node_aware, it is forced by name and every sweep and
// test over the table takes it.
// Restrictions: the layout must describe the communicator's p ranks.
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "coll/node_aware_lanes.h"

namespace topoa2a {
namespace {

using detail::for_each_unit;
using detail::NodeLanes;

// node_aware_log, phase 1, round k: Bruck's exchange among the node's
// ranks (coll/nodes.h); the item of rank s for rank t of the node is what
// the direct phase 1 sends t: s's own block for t, then s's blocks for the
// destinations t's lanes carry.
void gather_log(const NodeLanes& c, int rank, int k, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a), i = nd.local[rank];
  if (k >= bruck_rounds(qa)) return;
  auto items = [&](int s, int t, std::vector<Block>* out) {
    const int src = nd.member(a, s), x = nd.member(a, t);
    out->push_back({src, x});
    for_each_unit(c, x, false, [&](int b, int first, int end) {
      for (int l = first; l < end; ++l) out->push_back({src, nd.member(b, l)});
    });
  };
  const int step = 1 << k;
  std::vector<Block> send = bruck_message(qa, i, k, items);
  std::vector<Block> recv = bruck_message(qa, mod(i - step, qa), k, items);
  if (!send.empty()) round->sends.push_back({nd.member(a, mod(i + step, qa)), std::move(send)});
  if (!recv.empty()) round->recvs.push_back({nd.member(a, mod(i - step, qa)), std::move(recv)});
}

// node_aware_log, phase 3, round k: the same exchange; the item of lane s
// for rank t is what lane s received for t from the other nodes.
void deliver_log(const NodeLanes& c, int rank, int k, Round* round) {
  const Nodes& nd = c.nd;
  const int b = nd.node[rank], qb = nd.size(b), i = nd.local[rank];
  if (k >= bruck_rounds(qb)) return;
  auto items = [&](int s, int t, std::vector<Block>* out) {
    for_each_unit(c, nd.member(b, s), true, [&](int f, int first, int end) {
      if (t < first || t >= end) return;
      for (int x = 0; x < nd.size(f); ++x) out->push_back({nd.member(f, x), nd.member(b, t)});
    });
  };
  const int step = 1 << k;
  std::vector<Block> send = bruck_message(qb, i, k, items);
  std::vector<Block> recv = bruck_message(qb, mod(i - step, qb), k, items);
  if (!send.empty()) round->sends.push_back({nd.member(b, mod(i + step, qb)), std::move(send)});
  if (!recv.empty()) round->recvs.push_back({nd.member(b, mod(i - step, qb)), std::move(recv)});
}

long long blocks_sent(const NodeLanes& c, const detail::NodeLoad& load, int rank) {
  const int qa = c.nd.size(c.nd.node[rank]), i = c.nd.local[rank];
  // Phase 1's item (s, t): s's block for t and for what t carries.
  const long long gather =
      bruck_blocks_sent(qa, i, [&](int, int t) { return 1 + load.carries[t]; });
  const long long deliver =
      c.R3 > 0 ? bruck_blocks_sent(qa, i, [&](int s, int t) { return load.got[s][t]; }) : 0;
  return gather + qa * load.carries[i] + deliver;
}

double time(const NodeLanes& c, const detail::InterCost& inter, double ts, double tw, double m) {
  const int qi = c.nd.qmax;
  const double q = qi;
  // Round k of a Bruck exchange moves bruck_items(q, k) items per rank.
  double t = inter.time;
  for (int k = 0; k < c.R1; ++k) t += ts + tw * m * bruck_items(qi, k) * (1 + inter.own);
  for (int k = 0; k < c.R3; ++k) t += ts + tw * m * bruck_items(qi, k) * c.T * q;
  return t;
}

const detail::IntraExchange kBruck{
    "node_aware_log", bruck_rounds, gather_log, deliver_log, blocks_sent, time,
};

}  // namespace

std::string node_aware_log_check(int p, const Params& params) {
  return detail::lanes_check(kBruck, p, params);
}
Round node_aware_log_round(int p, int rank, const Params& params, int k) {
  return detail::lanes_round(kBruck, p, rank, params, k);
}
int node_aware_log_rounds(int p, const Params& params) {
  return detail::lanes_rounds(kBruck, p, params);
}
Schedule node_aware_log_build(int p, int rank, const Params& params) {
  return detail::lanes_build(kBruck, p, rank, params);
}
long long node_aware_log_blocks_sent(int p, int rank, const Params& params) {
  return detail::lanes_blocks_sent(kBruck, p, rank, params);
}
double node_aware_log_time(int p, const Params& params, double ts, double tw, double m) {
  return detail::lanes_time(kBruck, p, params, ts, tw, m);
}

}  // namespace topoa2a
