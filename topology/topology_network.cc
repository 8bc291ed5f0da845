// The network of a Topology: a network description (file or forced
// string) or the communicator's Cartesian topology applied to it
// (topology/topology.h apply_network, apply_cart_network).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "coll/schedule.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

// Linear row-major index of `coords` in `dims`, or -1 (with *why) if out of range.
// A single coordinate is taken as the linear index itself.
int linear_index(const std::vector<int>& coords, const std::vector<int>& dims, std::string* why) {
  long long e = 1;
  for (int d : dims) e *= d;
  if (coords.size() == 1) {
    if (coords[0] < 0 || coords[0] >= e) {
      *why = "endpoint " + std::to_string(coords[0]) + " is outside 0.." + std::to_string(e - 1);
      return -1;
    }
    return coords[0];
  }
  if (coords.size() != dims.size()) {
    *why = std::to_string(coords.size()) + " coordinates given, the network has " +
           std::to_string(dims.size()) + " dimensions";
    return -1;
  }
  long long idx = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (coords[i] < 0 || coords[i] >= dims[i]) {
      *why = "coordinate " + std::to_string(coords[i]) + " is outside 0.." +
             std::to_string(dims[i] - 1);
      return -1;
    }
    idx = idx * dims[i] + coords[i];
  }
  return static_cast<int>(idx);
}

}  // namespace

bool apply_network(Topology* t, const NetworkDesc& desc, const std::string& source, bool forced) {
  if (desc.kind == NetKind::kUnknown) return true;
  const int ws = t->world_size > 0 ? t->world_size : t->size;
  const int wn = t->world_nodes > 0 ? t->world_nodes : t->nodes;
  const bool switch_like = desc.kind == NetKind::kSwitch || desc.kind == NetKind::kFatTree;
  auto fail = [&](const std::string& msg) {
    t->errors.push_back(source + ": " + msg + "; the network description is ignored");
    return false;
  };

  Network n;
  n.kind = desc.kind;
  n.source = source;

  // How many endpoints the description has, and whether they are ranks.
  const bool dragonfly = desc.kind == NetKind::kDragonfly;
  if (dragonfly) {
    const std::string why = check_kind_dims(desc.kind, desc.dims);
    if (!why.empty()) return fail(why);
  }
  long long given = 0;
  const bool tapered = desc.kind == NetKind::kFatTree && desc.dims.size() == 2;
  if (tapered) {
    n.leaf_size = desc.dims[0];
    n.leaf_uplinks = desc.dims[1];
  } else if (!desc.dims.empty()) {
    given = 1;
    for (size_t i = 0; i < desc.dims.size() && !(dragonfly && i == 2); ++i) given *= desc.dims[i];
  }
  if (forced) {
    n.rank_level = given > 0 ? (given == ws && given != wn) : (wn <= 1 && ws > 1);
  } else {
    n.rank_level = !desc.ranks.empty() && desc.hosts.empty();
  }
  const long long units = n.rank_level ? ws : wn;
  const long long e = given > 0 ? given : units;

  if (dragonfly) {
    n.dims = {desc.dims[0], desc.dims[1]};
    n.periodic = {0, 0};
    n.global_links = desc.dims.size() == 3 ? desc.dims[2] : 1;
  } else if (!switch_like) {
    if (desc.kind == NetKind::kHypercube) {
      if (e <= 0 || (e & (e - 1)) != 0)
        return fail("a hypercube needs a power-of-two number of endpoints, not " +
                    std::to_string(e));
      for (long long k = 1; k < e; k *= 2) n.dims.push_back(2);
      if (n.dims.empty()) n.dims.push_back(1);
    } else if (!desc.dims.empty()) {
      n.dims = desc.dims;
    } else if (desc.kind == NetKind::kRing) {
      n.dims = {static_cast<int>(e)};
    } else {
      const Grid g = default_grid(static_cast<int>(e));
      n.dims = g.rows > 1 ? std::vector<int>{g.rows, g.cols} : std::vector<int>{g.cols};
    }
    const int periodic = desc.kind == NetKind::kRing || desc.kind == NetKind::kTorus ? 1 : 0;
    n.periodic.assign(n.dims.size(), periodic);
  }
  if (e < units)
    return fail("the network has " + std::to_string(e) + " endpoints, fewer than the " +
                std::to_string(units) + (n.rank_level ? " ranks" : " nodes") + " of the job");
  for (const auto& [cls, bw] : desc.bandwidth) {
    const bool direct = n.direct();
    const std::string why = check_link_class(desc.kind, direct ? n.dims : desc.dims, cls);
    if (!why.empty()) return fail("bandwidth " + cls + ": " + why);
    if (cls == "uplink") {
      n.uplink_bw = bw;
    } else if (cls == "global") {
      n.global_bw = bw;
    } else if (direct) {
      const size_t k = static_cast<size_t>(std::atoi(cls.c_str() + 3));
      n.dim_bw.resize(n.dims.size(), 0);
      if (k >= 1 && k <= n.dim_bw.size()) n.dim_bw[k - 1] = bw;
    }
  }

  n.endpoint_of_rank.assign(t->size, -1);
  std::vector<std::string> warnings;
  if (n.rank_level) {
    for (int r = 0; r < t->size; ++r) {
      const int w = t->world_rank[r];
      int ep = w;
      auto it = desc.ranks.find(w);
      if (it != desc.ranks.end() && n.has_coords()) {
        std::string why;
        ep = linear_index(it->second, n.dims, &why);
        if (ep < 0) return fail("rank " + std::to_string(w) + ": " + why);
      }
      if (ep < 0) return fail("rank " + std::to_string(r) + " is not in MPI_COMM_WORLD");
      n.endpoint_of_rank[r] = ep;
    }
  } else {
    if (!desc.ranks.empty())
      warnings.push_back(source + ": rank lines are ignored when host lines are present");
    if (!desc.hosts.empty() && t->node_names.empty())
      warnings.push_back(source + ": host names are unknown; host lines are ignored");
    std::vector<int> endpoint_of_node(t->nodes, -1);
    std::vector<std::string> unplaced;
    for (int r = 0; r < t->size; ++r) {
      const int node = t->node_of_rank[r];
      if (endpoint_of_node[node] >= 0) continue;
      int ep = t->global_node_of_rank[r];
      bool placed = false;
      if (n.has_coords() && node < static_cast<int>(t->node_names.size())) {
        auto it = desc.hosts.find(t->node_names[node]);
        if (it != desc.hosts.end()) {
          std::string why;
          ep = linear_index(it->second, n.dims, &why);
          if (ep < 0) return fail("host " + it->first + ": " + why);
          placed = true;
        }
      }
      if (!placed && !desc.hosts.empty() && !t->node_names.empty() &&
          node < static_cast<int>(t->node_names.size()))
        unplaced.push_back(t->node_names[node]);
      if (ep >= e) return fail("node " + std::to_string(node) + " has no endpoint");
      endpoint_of_node[node] = ep;
    }
    if (!unplaced.empty() && n.has_coords()) {
      std::string list;
      for (size_t i = 0; i < unplaced.size() && i < 8; ++i) list += (i ? ", " : "") + unplaced[i];
      if (unplaced.size() > 8) list += ", ...";
      warnings.push_back(source + ": no host line for " + std::to_string(unplaced.size()) +
                         " node(s) (" + list + "); placed by node number");
    }
    for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = endpoint_of_node[t->node_of_rank[r]];
  }
  t->network = std::move(n);
  t->warnings.insert(t->warnings.end(), warnings.begin(), warnings.end());
  return true;
}

bool apply_cart_network(Topology* t) {
  if (t->proc_topo != ProcTopo::kCart || t->cart_dims.empty()) return false;
  if (t->network.kind != NetKind::kUnknown || t->network.source != "detected") return false;
  long long e = 1;
  for (int d : t->cart_dims) e *= d;
  if (e != t->size || t->nodes != t->size || t->size <= 1) return false;
  Network n;
  const bool all =
      std::all_of(t->cart_periods.begin(), t->cart_periods.end(), [](int p) { return p != 0; });
  const bool none =
      std::none_of(t->cart_periods.begin(), t->cart_periods.end(), [](int p) { return p != 0; });
  n.kind =
      none ? NetKind::kMesh : (all && t->cart_dims.size() == 1 ? NetKind::kRing : NetKind::kTorus);
  n.dims = t->cart_dims;
  n.periodic = t->cart_periods;
  n.periodic.resize(n.dims.size(), 0);
  for (int& p : n.periodic) p = p != 0;
  n.rank_level = false;
  n.endpoint_of_rank.resize(t->size);
  for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = r;  // cart ranks are row-major
  n.source = "cart";
  t->network = std::move(n);
  return true;
}

}  // namespace topoa2a
