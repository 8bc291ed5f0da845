#include "topology/node_layout.h"

namespace topoa2a {

std::shared_ptr<const NodeLayout> node_layout_for(const Topology& t) {
  if (t.size <= 0 || static_cast<int>(t.node_of_rank.size()) != t.size) return nullptr;
  const Network& n = t.network;
  NodeNet net = NodeNet::kSwitch;
  switch (n.kind) {
    case NetKind::kRing:
      net = NodeNet::kRing;
      break;
    case NetKind::kMesh:
      net = NodeNet::kMesh;
      break;
    case NetKind::kTorus:
      net = NodeNet::kTorus;
      break;
    case NetKind::kHypercube:
      net = NodeNet::kHypercube;
      break;
    case NetKind::kDragonfly:
      net = NodeNet::kDragonfly;
      break;
    case NetKind::kUnknown:
    case NetKind::kSwitch:
    case NetKind::kFatTree:
      break;
  }
  // Endpoints that are ranks place nodes only when every node has one rank.
  const bool node_endpoints = !n.rank_level || t.nodes == t.size;
  if (!node_endpoints || static_cast<int>(n.endpoint_of_rank.size()) != t.size)
    return make_node_layout(t.node_of_rank, node_endpoints ? net : NodeNet::kSwitch);
  return make_node_layout(t.node_of_rank, net, n.dims, n.endpoint_of_rank);
}

bool ranks_are_endpoints(const Topology& t) {
  const Network& n = t.network;
  if (!n.has_coords() || n.endpoints() != t.size) return false;
  for (int r = 0; r < t.size; ++r)
    if (n.endpoint_of_rank[r] != r) return false;
  return true;
}

void topology_params(const Algorithm& a, const Topology& t,
                     const std::shared_ptr<const NodeLayout>& layout, Params* params) {
  const Network& n = t.network;
  // O(p): asked only by the two algorithms that use it (this runs per call).
  auto on_network = [&t] { return ranks_are_endpoints(t); };
  switch (a.id) {
    case AlgorithmId::kNodeAware:
    case AlgorithmId::kNodeAwareLog:
    case AlgorithmId::kMultiLeader:
      params->layout = layout;
      break;
    case AlgorithmId::kMesh:
      if (t.mesh_grid.size() == 2)  // MPIR_CVAR_TOPOA2A_MESH_GRID
        params->grid = Grid{t.mesh_grid[0], t.mesh_grid[1]};
      break;
    case AlgorithmId::kTorus: {
      if (!t.torus_dims.empty()) {  // MPIR_CVAR_TOPOA2A_TORUS_DIMS
        params->dims = t.torus_dims;
        break;
      }
      long long cart = 1;
      for (int d : t.cart_dims) cart *= d;
      if (t.proc_topo == ProcTopo::kCart && !t.cart_dims.empty() && cart == t.size)
        params->dims = t.cart_dims;
      else if (n.direct() && on_network())
        params->dims = n.dims;
      break;
    }
    case AlgorithmId::kDirectScheduled:
      if (!on_network()) break;
      if (n.kind == NetKind::kDragonfly && n.dims.size() >= 2) {
        params->fabric = Fabric::kDragonfly;
        params->dims = {n.dims[0], n.dims[1]};
      } else if (n.direct()) {
        params->fabric = Fabric::kTorus;
        params->dims = n.dims;
      }
      break;
    default:
      break;
  }
}

}  // namespace topoa2a
