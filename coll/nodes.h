// The node structure of a communicator, shared by the node-aware schedules
// (node_aware, multileader): the ranks of each node, and the order in which
// the nodes exchange over the network. Pure functions of Params::layout.
#pragma once

#include <string>
#include <vector>

#include "coll/schedule.h"

namespace topoa2a {

// The ranks of each node, in rank order. Without a layout every rank is its
// own node.
struct Nodes {
  int p = 0;
  int n = 0;     // nodes
  int qmax = 0;  // most ranks on one node
  bool equal = true;
  std::vector<int> node;   // of each rank
  std::vector<int> local;  // index of each rank among the ranks of its node
  std::vector<int> start;  // the ranks of node a: members[start[a] .. start[a+1])
  std::vector<int> members;
  int size(int a) const { return start[a + 1] - start[a]; }
  int member(int a, int i) const { return members[start[a] + i]; }
};

// Empty when Params::layout fits p ranks (or is null), else why not.
std::string layout_problem(int p, const Params& params);
// Assumes layout_problem(p, params) is empty.
Nodes nodes_of(int p, const Params& params);

// Round i of the seed's 1-factor pairing of n: the partner of j (j itself:
// idle). n-1 rounds for even n, n for odd n.
int pair_1f(int n, int i, int j);
inline int rounds_1f(int n) { return n <= 1 ? 0 : (n % 2 == 1 ? n : n - 1); }

// The order of the inter-node phase: count() steps, each a permutation of
// the nodes; in step j node a sends to to(j, a) and receives from
// from(j, a) (a itself: a is idle in step j). Every ordered pair of
// distinct nodes meets in exactly one step.
//  - kXor: node a meets the node at endpoint e(a) XOR d_j: a power-of-two
//    number of nodes on a switch, fat tree, unknown network, dragonfly or
//    hypercube (e = the network endpoints where they number the nodes
//    0..n-1, else the node index). n-1 steps; d_j = j + 1, except on a
//    dragonfly, where d_j runs over 1..n-1 in bit-reversed order (n = 8:
//    4, 2, 6, 1, 5, 3, 7): consecutive steps differ in the high bits (the
//    group) first.
//  - kShift: ring / mesh / torus whose endpoints are exactly the nodes:
//    step j moves every node by one shift vector s_j (coordinates mod the
//    extents), a permutation with the same load on every node. The shifts
//    come as s, -s pairs (both directions of every link busy), sorted by
//    hop count, dimensions interleaved. n-1 steps.
//  - kOneFactor: anything else: the seed's 1-factor pairing of the node
//    indices (n-1 steps for even n; n for odd n, each node idle in one).
class NodeSteps {
 public:
  enum class Kind { kXor, kShift, kOneFactor };
  NodeSteps(const Nodes& nodes, const Params& params);
  Kind kind() const { return kind_; }
  int count() const { return count_; }
  int to(int j, int a) const;
  int from(int j, int a) const;
  int step_of(int a, int b) const;  // a != b

 private:
  int move(int a, int shift, int sign) const;
  Kind kind_ = Kind::kOneFactor;
  int n_ = 0;
  int count_ = 0;
  std::vector<int> ep_;       // endpoint of each node
  std::vector<int> node_at_;  // node at each endpoint
  std::vector<int> dims_;
  std::vector<int> xor_;            // kXor: XOR distance of each step
  std::vector<int> step_of_xor_;    // kXor: step of each distance
  std::vector<int> shift_;          // kShift: linear shift of each step
  std::vector<int> step_of_shift_;  // kShift: step of each linear shift
};

// "xor", "shift", "1-factor"
const char* to_string(NodeSteps::Kind k);

// Bruck's store-and-forward exchange among the T ranks of a team (team
// index 0..T-1, e.g. the ranks of one node): ceil(log2 T) rounds, for any
// T. In round k the member at index h sends one message to (h + 2^k) mod T
// and receives one from (h - 2^k) mod T: every item whose remaining
// distance (t - h) mod T has bit k set. An item of s for t with j = (t - s)
// mod T travels popcount(j) hops, so a member sends about half of what it
// holds per round: sum_{j<T} popcount(j) items (T = 16: 32) in log2 T
// messages, against T - 1 items in T - 1 messages for a direct exchange.
inline int bruck_rounds(int T) { return T <= 1 ? 0 : ilog2(T); }

// The blocks the member at index h sends in round k (to (h + 2^k) mod T);
// the member at (h + 2^k) mod T receives the same list in the same order.
// items(s, t, &blocks) appends what member s holds for member t at the
// start. The sender in round k of the item (s, t) is s + (j mod 2^k): the
// sources are s = h - r for r < 2^k, the offsets j = r + 2^k + i 2^(k+1) < T.
template <class Items>
std::vector<Block> bruck_message(int T, int h, int k, Items items) {
  std::vector<Block> out;
  if (k < 0 || k >= bruck_rounds(T)) return out;
  const int step = 1 << k;
  for (int r = 0; r < step && r < T; ++r) {
    const int s = mod(h - r, T);
    for (int j = r + step; j < T; j += 2 * step) items(s, mod(s + j, T), &out);
  }
  return out;
}

// Blocks member h sends over the whole exchange: each item once per hop
// it leaves h (an independent count of what bruck_message sends).
// size(s, t): the blocks of item (s, t).
template <class Size>
long long bruck_blocks_sent(int T, int h, Size size) {
  long long total = 0;
  for (int s = 0; s < T; ++s)
    for (int j = 1; j < T; ++j)
      for (int k = 0; (1 << k) <= j; ++k)
        if ((j >> k) & 1 && mod(s + (j & ((1 << k) - 1)), T) == h) total += size(s, mod(s + j, T));
  return total;
}

// Items sent per member in round k when every item has the same size:
// #{j < T : bit k of j}.
inline int bruck_items(int T, int k) {
  int c = 0;
  for (int j = 1; j < T; ++j) c += (j >> k) & 1;
  return c;
}

}  // namespace topoa2a
