// Schedules: the plain-data description of an all-to-all algorithm.
//
// Block (s, d) is the message that rank s sends to rank d (sendcount elements
// of sendtype on s, recvcount elements of recvtype on d). A schedule lists,
// for one rank, the rounds of an algorithm: in each round the transfers this
// rank sends and the transfers it receives, each naming the peer and the
// blocks the message carries, in message order. Blocks may travel through
// intermediate ranks (store-and-forward). The block (r, r) never moves: the
// executor copies it locally.
//
// Schedules are pure functions of (p, rank, parameters): no MPI here. The
// same data drives the executor, the tests and any simulator.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topoa2a {

struct Block {
  int src = 0;
  int dst = 0;
  friend bool operator==(const Block& a, const Block& b) {
    return a.src == b.src && a.dst == b.dst;
  }
  friend bool operator!=(const Block& a, const Block& b) { return !(a == b); }
};

struct Transfer {
  int peer = -1;
  std::vector<Block> blocks;  // message order
};

// Several sends / receives in one round run concurrently. Two transfers
// between the same pair of ranks in one round are matched in list order.
struct Round {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  bool idle() const { return sends.empty() && recvs.empty(); }
};

struct Schedule {
  std::vector<Round> rounds;  // an idle round stays in the list (seed's count)
};

// A logical rows x cols process grid; rank = row * cols + col.
struct Grid {
  int rows = 0;
  int cols = 0;
  // In 64 bits: rows * cols of two ints cannot overflow.
  bool valid_for(int p) const {
    return rows > 0 && cols > 0 && static_cast<int64_t>(rows) * cols == p;
  }
};

// The network between the nodes, as the node-aware algorithms see it.
enum class NodeNet : std::uint8_t {
  kSwitch,     // switch, fat tree or unknown: any pairing of nodes is contention-free
  kRing,       // 1-D torus of nodes
  kMesh,       // k-D mesh of nodes (no wrap-around)
  kTorus,      // k-D torus of nodes
  kHypercube,  // binary hypercube of nodes
  kDragonfly,  // groups of nodes (dims = {groups, nodes per group})
};

// Where the ranks of a communicator run: the node of each rank and the
// network between the nodes. Built once per communicator (make_node_layout)
// and shared by the Params of every call on it.
struct NodeLayout {
  int nodes = 0;
  std::vector<int> node_of_rank;  // 0..nodes-1 by first appearance; any numbering of ranks
  NodeNet net = NodeNet::kSwitch;
  std::vector<int> dims;              // extents (ring / mesh / torus / hypercube / dragonfly)
  std::vector<int> endpoint_of_node;  // row-major endpoint of each node; empty: unknown
  std::uint64_t hash = 0;             // of all the above (plan cache keys)
};

// node_of_rank: any non-negative ids (renumbered by first appearance).
// endpoint_of_rank: the network endpoint of each rank (the same for the
// ranks of one node), or empty; where it is inconsistent or incomplete the
// coordinates are dropped (the node-aware algorithms then pair nodes as on
// a switch). Returns null when node_of_rank is empty or has a negative id.
std::shared_ptr<const NodeLayout> make_node_layout(const std::vector<int>& node_of_rank,
                                                   NodeNet net = NodeNet::kSwitch,
                                                   std::vector<int> dims = {},
                                                   const std::vector<int>& endpoint_of_rank = {});

// The network a schedule may be ordered for (direct_scheduled).
enum class Fabric {
  kSwitch,     // switch, fat tree or unknown
  kTorus,      // torus or mesh: Params::dims are its extents
  kDragonfly,  // Params::dims = {groups, ranks per group}
};

// Algorithm parameters. A zero grid means "choose the default".
struct Params {
  Params(Grid g = {}, std::shared_ptr<const NodeLayout> l = nullptr, int k = 0)
      : grid(g), layout(std::move(l)), leaders(k) {}
  Grid grid;
  // The node layout (node_aware, multileader); null: unknown, one rank per node.
  std::shared_ptr<const NodeLayout> layout;
  // multileader: leaders per node (MPIR_CVAR_TOPOA2A_LEADERS); 0: the default.
  int leaders = 0;
  // torus: the extents of the process grid (row-major: the last varies
  // fastest), empty for the default; direct_scheduled: see fabric.
  std::vector<int> dims;
  Fabric fabric = Fabric::kSwitch;

  static Params of_grid(Grid g) {
    Params p;
    p.grid = g;
    return p;
  }
  static Params of_dims(std::vector<int> d, Fabric f = Fabric::kSwitch) {
    Params p;
    p.dims = std::move(d);
    p.fabric = f;
    return p;
  }
};

inline int mod(int a, int p) {
  int r = a % p;
  return r < 0 ? r + p : r;
}

inline bool is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }

inline int ilog2(int p) {
  int l = 0;
  while ((int64_t{1} << l) < p) ++l;
  return l;
}

// The factorisation rows x cols = p closest to square, rows <= cols.
Grid default_grid(int p);

// Parse "RxC" (e.g. "4x2"): two positive decimal integers whose product is
// at most INT_MAX (a communicator size). Returns false on malformed or
// out-of-range text, with the reason in *why when given.
bool parse_grid(const std::string& text, Grid* out, std::string* why = nullptr);

}  // namespace topoa2a
