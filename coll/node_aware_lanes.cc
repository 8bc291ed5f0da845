// The lanes, phase 2 and the driver of the node-aware schedules
// (coll/node_aware_lanes.h; the algorithms in node_aware.cc and
// node_aware_log.cc).
#include "coll/node_aware_lanes.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace topoa2a::detail {
namespace {

Transfer& to_peer(std::vector<Transfer>& list, int peer) {
  for (Transfer& t : list)
    if (t.peer == peer) return t;
  list.push_back({peer, {}});
  return list.back();
}

// Phase 2, round t: every lane of this rank sends and receives its unit.
void inter_round(const NodeLanes& c, int rank, int t, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a);
  for (int v = nd.local[rank]; v < c.L; v += qa) {
    const NodeLanes::Unit u = c.unit(t, v);
    // With lane v of node o (not a): the blocks of node s's ranks for the
    // ranks of node d in the unit's part of d.
    auto add = [&](std::vector<Transfer>& list, int o, int s, int d) {
      if (o == a) return;
      const int qd = nd.size(d);
      const int first = part_begin(u.k, u.parts, qd), end = part_begin(u.k + 1, u.parts, qd);
      if (first >= end) return;
      Transfer& m = to_peer(list, nd.member(o, v % nd.size(o)));
      for (int l = first; l < end; ++l)
        for (int x = 0; x < nd.size(s); ++x) m.blocks.push_back({nd.member(s, x), nd.member(d, l)});
    };
    const int b = c.st.to(u.j, a), f = c.st.from(u.j, a);
    add(round->sends, b, a, b);
    add(round->recvs, f, f, a);
  }
}

Round round_of(const NodeLanes& c, int rank, int k) {
  Round round;
  if (k < c.R1)
    c.x->gather(c, rank, k, &round);
  else if (k < c.R1 + c.T)
    inter_round(c, rank, k - c.R1, &round);
  else
    c.x->deliver(c, rank, k - c.R1 - c.T, &round);
  return round;
}

NodeLoad node_load(const NodeLanes& c, int rank) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a);
  NodeLoad load{std::vector<long long>(qa, 0),
                std::vector<std::vector<long long>>(qa, std::vector<long long>(qa, 0))};
  for (int d = 0; d < nd.p; ++d)
    if (nd.node[d] != a) ++load.carries[nd.local[c.owner(a, d)]];
  for (int b = 0; b < nd.n; ++b) {
    if (b == a) continue;
    for (int l = 0; l < qa; ++l) {
      const int d = nd.member(a, l);
      load.got[nd.local[c.receiver(b, d)]][l] += nd.size(b);
    }
  }
  return load;
}

InterCost inter_cost(const NodeLanes& c, double ts, double tw, double m) {
  const double q = c.nd.qmax;
  const int split = c.R > 0 ? c.L / c.R : 1;
  const double last = c.R > 0 ? std::ceil(q / split) : 0;
  return {c.F * q + last, c.F * (ts + tw * m * q * q) + (c.R > 0 ? ts + tw * m * q * last : 0)};
}

}  // namespace

NodeLanes::NodeLanes(int p, const Params& params, const IntraExchange& exchange)
    : nd(nodes_of(p, params)), st(nd, params), x(&exchange) {
  L = std::max(1, nd.qmax);
  S = st.count();
  F = S / L;
  R = S - F * L;
  T = F + (R > 0);
  R1 = x->rounds(nd.qmax);
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

std::string lanes_check(const IntraExchange& x, int p, const Params& params) {
  const std::string why = layout_problem(p, params);
  return why.empty() ? why : std::string(x.name) + ": " + why;
}

int lanes_rounds(const IntraExchange& x, int p, const Params& params) {
  if (p <= 1) return 0;
  const NodeLanes c(p, params, x);
  return c.R1 + c.T + c.R3;
}

Round lanes_round(const IntraExchange& x, int p, int rank, const Params& params, int k) {
  return round_of(NodeLanes(p, params, x), rank, k);
}

// The rounds of round_of, with the node structure computed once.
Schedule lanes_build(const IntraExchange& x, int p, int rank, const Params& params) {
  Schedule s;
  if (p <= 1) return s;
  const NodeLanes c(p, params, x);
  for (int k = 0; k < c.R1 + c.T + c.R3; ++k) s.rounds.push_back(round_of(c, rank, k));
  return s;
}

long long lanes_blocks_sent(const IntraExchange& x, int p, int rank, const Params& params) {
  if (p <= 1) return 0;
  const NodeLanes c(p, params, x);
  return x.blocks_sent(c, node_load(c, rank), rank);
}

double lanes_time(const IntraExchange& x, int p, const Params& params, double ts, double tw,
                  double m) {
  if (p <= 1) return 0;
  const NodeLanes c(p, params, x);
  return x.time(c, inter_cost(c, ts, tw, m), ts, tw, m);
}

}  // namespace topoa2a::detail
