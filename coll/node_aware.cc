// node_aware, node_aware_log: three-phase all-to-all over the nodes of the communicator,
// every rank of a node a lane to the other nodes.
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
// node_aware_log: the same three phases with the two intra-node phases
// done by Bruck's store-and-forward exchange among the node's ranks
// (coll/nodes.h bruck_message) instead of the 1-factor pairing: in round k
// local rank i sends one message to local rank (i + 2^k) mod q carrying
// every item (what the direct phase would send from s to t) whose
// remaining distance (t - i) mod q has bit k set. Any q (the last round of
// a non-power of two is partial), unequal nodes (a node of q_a ranks runs
// ceil(log2 q_a) rounds), any numbering of ranks, as above.
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
#include <algorithm>
#include <cmath>

#include "coll/algorithms.h"
#include "coll/nodes.h"

namespace topoa2a {
namespace {

struct Ctx {
  Nodes nd;
  NodeSteps st;
  int L = 1, S = 0, F = 0, R = 0, T = 0, R1 = 0, R3 = 0;
  std::vector<int> lo;     // last round: the lanes of its step g are [lo[g], lo[g+1])
  std::vector<int> group;  // last round: the step (g) of each lane

  bool log = false;  // node_aware_log: Bruck exchanges inside the node

  Ctx(int p, const Params& params, bool log_intra)
      : nd(nodes_of(p, params)), st(nd, params), log(log_intra) {
    L = std::max(1, nd.qmax);
    S = st.count();
    F = S / L;
    R = S - F * L;
    T = F + (R > 0);
    R1 = log ? bruck_rounds(nd.qmax) : rounds_1f(nd.qmax);
    const bool exact = nd.n == 2 && nd.equal;  // every lane receives its own blocks
    R3 = (nd.qmax <= 1 || nd.n <= 1 || exact) ? 0 : R1;
    if (R > 0) {
      lo.resize(R + 1);
      for (int g = 0; g <= R; ++g) lo[g] = static_cast<int>(1LL * g * L / R);
      group.resize(L);
      for (int g = 0; g < R; ++g)
        for (int v = lo[g]; v < lo[g + 1]; ++v) group[v] = g;
    }
  }
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
int part_begin(int k, int parts, int qb) {
  return static_cast<int>((1LL * k * qb + parts - 1) / parts);
}

Transfer& to_peer(std::vector<Transfer>& list, int peer) {
  for (Transfer& t : list)
    if (t.peer == peer) return t;
  list.push_back({peer, {}});
  return list.back();
}

// Calls f(b, first, end) for each unit of lane rank x of node a: the
// blocks its node sends to the ranks [first, end) of node b (local indices)
// over the network; `incoming`: the units x receives instead, f(source node,
// first, end) with [first, end) local indices of node a.
template <class F>
void for_each_unit(const Ctx& c, int x, bool incoming, F f) {
  const Nodes& nd = c.nd;
  const int a = nd.node[x], qa = nd.size(a);
  for (int t = 0; t < c.T; ++t) {
    for (int v = nd.local[x]; v < c.L; v += qa) {
      const Ctx::Unit u = c.unit(t, v);
      const int b = incoming ? c.st.from(u.j, a) : c.st.to(u.j, a);
      if (b == a) continue;
      const int q = incoming ? qa : nd.size(b);
      const int first = part_begin(u.k, u.parts, q), end = part_begin(u.k + 1, u.parts, q);
      if (first < end) f(b, first, end);
    }
  }
}

// Phase 1, round k: exchange with the node's rank paired in round k.
void gather_round(const Ctx& c, int rank, int k, Round* round) {
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

// Phase 2, round t: every lane of this rank sends and receives its unit.
void inter_round(const Ctx& c, int rank, int t, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a);
  for (int v = nd.local[rank]; v < c.L; v += qa) {
    const Ctx::Unit u = c.unit(t, v);
    const int b = c.st.to(u.j, a);
    if (b != a) {
      const int qb = nd.size(b);
      const int end = part_begin(u.k + 1, u.parts, qb);
      if (part_begin(u.k, u.parts, qb) < end) {
        Transfer& s = to_peer(round->sends, nd.member(b, v % qb));
        for (int l = part_begin(u.k, u.parts, qb); l < end; ++l)
          for (int x = 0; x < qa; ++x) s.blocks.push_back({nd.member(a, x), nd.member(b, l)});
      }
    }
    const int f = c.st.from(u.j, a);
    if (f != a) {
      const int qf = nd.size(f);
      const int end = part_begin(u.k + 1, u.parts, qa);
      if (part_begin(u.k, u.parts, qa) < end) {
        Transfer& r = to_peer(round->recvs, nd.member(f, v % qf));
        for (int l = part_begin(u.k, u.parts, qa); l < end; ++l)
          for (int x = 0; x < qf; ++x) r.blocks.push_back({nd.member(f, x), nd.member(a, l)});
      }
    }
  }
}

// Phase 3, round k: deliver to the node's rank paired in round k what this
// lane received for it, and receive from it what it received for us.
void deliver_round(const Ctx& c, int rank, int k, Round* round) {
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

// node_aware_log, phase 1, round k: Bruck's exchange among the node's
// ranks (coll/nodes.h); the item of rank s for rank t of the node is what
// the direct phase 1 sends t: s's own block for t, then s's blocks for the
// destinations t's lanes carry.
void gather_log(const Ctx& c, int rank, int k, Round* round) {
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
void deliver_log(const Ctx& c, int rank, int k, Round* round) {
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
}  // namespace

namespace {
std::string check(const char* name, int p, const Params& params) {
  const std::string why = layout_problem(p, params);
  return why.empty() ? why : std::string(name) + ": " + why;
}

Round round_of(const Ctx& c, int rank, int k) {
  Round round;
  if (k < c.R1)
    (c.log ? gather_log : gather_round)(c, rank, k, &round);
  else if (k < c.R1 + c.T)
    inter_round(c, rank, k - c.R1, &round);
  else
    (c.log ? deliver_log : deliver_round)(c, rank, k - c.R1 - c.T, &round);
  return round;
}

int rounds(int p, const Params& params, bool log) {
  if (p <= 1) return 0;
  const Ctx c(p, params, log);
  return c.R1 + c.T + c.R3;
}

// The rounds of round_of, with the node structure computed once.
Schedule build(int p, int rank, const Params& params, bool log) {
  Schedule s;
  if (p <= 1) return s;
  const Ctx c(p, params, log);
  for (int k = 0; k < c.R1 + c.T + c.R3; ++k) s.rounds.push_back(round_of(c, rank, k));
  return s;
}

long long blocks_sent(int p, int rank, const Params& params, bool log) {
  if (p <= 1) return 0;
  const Ctx c(p, params, log);
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a), i = nd.local[rank];
  // carries[t]: node a's blocks for other nodes that its rank t sends over
  // the network; got[s][t]: blocks rank s of node a receives for rank t.
  std::vector<long long> carries(qa, 0);
  std::vector<std::vector<long long>> got(qa, std::vector<long long>(qa, 0));
  for (int d = 0; d < p; ++d)
    if (nd.node[d] != a) ++carries[nd.local[c.owner(a, d)]];
  for (int b = 0; b < nd.n; ++b) {
    if (b == a) continue;
    for (int l = 0; l < qa; ++l) {
      const int d = nd.member(a, l);
      got[nd.local[c.receiver(b, d)]][l] += nd.size(b);
    }
  }
  const long long own = carries[i];
  if (c.log) {
    // Phase 1's item (s, t): s's block for t and for what t carries.
    const long long gather = bruck_blocks_sent(qa, i, [&](int, int t) { return 1 + carries[t]; });
    const long long deliver =
        c.R3 > 0 ? bruck_blocks_sent(qa, i, [&](int s, int t) { return got[s][t]; }) : 0;
    return gather + qa * own + deliver;
  }
  long long delivered = 0;  // phase 3: what this lane received for the others
  for (int t = 0; t < qa; ++t)
    if (t != i) delivered += got[i][t];
  // Phase 1: one own block to each other rank of the node, plus every block
  // for another node's rank that another lane carries.
  return (qa - 1) + (p - qa - own) + qa * own + delivered;
}

double time(int p, const Params& params, double ts, double tw, double m, bool log) {
  if (p <= 1) return 0;
  const Ctx c(p, params, log);
  const int qi = c.nd.qmax;
  const double q = qi;
  // Blocks a lane carries per step: q, or q / (lanes of the step) when the
  // last round splits its steps.
  const int split = c.R > 0 ? c.L / c.R : 1;
  const double last = c.R > 0 ? std::ceil(q / split) : 0;
  const double own = c.F * q + last;
  const double inter = c.F * (ts + tw * m * q * q) + (c.R > 0 ? ts + tw * m * q * last : 0);
  if (!log) return c.R1 * (ts + tw * m * (1 + own)) + inter + c.R3 * (ts + tw * m * c.T * q);
  // Round k of a Bruck exchange moves bruck_items(q, k) items per rank.
  double t = inter;
  for (int k = 0; k < c.R1; ++k) t += ts + tw * m * bruck_items(qi, k) * (1 + own);
  for (int k = 0; k < c.R3; ++k) t += ts + tw * m * bruck_items(qi, k) * c.T * q;
  return t;
}
}  // namespace

std::string node_aware_check(int p, const Params& params) { return check("node_aware", p, params); }
Round node_aware_round(int p, int rank, const Params& params, int k) {
  return round_of(Ctx(p, params, false), rank, k);
}
int node_aware_rounds(int p, const Params& params) { return rounds(p, params, false); }
Schedule node_aware_build(int p, int rank, const Params& params) {
  return build(p, rank, params, false);
}
long long node_aware_blocks_sent(int p, int rank, const Params& params) {
  return blocks_sent(p, rank, params, false);
}
double node_aware_time(int p, const Params& params, double ts, double tw, double m) {
  return time(p, params, ts, tw, m, false);
}

std::string node_aware_log_check(int p, const Params& params) {
  return check("node_aware_log", p, params);
}
Round node_aware_log_round(int p, int rank, const Params& params, int k) {
  return round_of(Ctx(p, params, true), rank, k);
}
int node_aware_log_rounds(int p, const Params& params) { return rounds(p, params, true); }
Schedule node_aware_log_build(int p, int rank, const Params& params) {
  return build(p, rank, params, true);
}
long long node_aware_log_blocks_sent(int p, int rank, const Params& params) {
  return blocks_sent(p, rank, params, true);
}
double node_aware_log_time(int p, const Params& params, double ts, double tw, double m) {
  return time(p, params, ts, tw, m, true);
}

}  // namespace topoa2a
