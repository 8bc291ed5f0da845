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

}  // namespace topoa2a
