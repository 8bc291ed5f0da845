#include "topology/world.h"

#include <algorithm>

namespace topoa2a {

Topology derive_topology(const WorldFacts& world, const CommFacts& comm,
                         const UserDescriptions& descriptions) {
  const int size = static_cast<int>(comm.world_rank.size());
  const int world_size = world.size();
  auto known = [&](int wr) { return wr >= 0 && wr < world_size; };
  std::vector<int> node(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    const int wr = comm.world_rank[r];
    if (known(wr))
      node[r] = world.node[wr];
    else
      node[r] = r < static_cast<int>(comm.node.size()) ? comm.node[r] : world.nodes + r;
  }
  Topology t = topology_from_layout(node);  // renumbers nodes by first appearance
  t.rank = comm.rank;
  t.world_size = world_size;
  t.world_nodes = world.nodes;
  for (int n : node) t.world_nodes = std::max(t.world_nodes, n + 1);
  for (int r = 0; r < size; ++r) {
    const int wr = comm.world_rank[r];
    t.world_rank[r] = known(wr) ? wr : -1;
    t.global_node_of_rank[r] = node[r];
    if (known(wr)) {
      if (wr < static_cast<int>(world.package.size())) t.package_of_rank[r] = world.package[wr];
      if (wr < static_cast<int>(world.numa.size())) t.numa_of_rank[r] = world.numa[wr];
    }
  }
  reset_network(&t);
  t.proc_topo = comm.proc_topo;
  if (!comm.cart_dims.empty()) {
    t.proc_topo = ProcTopo::kCart;
    t.cart_dims = comm.cart_dims;
    t.cart_periods = comm.cart_periods;
  }
  auto names = [&]() {
    std::vector<std::string> by_rank(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
      const int wr = comm.world_rank[r];
      if (known(wr) && wr < static_cast<int>(world.host_names.size()))
        by_rank[r] = world.host_names[wr];
    }
    return by_rank;
  };
  apply_user_descriptions(&t, descriptions, names);
  return t;
}

}  // namespace topoa2a
