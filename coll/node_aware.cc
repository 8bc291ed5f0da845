// node_aware: three-phase all-to-all over the nodes of the communicator,
// every rank of a node a lane to the other nodes (the lanes, phase 2 and
// the driver: coll/node_aware_lanes.h; node_aware_log.cc: the same with
// Bruck exchanges inside the node).
//
// Reference: the seed's 1-factor and XOR pairings applied to nodes instead
// of ranks; the node-aware (locality-aware) all-to-alls of Bienz et al.
// and MPI Advance aggregate the same way. With N nodes, q ranks per node
// (p = N q; the node layout from Params::layout, any numbering of ranks):
//  1. intra-node (1-factor pairing of the node's ranks): each rank sends
//     every other rank x of its node its own block for x (intra-node blocks
//     go directly) and its blocks for the destinations that x's lane
//     carries. Afterwards lane x holds everything its node sends to the
//     nodes of its lane.
//  2. inter-node: the node steps (coll/nodes.h: XOR pairing of the nodes
//     for a power-of-two N on a switch / fat tree / unknown network /
//     hypercube; the 1-factor pairing otherwise; shifts s, -s over the
//     dimensions on a ring / mesh / torus whose endpoints are the nodes)
//     are dealt to the q lanes, q steps per round: in every round every
//     rank of a node sends one aggregated message to its counterpart (the
//     same lane) on another node, q x q blocks, and receives one. When a
//     round has fewer steps than lanes (N-1 < q, or the last round), each
//     of its steps is split over floor or ceil(q / steps) lanes by
//     destination rank, so no lane idles; one message per node pair and
//     lane still.
//  3. intra-node (the same pairing): each lane delivers what it received
//     to the other ranks of its node. Absent when q = 1, N = 1, or N = 2
//     with equal nodes (every lane then receives exactly its own blocks).
// Unequal nodes: L = the largest node's rank count lanes; lane v of node a
// runs on its rank v mod q_a (a smaller node's ranks carry several lanes;
// per rank they carry about as many blocks as a full node's, since every
// lane's blocks scale with its node's ranks); messages between the same two
// ranks in one round are merged.
// Rounds (S = N-1 node steps, N for odd N with the 1-factor pairing, whose
// rounds idle each node once): R1 + ceil(S/q) + R3 with R1 = R3 = q-1
// (even q) or q (odd q), R3 = 0 as above.
// Blocks sent per rank, equal nodes, q dividing S = N-1: N(q-1) in phase
// 1, q(N-1) = p - q over the network (the same as a direct exchange, in
// (N-1)/q messages instead of p - q), (N-1)(q-1) in phase 3.
// Time: R1 (t_s + t_w m N) + ((N-1)/q)(t_s' + t_w' m q^2)
//       + R3 (t_s + t_w m (N-1)), t_s, t_w intra-node and t_s', t_w' the
// network's; time() prices all three with one t_s, t_w.
//
// Restrictions: the layout must describe the communicator's p ranks.
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "coll/node_aware_lanes.h"

namespace topoa2a {
namespace {

using detail::for_each_unit;
using detail::NodeLanes;

// Phase 1, round k: exchange with the node's rank paired in round k.
void gather_round(const NodeLanes& c, int rank, int k, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a), i = nd.local[rank];
  if (k >= rounds_1f(qa)) return;
  const int pi = pair_1f(qa, k, i);
  if (pi == i) return;
  const int x = nd.member(a, pi);
  Transfer send{x, {{rank, x}}}, recv{x, {{x, rank}}};
  for_each_unit(c, x, false, [&](int b, int first, int end) {
    for (int l = first; l < end; ++l) send.blocks.push_back({rank, nd.member(b, l)});
  });
  for_each_unit(c, rank, false, [&](int b, int first, int end) {
    for (int l = first; l < end; ++l) recv.blocks.push_back({x, nd.member(b, l)});
  });
  round->sends.push_back(std::move(send));
  round->recvs.push_back(std::move(recv));
}

// Phase 3, round k: deliver to the node's rank paired in round k what this
// lane received for it, and receive from it what it received for us.
void deliver_round(const NodeLanes& c, int rank, int k, Round* round) {
  const Nodes& nd = c.nd;
  const int b = nd.node[rank], qb = nd.size(b), i = nd.local[rank];
  if (k >= rounds_1f(qb)) return;
  const int pi = pair_1f(qb, k, i);
  if (pi == i) return;
  const int d = nd.member(b, pi);
  Transfer send{d, {}}, recv{d, {}};
  auto add = [&](Transfer* t, int lane_rank, int dst_local) {
    for_each_unit(c, lane_rank, true, [&](int f, int first, int end) {
      if (dst_local < first || dst_local >= end) return;
      for (int x = 0; x < nd.size(f); ++x)
        t->blocks.push_back({nd.member(f, x), nd.member(b, dst_local)});
    });
  };
  add(&send, rank, pi);
  add(&recv, d, i);
  if (!send.blocks.empty()) round->sends.push_back(std::move(send));
  if (!recv.blocks.empty()) round->recvs.push_back(std::move(recv));
}

long long blocks_sent(const NodeLanes& c, const detail::NodeLoad& load, int rank) {
  const int qa = c.nd.size(c.nd.node[rank]), i = c.nd.local[rank];
  const long long own = load.carries[i];
  long long delivered = 0;  // phase 3: what this lane received for the others
  for (int t = 0; t < qa; ++t)
    if (t != i) delivered += load.got[i][t];
  // Phase 1: one own block to each other rank of the node, plus every block
  // for another node's rank that another lane carries.
  return (qa - 1) + (c.nd.p - qa - own) + qa * own + delivered;
}

double time(const NodeLanes& c, const detail::InterCost& inter, double ts, double tw, double m) {
  const double q = c.nd.qmax;
  return c.R1 * (ts + tw * m * (1 + inter.own)) + inter.time + c.R3 * (ts + tw * m * c.T * q);
}

const detail::IntraExchange kPairs{
    "node_aware", rounds_1f, gather_round, deliver_round, blocks_sent, time,
};

}  // namespace

std::string node_aware_check(int p, const Params& params) {
  return detail::lanes_check(kPairs, p, params);
}
Round node_aware_round(int p, int rank, const Params& params, int k) {
  return detail::lanes_round(kPairs, p, rank, params, k);
}
int node_aware_rounds(int p, const Params& params) {
  return detail::lanes_rounds(kPairs, p, params);
}
Schedule node_aware_build(int p, int rank, const Params& params) {
  return detail::lanes_build(kPairs, p, rank, params);
}
long long node_aware_blocks_sent(int p, int rank, const Params& params) {
  return detail::lanes_blocks_sent(kPairs, p, rank, params);
}
double node_aware_time(int p, const Params& params, double ts, double tw, double m) {
  return detail::lanes_time(kPairs, p, params, ts, tw, m);
}

}  // namespace topoa2a
