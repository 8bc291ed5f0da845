// multileader: k leaders per node gather, exchange across nodes, scatter.
//
// Reference: MPICH's ch4 multi-leader all-to-all composition (pmodels/mpich
// PR 3769, MPIDI_Alltoall_intra_composition_alpha; not in MPICH 4.0.2):
// the ranks of a node place their blocks for the other nodes in a shared
// buffer, then every rank leads: leader i exchanges with leader i of every
// other node the blocks of its whole node for rank i of that node. Here the
// same scheme as a schedule, with k leaders per node (Params::leaders,
// MPIR_CVAR_TOPOA2A_LEADERS; 0 = every rank leads, MPICH's choice, which
// needs no scatter): the q ranks of a node form k groups of consecutive
// local indices, the first rank of each group its leader.
//  A. intra-node (1-factor pairing of the node's ranks): every rank sends
//     each other rank of its node its own block for it (intra-node blocks
//     go directly) and, to leader g, its blocks for the members of group g
//     on every other node.
//  B. inter-node (the node steps of coll/nodes.h, one per round: XOR,
//     1-factor or shift order as for node_aware): leader g of each node
//     sends leader g of the partner node one message with its node's
//     blocks for that group, q x q/k blocks.
//  C. scatter: leader g sends each other member of its group, one per
//     round, what it received for it from the other nodes (p - q blocks).
// Unequal nodes: node a has k_a = min(k, q_a) groups; the blocks for group
// g of node b are gathered by leader g mod k_a of node a.
// Rounds (S node steps as in node_aware): R1 + S + (q/k - 1), R1 = q-1
// (even q) or q (odd q); ceil(q_a/k_a) - 1 scatter rounds for the largest
// group, none on a single node.
// Blocks sent per rank, equal nodes, G = q/k: a leader (q-1) + (p-q) -
// (N-1)G + q(N-1)G + (G-1)(p-q); any other rank (q-1) + (p-q).
// Time: R1 (t_s + t_w m (1 + (N-1)G)) + S (t_s' + t_w' m q G)
//       + (G-1)(t_s + t_w m (p-q)), primes for the network's costs.
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
  int k = 1, S = 0, R1 = 0, RC = 0;
  Ctx(int p, const Params& params) : nd(nodes_of(p, params)), st(nd, params) {
    k = params.leaders > 0 ? params.leaders : std::max(1, nd.qmax);
    S = st.count();
    R1 = rounds_1f(nd.qmax);
    for (int a = 0; a < nd.n && nd.n > 1; ++a) {
      const int qa = nd.size(a), ka = leaders(a);
      RC = std::max(RC, (qa + ka - 1) / ka - 1);
    }
  }
  int leaders(int a) const { return std::min(k, nd.size(a)); }
  // Groups of node a: local indices [first(a, g), first(a, g+1)).
  int first(int a, int g) const {
    const int ka = leaders(a);
    return static_cast<int>((1LL * g * nd.size(a) + ka - 1) / ka);
  }
  int group(int a, int l) const { return static_cast<int>(1LL * l * leaders(a) / nd.size(a)); }
  int leader(int a, int g) const { return nd.member(a, first(a, g)); }
  // The leader of node a that gathers node a's blocks for d.
  int gatherer(int a, int d) const {
    const int b = nd.node[d];
    return leader(a, group(b, nd.local[d]) % leaders(a));
  }
};

// Calls f(d) for each block of node a that leader x gathers (its
// destination d on another node), in rank order of the nodes.
template <class F>
void for_each_gathered(const Ctx& c, int x, F f) {
  const Nodes& nd = c.nd;
  const int a = nd.node[x], h = c.group(a, nd.local[x]);
  if (c.first(a, h) != nd.local[x]) return;  // not a leader
  for (int b = 0; b < nd.n; ++b) {
    if (b == a) continue;
    for (int g = h; g < c.leaders(b); g += c.leaders(a))
      for (int l = c.first(b, g); l < c.first(b, g + 1); ++l) f(nd.member(b, l));
  }
}

void gather_round(const Ctx& c, int rank, int k, Round* round) {
  const int a = c.nd.node[rank], qa = c.nd.size(a), i = c.nd.local[rank];
  if (k >= rounds_1f(qa)) return;
  const int pi = pair_1f(qa, k, i);
  if (pi == i) return;
  const int x = c.nd.member(a, pi);
  Transfer send{x, {{rank, x}}}, recv{x, {{x, rank}}};
  for_each_gathered(c, x, [&](int d) { send.blocks.push_back({rank, d}); });
  for_each_gathered(c, rank, [&](int d) { recv.blocks.push_back({x, d}); });
  round->sends.push_back(std::move(send));
  round->recvs.push_back(std::move(recv));
}

void exchange_round(const Ctx& c, int rank, int j, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a), l = nd.local[rank];
  const int h = c.group(a, l);
  if (c.first(a, h) != l) return;  // not a leader
  const int b = c.st.to(j, a);
  if (b != a) {
    for (int g = h; g < c.leaders(b); g += c.leaders(a)) {
      Transfer s{c.leader(b, g), {}};
      for (int x = c.first(b, g); x < c.first(b, g + 1); ++x)
        for (int y = 0; y < qa; ++y) s.blocks.push_back({nd.member(a, y), nd.member(b, x)});
      round->sends.push_back(std::move(s));
    }
  }
  const int f = c.st.from(j, a);
  if (f != a) {
    Transfer r{c.leader(f, h % c.leaders(f)), {}};
    for (int x = c.first(a, h); x < c.first(a, h + 1); ++x)
      for (int y = 0; y < nd.size(f); ++y) r.blocks.push_back({nd.member(f, y), nd.member(a, x)});
    round->recvs.push_back(std::move(r));
  }
}

void scatter_round(const Ctx& c, int rank, int k, Round* round) {
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], l = nd.local[rank];
  const int h = c.group(a, l), first = c.first(a, h);
  auto remote = [&](int d) {
    std::vector<Block> blocks;
    for (int s = 0; s < nd.p; ++s)
      if (nd.node[s] != a) blocks.push_back({s, d});
    return blocks;
  };
  if (l == first) {
    const int t = first + 1 + k;
    if (t < c.first(a, h + 1)) round->sends.push_back({nd.member(a, t), remote(nd.member(a, t))});
  } else if (l - first - 1 == k) {
    round->recvs.push_back({nd.member(a, first), remote(rank)});
  }
}

}  // namespace

std::string multileader_check(int p, const Params& params) {
  if (params.leaders < 0)
    return "multileader: leaders per node must be positive (or 0, the default), not " +
           std::to_string(params.leaders);
  const std::string why = layout_problem(p, params);
  return why.empty() ? why : "multileader: " + why;
}

namespace {
Round round_of(const Ctx& c, int rank, int k) {
  Round round;
  if (k < c.R1)
    gather_round(c, rank, k, &round);
  else if (k < c.R1 + c.S)
    exchange_round(c, rank, k - c.R1, &round);
  else
    scatter_round(c, rank, k - c.R1 - c.S, &round);
  return round;
}
}  // namespace

Round multileader_round(int p, int rank, const Params& params, int k) {
  return round_of(Ctx(p, params), rank, k);
}

int multileader_rounds(int p, const Params& params) {
  if (p <= 1) return 0;
  const Ctx c(p, params);
  return c.R1 + c.S + c.RC;
}

// The rounds of multileader_round, with the node structure computed once.
Schedule multileader_build(int p, int rank, const Params& params) {
  Schedule s;
  if (p <= 1) return s;
  const Ctx c(p, params);
  for (int k = 0; k < c.R1 + c.S + c.RC; ++k) s.rounds.push_back(round_of(c, rank, k));
  return s;
}

long long multileader_blocks_sent(int p, int rank, const Params& params) {
  if (p <= 1) return 0;
  const Ctx c(p, params);
  const Nodes& nd = c.nd;
  const int a = nd.node[rank], qa = nd.size(a), l = nd.local[rank];
  long long own = 0;
  for (int d = 0; d < p; ++d)
    if (nd.node[d] != a && c.gatherer(a, d) == rank) ++own;
  const int h = c.group(a, l);
  const long long scatter = c.first(a, h) == l ? 1LL * (c.first(a, h + 1) - l - 1) * (p - qa) : 0;
  return (qa - 1) + (p - qa - own) + qa * own + scatter;
}

double multileader_time(int p, const Params& params, double ts, double tw, double m) {
  if (p <= 1) return 0;
  const Ctx c(p, params);
  const double q = c.nd.qmax, n = c.nd.n;
  const double g = std::ceil(q / std::min<double>(c.k, q));  // largest group
  return c.R1 * (ts + tw * m * (1 + (n - 1) * g)) + c.S * (ts + tw * m * q * g) +
         c.RC * (ts + tw * m * (p - q));
}

}  // namespace topoa2a
