// The skeleton shared by the three-phase node-aware schedules (node_aware,
// node_aware_log; their files describe the algorithms): the lanes that
// carry each node's blocks over the network, the inter-node phase 2, and
// the driver that puts phase 1 (gather inside the node), phase 2 and
// phase 3 (deliver inside the node) together. The algorithms differ only
// in the intra-node exchange of phases 1 and 3 (IntraExchange). Internal
// to coll/.
#pragma once

#include <string>
#include <vector>

#include "coll/nodes.h"
#include "coll/schedule.h"

namespace topoa2a::detail {

struct NodeLanes;

// What the ranks of `rank`'s node a move, for blocks_sent: carries[t] is
// node a's blocks for other nodes that its rank t sends over the network,
// got[s][t] the blocks its rank s receives for its rank t.
struct NodeLoad {
  std::vector<long long> carries;
  std::vector<std::vector<long long>> got;
};

// Phase 2 priced for time(), nodes of q = qmax ranks: `own` is the blocks
// a lane carries over the whole phase (q per step, or q / (lanes of the
// step) when the last round splits its steps), `time` the phase's time.
struct InterCost {
  double own;
  double time;
};

// How the ranks of one node exchange in phases 1 and 3: the difference
// between the algorithms.
struct IntraExchange {
  const char* name;      // the algorithm's name, for check()
  int (*rounds)(int q);  // rounds among q ranks
  // Phase 1 / phase 3, round k, of `rank`.
  void (*gather)(const NodeLanes& c, int rank, int k, Round* round);
  void (*deliver)(const NodeLanes& c, int rank, int k, Round* round);
  // The algorithm's blocks_sent (p > 1) from what rank's node moves, and
  // its time from phase 2's.
  long long (*blocks_sent)(const NodeLanes& c, const NodeLoad& load, int rank);
  double (*time)(const NodeLanes& c, const InterCost& inter, double ts, double tw, double m);
};

// The lanes of a communicator's nodes and the rounds of the three phases.
struct NodeLanes {
  Nodes nd;
  NodeSteps st;
  const IntraExchange* x;
  int L = 1, S = 0, F = 0, R = 0, T = 0, R1 = 0, R3 = 0;
  std::vector<int> lo;     // last round: the lanes of its step g are [lo[g], lo[g+1])
  std::vector<int> group;  // last round: the step (g) of each lane

  NodeLanes(int p, const Params& params, const IntraExchange& exchange);
  // Step, part and parts of lane v in inter-node round t.
  struct Unit {
    int j, k, parts;
  };
  Unit unit(int t, int v) const {
    if (t < F) return {t * L + v, 0, 1};
    const int g = group[v];
    return {F * L + g, v - lo[g], lo[g + 1] - lo[g]};
  }
  // The lane that carries, in step j, the blocks for local index l of a
  // node of qb ranks: part l * parts / qb of the step's lanes.
  int lane(int j, int l, int qb) const {
    if (j < F * L) return j % L;
    const int g = j - F * L;
    const int parts = lo[g + 1] - lo[g];
    return lo[g] + static_cast<int>(1LL * l * parts / qb);
  }
  int lane_of_block(int a, int d) const {
    const int b = nd.node[d];
    return lane(st.step_of(a, b), nd.local[d], nd.size(b));
  }
  // The rank of node a that sends node a's blocks for d over the network,
  // and the rank of d's node that receives them.
  int owner(int a, int d) const { return nd.member(a, lane_of_block(a, d) % nd.size(a)); }
  int receiver(int a, int d) const {
    const int b = nd.node[d];
    return nd.member(b, lane_of_block(a, d) % nd.size(b));
  }
};

// Destination local indices [first, end) of part k of `parts` of qb ranks.
inline int part_begin(int k, int parts, int qb) {
  return static_cast<int>((1LL * k * qb + parts - 1) / parts);
}

// Calls f(b, first, end) for each unit of lane rank x of node a: the
// blocks its node sends to the ranks [first, end) of node b (local indices)
// over the network; `incoming`: the units x receives instead, f(source node,
// first, end) with [first, end) local indices of node a.
template <class F>
void for_each_unit(const NodeLanes& c, int x, bool incoming, F f) {
  const Nodes& nd = c.nd;
  const int a = nd.node[x], qa = nd.size(a);
  for (int t = 0; t < c.T; ++t) {
    for (int v = nd.local[x]; v < c.L; v += qa) {
      const NodeLanes::Unit u = c.unit(t, v);
      const int b = incoming ? c.st.from(u.j, a) : c.st.to(u.j, a);
      if (b == a) continue;
      const int q = incoming ? qa : nd.size(b);
      const int first = part_begin(u.k, u.parts, q), end = part_begin(u.k + 1, u.parts, q);
      if (first < end) f(b, first, end);
    }
  }
}

// The driver: the algorithm's entries of the table (coll/algorithms.h).
std::string lanes_check(const IntraExchange& x, int p, const Params& params);
int lanes_rounds(const IntraExchange& x, int p, const Params& params);
Round lanes_round(const IntraExchange& x, int p, int rank, const Params& params, int k);
Schedule lanes_build(const IntraExchange& x, int p, int rank, const Params& params);
long long lanes_blocks_sent(const IntraExchange& x, int p, int rank, const Params& params);
double lanes_time(const IntraExchange& x, int p, const Params& params, double ts, double tw,
                  double m);

}  // namespace topoa2a::detail
