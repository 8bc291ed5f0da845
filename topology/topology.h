// What a communicator sits on: nodes and ranks per node, the package / NUMA
// domain of each rank, the communicator's own process topology, and the
// network that connects the nodes.
//
// Pure C++ (no MPI): detection (topology/detect.h) gathers the facts and the
// functions here turn them, plus the user's network description file
// (MPIR_CVAR_TOPOA2A_NETWORK_FILE) and forced topology
// (MPIR_CVAR_TOPOA2A_TOPOLOGY), into a Topology. The formats are documented
// in topology/README.md.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace topoa2a {

// Environment variables read by this layer (MPICH CVAR style).
inline constexpr const char* kEnvTopology = "MPIR_CVAR_TOPOA2A_TOPOLOGY";
inline constexpr const char* kEnvNetworkFile = "MPIR_CVAR_TOPOA2A_NETWORK_FILE";
inline constexpr const char* kEnvCost = "MPIR_CVAR_TOPOA2A_COST";
inline constexpr const char* kEnvCostFile = "MPIR_CVAR_TOPOA2A_COST_FILE";
inline constexpr const char* kEnvTuningJson = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";

// How the ranks of a communicator are laid out over its nodes.
enum class Placement {
  kBlock,       // consecutive ranks share a node (one rank per node counts as block)
  kRoundRobin,  // rank r is on node r % nodes
  kOther,       // anything else
  kSingle,      // every rank on one node
};

// The process topology attached to the communicator (MPI_Topo_test).
enum class ProcTopo { kNone, kCart, kGraph, kDistGraph };

// The network between the nodes (or between the ranks, see Network).
enum class NetKind {
  kUnknown,    // nothing known: modelled as a full-bisection switch
  kSwitch,     // single switch / full crossbar
  kRing,       // 1-D torus
  kMesh,       // k-D mesh, no wrap-around
  kTorus,      // k-D torus
  kHypercube,  // binary hypercube (stored as a mesh with every extent 2)
  kFatTree,    // full-bisection fat tree (modelled as a switch)
  kDragonfly,  // groups of endpoints, full bandwidth inside a group, a bundle of
               // global links between each pair of groups
};

const char* to_string(Placement p);
const char* to_string(ProcTopo t);
const char* to_string(NetKind k);  // "unknown", "switch", "ring", ... (file / env spelling)
// Parse the file / env spelling of a kind ("switch", "fat_tree", ...).
bool parse_net_kind(const std::string& text, NetKind* out);
// "switch, ring, mesh, torus, hypercube, fat_tree" (for error messages).
std::string net_kind_names();

// A network description as written by the user: the network file or the
// forced topology string. Everything optional; see topology/README.md.
struct NetworkDesc {
  NetKind kind = NetKind::kUnknown;  // kUnknown: no network given
  // Endpoints per dimension as written ("torus 4x4" -> {4, 4}; "ring 8" -> {8};
  // "hypercube 16" -> {16}, the number of endpoints; "dragonfly 4x16x2" ->
  // {4, 16, 2}: groups, endpoints per group, global links per group pair).
  // Empty: derive from the number of nodes (or ranks) at resolution time.
  std::vector<int> dims;
  // "nodes NxR": simulate N nodes of R ranks each, block placement over the
  // ranks of MPI_COMM_WORLD. 0: not given (use the detected layout).
  int layout_nodes = 0;
  int layout_ranks_per_node = 0;
  // Explicit endpoint coordinates: by host name (MPI_Get_processor_name) and
  // by MPI_COMM_WORLD rank. One coordinate per dimension, or a single linear
  // (row-major) endpoint index.
  std::map<std::string, std::vector<int>> hosts;
  std::map<int, std::vector<int>> ranks;
  // Link bandwidths by class ("bandwidth CLASS VALUE" lines), in bytes per
  // second: "dim1", "dim2", ... (a direct network's links of each
  // dimension), "uplink" (a tapered fat tree's leaf up-links), "global" (a
  // dragonfly's global links). A class not given is as fast as a NIC.
  std::map<std::string, double> bandwidth;
};

// A bandwidth line's value: a positive number with a unit B/s, kB/s, MB/s,
// GB/s, TB/s (bytes) or kb/s, Mb/s, Gb/s, Tb/s (bits), decimal prefixes
// ("25GB/s", "100Gb/s"): bytes per second. On failure *why says why.
bool parse_bandwidth(const std::string& text, double* bytes_per_second, std::string* why);
// The problem with link class `cls` on a network of `kind` whose dims are
// written as `dims` (empty: derived later), or an empty string.
std::string check_link_class(NetKind kind, const std::vector<int>& dims, const std::string& cls);
// "25 GB/s".
std::string format_bandwidth(double bytes_per_second);

// The problem with `dims` written for `kind` ("a ring has one dimension
// ..."), or an empty string. Empty dims are fine except for a dragonfly,
// which needs its groups.
std::string check_kind_dims(NetKind kind, const std::vector<int>& dims);

// Parse a network description file. `filename` is used in messages only. On
// error returns false and sets *error to "FILE:LINE:COL: what was expected".
bool parse_network_file(const std::string& text, const std::string& filename, NetworkDesc* out,
                        std::string* error);

// Parse MPIR_CVAR_TOPOA2A_TOPOLOGY, a comma separated list of items:
//   switch | fat_tree[:KxU] | ring[:N] | mesh[:AxB..] | torus[:AxB..] | hypercube[:N]
//   | dragonfly:GxH[xL]  (G groups of H endpoints, L global links per pair)
//   nodes:NxR        (N nodes of R ranks, block placement)
// e.g. "ring", "torus:4x4", "nodes:2x4", "nodes:4x4,torus:2x2". On error
// returns false and sets *error, naming the valid values.
bool parse_forced_topology(const std::string& text, NetworkDesc* out, std::string* error);

// Parse "A" or "AxBxC...": positive extents (each at most 1048576, their
// product at most 1073741823). On failure *why says why.
bool parse_extents(const std::string& text, std::vector<int>* dims, std::string* why);

// The network as the cost model sees it.
struct Network {
  NetKind kind = NetKind::kUnknown;
  // Extent and wrap-around of each dimension (ring / mesh / torus / hypercube;
  // a dragonfly: {groups, endpoints per group}, not periodic), empty for
  // switch, fat_tree and unknown.
  std::vector<int> dims;
  std::vector<int> periodic;
  // Dragonfly: links between each pair of groups (each direction).
  int global_links = 0;
  // Tapered fat tree ("fat_tree KxU"): endpoints per leaf switch and the
  // up-links of each leaf (each as fast as a NIC); 0: full bisection.
  int leaf_size = 0;
  int leaf_uplinks = 0;
  // Link bandwidths in bytes per second (the network file's bandwidth
  // lines); 0: as fast as a NIC (the cost model's tw_inter). Per dimension
  // of a direct network; a tapered fat tree's up-links; a dragonfly's
  // global links.
  std::vector<double> dim_bw;
  double uplink_bw = 0;
  double global_bw = 0;
  // true: the endpoints are ranks (each rank has its own network attachment,
  // as in a simulation or a forced topology on one node); false: the endpoints
  // are nodes, and ranks on one node share its attachment.
  bool rank_level = false;
  // Linear (row-major) endpoint index of each rank of the communicator; for
  // switch-like networks the node (or rank) index.
  std::vector<int> endpoint_of_rank;
  // Where it came from: "detected", "file:PATH", "forced" or "cart".
  std::string source = "detected";

  int endpoints() const;  // product of dims (0 when dims is empty)
  bool direct() const {   // routed over dims (ring, mesh, torus, hypercube)
    return !dims.empty() && kind != NetKind::kDragonfly;
  }
  // Endpoints have coordinates (host / rank lines place nodes on them).
  bool has_coords() const { return !dims.empty(); }
  // Dragonfly: the group of an endpoint.
  int group_of(int endpoint) const { return endpoint / dims[1]; }
};

struct Topology {
  int size = 0;                   // ranks in the communicator
  int rank = -1;                  // calling rank (-1 when not from detection)
  int nodes = 0;                  // nodes the communicator spans
  std::vector<int> node_of_rank;  // 0..nodes-1, numbered by first appearance
  int ranks_per_node = 0;         // 0 if not the same on every node
  Placement placement = Placement::kSingle;
  std::string layout_source = "detected";  // or "forced" (nodes:NxR)

  // The same ranks in MPI_COMM_WORLD terms (for `rank` lines, forced layouts
  // and globally consistent endpoint numbering). Default: the identity.
  std::vector<int> world_rank;           // -1 where unknown
  std::vector<int> global_node_of_rank;  // node index among world_nodes
  int world_size = 0;
  int world_nodes = 0;

  std::vector<std::string> node_names;  // per node (empty if not gathered)

  // Intra-node placement of each rank (hwloc logical index), -1 if unknown.
  std::vector<int> package_of_rank;
  std::vector<int> numa_of_rank;

  // The communicator's process topology.
  ProcTopo proc_topo = ProcTopo::kNone;
  std::vector<int> cart_dims;
  std::vector<int> cart_periods;

  Network network;

  // MPIR_CVAR_TOPOA2A_COST as read on rank 0 at detection (empty: the
  // defaults), and the cost file (MPIR_CVAR_TOPOA2A_COST_FILE: its path, its
  // text, why it could not be read); parse with cost_params_for()
  // (topology/cost_model.h), so that every rank prices with the same numbers.
  std::string cost_text;
  std::string cost_file;
  std::string cost_file_text;
  std::string cost_file_error;
  // MPIR_CVAR_TOPOA2A_LEADERS as read at detection: the leaders per node
  // the cost model prices multileader with (0: it prices k = 1, 2, 4, ...
  // and every rank, and picks the cheapest).
  int leaders = 0;
  // MPIR_CVAR_TOPOA2A_TORUS_DIMS and MPIR_CVAR_TOPOA2A_MESH_GRID as read at
  // detection (empty when unset): the grids the cost model prices torus
  // and mesh on, the ones the run then uses (topology_params, model_params).
  std::vector<int> torus_dims;
  std::vector<int> mesh_grid;  // {rows, cols}

  // Problems met while building it (malformed file, forced layout that does
  // not fit, ...). Identical on every rank of the communicator.
  std::vector<std::string> warnings;
  std::vector<std::string> errors;

  // The node that hosts rank r, or the rank itself on a rank-level network:
  // messages between different units travel over the network.
  int unit_of_rank(int r) const { return network.rank_level ? r : node_of_rank[r]; }
  bool spans_network() const;  // some pair of ranks talks over the network
};

// Build a Topology from the node of each rank (any ids; renumbered by first
// appearance). World fields default to the communicator itself; the
// network defaults to kUnknown, one endpoint per node.
Topology topology_from_layout(const std::vector<int>& node_of_rank);
// `nodes` nodes of `ranks_per_node` ranks each, block or round-robin placement.
Topology uniform_topology(int nodes, int ranks_per_node, Placement placement = Placement::kBlock);

// Recompute nodes, ranks_per_node and placement from node_of_rank (which is
// renumbered by first appearance).
void finalize_layout(Topology* t);

// Replace the node layout by N nodes of R ranks, block placement over the
// ranks of MPI_COMM_WORLD (t->world_size must be N*R). Clears node_names.
// `source` ("forced", "file:PATH") goes into layout_source. On a mismatch
// appends to t->errors, leaves *t unchanged and returns false.
bool apply_layout(Topology* t, int nodes, int ranks_per_node, const std::string& source);

// Replace t->network by the network in `desc` (desc.kind must not be
// kUnknown), resolving rank_level, dims and endpoint_of_rank as README.md
// describes. `forced`: the description is the forced string (a simulation
// override) rather than the machine's network file. `source` is "forced" or
// "file:PATH". On an error appends to t->errors, leaves t->network unchanged
// and returns false; lesser problems go to t->warnings.
bool apply_network(Topology* t, const NetworkDesc& desc, const std::string& source, bool forced);

// Derive the network from a Cartesian communicator when nothing else says
// otherwise: only when every rank is on its own node and the grid has
// exactly `size` points (the grid is then taken to mirror the machine).
// Returns true if it applied.
bool apply_cart_network(Topology* t);

// Apply the descriptions in order of precedence: the layout from the forced
// string, else from the file; the network from the forced string, else from
// the file, else from a Cartesian communicator. Either pointer may be null.
void configure_topology(Topology* t, const NetworkDesc* file, const std::string& file_source,
                        const NetworkDesc* forced);

// Reset t->network to the default (kUnknown, one endpoint per unit).
void reset_network(Topology* t);

// Multi-line human readable description (for the info command and errors).
std::string describe(const Topology& t);
// "torus 4x4", "ring 8", "hypercube 16", "switch", ...
std::string describe(const Network& n);

// The largest input file read (network file, rules / tuning JSON file): 64 MiB.
inline constexpr long long kMaxInputFileBytes = 64LL << 20;

// Read a whole file: a regular file (not a directory, device or pipe) of at
// most max_bytes. On error returns false and sets *error to
// "PATH: why" (cannot open, not a regular file, too large, read error).
bool read_text_file(const std::string& path, std::string* text, std::string* error,
                    long long max_bytes = kMaxInputFileBytes);

}  // namespace topoa2a
