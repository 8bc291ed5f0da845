// Topology's names, its node layout (from detection, a layout or a forced
// nodes:NxR) and configure_topology, which applies the user's descriptions;
// topology_network.cc applies a network description, topology_describe.cc
// prints a Topology, text_file.cc reads input files (topology/topology.h).
#include "topology/topology.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace topoa2a {

const char* to_string(Placement p) {
  switch (p) {
    case Placement::kBlock:
      return "block";
    case Placement::kRoundRobin:
      return "round_robin";
    case Placement::kOther:
      return "other";
    case Placement::kSingle:
      return "single";
  }
  return "?";
}

const char* to_string(ProcTopo t) {
  switch (t) {
    case ProcTopo::kNone:
      return "none";
    case ProcTopo::kCart:
      return "cart";
    case ProcTopo::kGraph:
      return "graph";
    case ProcTopo::kDistGraph:
      return "dist_graph";
  }
  return "?";
}

namespace {
struct KindName {
  NetKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {NetKind::kSwitch, "switch"},       {NetKind::kRing, "ring"},
    {NetKind::kMesh, "mesh"},           {NetKind::kTorus, "torus"},
    {NetKind::kHypercube, "hypercube"}, {NetKind::kFatTree, "fat_tree"},
    {NetKind::kDragonfly, "dragonfly"},
};
}  // namespace

const char* to_string(NetKind k) {
  for (const KindName& kn : kKindNames)
    if (kn.kind == k) return kn.name;
  return "unknown";
}

bool parse_net_kind(const std::string& text, NetKind* out) {
  for (const KindName& kn : kKindNames) {
    if (text == kn.name) {
      *out = kn.kind;
      return true;
    }
  }
  return false;
}

std::string net_kind_names() {
  std::string out;
  for (const KindName& kn : kKindNames) {
    if (!out.empty()) out += ", ";
    out += kn.name;
  }
  return out;
}

int Network::endpoints() const {
  if (dims.empty()) return 0;
  long long e = 1;
  for (int d : dims) e *= d;
  return static_cast<int>(e);
}

bool Topology::spans_network() const {
  if (size <= 1) return false;
  return network.rank_level || nodes > 1;
}

void reset_network(Topology* t) {
  Network n;
  n.endpoint_of_rank.resize(t->size);
  for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = t->global_node_of_rank[r];
  t->network = std::move(n);
}

void finalize_layout(Topology* t) {
  t->size = static_cast<int>(t->node_of_rank.size());
  std::map<int, int> renumber;
  for (int& n : t->node_of_rank) {
    auto it = renumber.find(n);
    if (it == renumber.end()) it = renumber.emplace(n, static_cast<int>(renumber.size())).first;
    n = it->second;
  }
  t->nodes = static_cast<int>(renumber.size());
  std::vector<int> count(t->nodes, 0);
  for (int n : t->node_of_rank) ++count[n];
  t->ranks_per_node = 0;
  if (!count.empty() &&
      std::all_of(count.begin(), count.end(), [&](int c) { return c == count[0]; }))
    t->ranks_per_node = count[0];
  if (t->nodes <= 1) {
    t->placement = Placement::kSingle;
    return;
  }
  bool block = true, rr = true;
  for (int r = 1; r < t->size; ++r)
    if (t->node_of_rank[r] < t->node_of_rank[r - 1]) block = false;
  for (int r = 0; r < t->size; ++r)
    if (t->node_of_rank[r] != r % t->nodes) rr = false;
  t->placement = block ? Placement::kBlock : rr ? Placement::kRoundRobin : Placement::kOther;
}

Topology topology_from_layout(const std::vector<int>& node_of_rank) {
  Topology t;
  t.node_of_rank = node_of_rank;
  finalize_layout(&t);
  t.world_size = t.size;
  t.world_nodes = t.nodes;
  t.world_rank.resize(t.size);
  for (int r = 0; r < t.size; ++r) t.world_rank[r] = r;
  t.global_node_of_rank = t.node_of_rank;
  t.package_of_rank.assign(t.size, -1);
  t.numa_of_rank.assign(t.size, -1);
  reset_network(&t);
  return t;
}

Topology uniform_topology(int nodes, int ranks_per_node, Placement placement) {
  std::vector<int> node_of_rank(static_cast<size_t>(std::max(0, nodes * ranks_per_node)));
  for (int r = 0; r < static_cast<int>(node_of_rank.size()); ++r)
    node_of_rank[r] = placement == Placement::kRoundRobin ? r % nodes : r / ranks_per_node;
  return topology_from_layout(node_of_rank);
}

bool apply_layout(Topology* t, int nodes, int ranks_per_node, const std::string& source) {
  const std::string what = "nodes " + std::to_string(nodes) + "x" + std::to_string(ranks_per_node);
  if (nodes <= 0 || ranks_per_node <= 0 || 1LL * nodes * ranks_per_node != t->world_size) {
    t->errors.push_back(source + ": " + what + " describes " +
                        std::to_string(1LL * nodes * ranks_per_node) +
                        " ranks but MPI_COMM_WORLD has " + std::to_string(t->world_size) +
                        "; the detected layout is kept");
    return false;
  }
  std::vector<int> global(t->size);
  for (int r = 0; r < t->size; ++r) {
    if (t->world_rank[r] < 0) {
      t->errors.push_back(source + ": " + what + " cannot place rank " + std::to_string(r) +
                          ", which is not in MPI_COMM_WORLD; the detected layout is kept");
      return false;
    }
    global[r] = t->world_rank[r] / ranks_per_node;
  }
  t->global_node_of_rank = global;
  t->node_of_rank = global;
  t->world_nodes = nodes;
  t->layout_source = source;
  t->node_names.clear();
  finalize_layout(t);
  if (!t->network.direct()) reset_network(t);
  return true;
}

void configure_topology(Topology* t, const NetworkDesc* file, const std::string& file_source,
                        const NetworkDesc* forced) {
  if (forced && forced->layout_nodes > 0)
    apply_layout(t, forced->layout_nodes, forced->layout_ranks_per_node, "forced");
  else if (file && file->layout_nodes > 0)
    apply_layout(t, file->layout_nodes, file->layout_ranks_per_node, file_source);
  bool done = false;
  if (forced && forced->kind != NetKind::kUnknown) done = apply_network(t, *forced, "forced", true);
  if (!done && file && file->kind != NetKind::kUnknown)
    done = apply_network(t, *file, file_source, false);
  if (!done) apply_cart_network(t);
}

}  // namespace topoa2a
