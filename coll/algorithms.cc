#include "coll/algorithms.h"

#include <climits>
#include <cstdint>

namespace topoa2a {

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> table = {
      {AlgorithmId::kRing, "ring",
       "store-and-forward ring: p-1 rounds to the right neighbour, each forwarding what is not "
       "for it",
       "none", false, true, ring_check, ring_build, ring_rounds, ring_blocks_sent, ring_time,
       ring_round, nullptr},
      {AlgorithmId::kRingBidir, "ring_bidir",
       "bidirectional ring: half of the blocks travel each way, ceil((p-1)/2) rounds", "none",
       false, false, ring_bidir_check, ring_bidir_build, ring_bidir_rounds, ring_bidir_blocks_sent,
       ring_bidir_time, ring_bidir_round, nullptr},
      {AlgorithmId::kMesh, "mesh",
       "two-phase mesh: ring all-to-all along each row of an r x c grid, then along each column",
       "grid rows*cols must equal p", false, false, mesh_check, mesh_build, mesh_rounds,
       mesh_blocks_sent, mesh_time, mesh_round, nullptr},
      {AlgorithmId::kHypercube, "hypercube",
       "hypercube: log2(p) rounds, each exchanging the half of the data bound for the other "
       "subcube",
       "p must be a power of two", false, false, hypercube_check, hypercube_build, hypercube_rounds,
       hypercube_blocks_sent, hypercube_time, hypercube_round, nullptr},
      {AlgorithmId::kOneFactor, "onefactor",
       "1-factor pairing (odd/even rule): p-1 (even p) or p (odd p) direct pairwise exchanges",
       "none", true, true, onefactor_check, onefactor_build, onefactor_rounds,
       onefactor_blocks_sent, onefactor_time, onefactor_round, nullptr},
      {AlgorithmId::kOneFactorXor, "onefactor_xor",
       "1-factor pairing j XOR i: p-1 direct pairwise exchanges", "p must be a power of two", true,
       false, onefactor_xor_check, onefactor_xor_build, onefactor_xor_rounds,
       onefactor_xor_blocks_sent, onefactor_xor_time, onefactor_xor_round,
       onefactor_xor_product_on},
      {AlgorithmId::kNodeAware, "node_aware",
       "node-aware: gather by lane inside each node, every rank exchanges one aggregated message "
       "per node pair with its counterparts on the other nodes, deliver inside the node",
       "none (node layout of the communicator)", false, true, node_aware_check, node_aware_build,
       node_aware_rounds, node_aware_blocks_sent, node_aware_time, node_aware_round, nullptr},
      {AlgorithmId::kMultiLeader, "multileader",
       "multi-leader (MPICH ch4 composition): k leaders per node gather, exchange across nodes, "
       "scatter (MPIR_CVAR_TOPOA2A_LEADERS)",
       "none (node layout of the communicator)", false, true, multileader_check, multileader_build,
       multileader_rounds, multileader_blocks_sent, multileader_time, multileader_round, nullptr},
      {AlgorithmId::kTorus, "torus",
       "d-dimensional torus: bidirectional ring all-to-alls along each dimension, one lane of "
       "the blocks per dimension so that all dimensions work at once",
       "dimensions must multiply to p", false, false, torus_check, torus_build, torus_rounds,
       torus_blocks_sent, torus_time, torus_round, nullptr},
      {AlgorithmId::kDirectScheduled, "direct_scheduled",
       "direct exchange, one peer per round, in an order that loads the network's links evenly "
       "(torus shifts, dragonfly group offsets, XOR pairing)",
       "none", true, true, direct_scheduled_check, direct_scheduled_build, direct_scheduled_rounds,
       direct_scheduled_blocks_sent, direct_scheduled_time, direct_scheduled_round,
       direct_scheduled_product_on},
      {AlgorithmId::kNodeAwareLog, "node_aware_log",
       "node_aware with log-round phases inside the node: Bruck's store-and-forward exchange, "
       "ceil(log2 q) messages per rank and phase instead of q-1 (small blocks)",
       "none (node layout of the communicator)", false, true, node_aware_log_check,
       node_aware_log_build, node_aware_log_rounds, node_aware_log_blocks_sent, node_aware_log_time,
       node_aware_log_round, nullptr},
  };
  return table;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

const Algorithm& algorithm(AlgorithmId id) { return algorithms()[static_cast<size_t>(id)]; }

std::string algorithm_names(bool alltoallv_only) {
  std::string out;
  for (const Algorithm& a : algorithms()) {
    if (alltoallv_only && !a.alltoallv) continue;
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

Params resolve_params(int p, Params params) {
  if (params.grid.rows == 0 && params.grid.cols == 0) params.grid = default_grid(p);
  return params;
}

Grid default_grid(int p) {
  Grid g{1, p > 0 ? p : 1};
  for (int64_t r = 1; r * r <= p; ++r)
    if (p % r == 0) g = Grid{static_cast<int>(r), static_cast<int>(p / r)};
  return g;
}

namespace {
// A decimal number of up to 18 digits (no sign, no blanks) into *out.
bool parse_decimal(const std::string& s, size_t b, size_t e, int64_t* out) {
  if (b >= e || e - b > 18) return false;
  int64_t v = 0;
  for (size_t i = b; i < e; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}
}  // namespace

bool parse_grid(const std::string& text, Grid* out, std::string* why) {
  auto fail = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const size_t x = text.find_first_of("xX");
  int64_t r = 0, c = 0;
  if (x == std::string::npos || text.find_first_of("xX", x + 1) != std::string::npos)
    return fail("expected ROWSxCOLS, e.g. 4x2");
  // More than 18 digits is out of range whatever they are.
  auto digits = [&](size_t b, size_t e) {
    if (b >= e) return false;
    for (size_t i = b; i < e; ++i)
      if (text[i] < '0' || text[i] > '9') return false;
    return true;
  };
  if (!digits(0, x) || !digits(x + 1, text.size())) return fail("expected ROWSxCOLS, e.g. 4x2");
  const std::string range = "ROWS and COLS must be positive and ROWS*COLS at most " +
                            std::to_string(INT_MAX) + " (a communicator size)";
  if (!parse_decimal(text, 0, x, &r) || !parse_decimal(text, x + 1, text.size(), &c) ||
      r > INT_MAX || c > INT_MAX)
    return fail("out of range: " + range);
  if (r <= 0 || c <= 0) return fail(range);
  if (r * c > INT_MAX) return fail("out of range: " + range);  // both <= INT_MAX: no overflow
  *out = Grid{static_cast<int>(r), static_cast<int>(c)};
  return true;
}

}  // namespace topoa2a
