// The parameter choices the cost model prices per candidate (model_params.h).
#include "topology/model_params.h"

#include <algorithm>

#include "topology/node_layout.h"

namespace topoa2a {

std::vector<std::pair<Params, std::string>> param_choices(
    const std::string& algorithm, const Topology& topo,
    const std::shared_ptr<const NodeLayout>& layout) {
  std::vector<std::pair<Params, std::string>> choices;
  const int p = topo.size;
  // What the algorithm takes from the topology, as the selection gives it
  // (topology_params): the node layout, the user's mesh grid, the torus
  // grid, the network order.
  Params given;
  const Algorithm* a = find_algorithm(algorithm);
  if (a) topology_params(*a, topo, layout, &given);
  if (algorithm != "mesh") {
    Params prm = given;
    if (!a || a->id != AlgorithmId::kMultiLeader) {
      choices.push_back({prm, ""});
      return choices;
    }
    // multileader: k = MPIR_CVAR_TOPOA2A_LEADERS where given, else k = 1,
    // 2, 4, ... below the largest node's rank count q, and every rank (k =
    // 0, the default), the cheapest of which topo_auto runs.
    int q = 1;
    if (layout) {
      std::vector<int> count(layout->nodes, 0);
      for (int x : layout->node_of_rank) q = std::max(q, ++count[x]);
    }
    auto add_k = [&](int k) {
      Params c = prm;
      c.leaders = k;
      choices.push_back({c, k > 0 ? "k=" + std::to_string(k) : "k=q"});
    };
    if (topo.leaders > 0) {
      add_k(topo.leaders);
      return choices;
    }
    for (int k = 1; k < q; k *= 2) add_k(k);
    add_k(0);
    return choices;
  }
  auto add = [&](Grid g, const std::string& note) {
    if (!g.valid_for(p)) return;
    for (auto& c : choices)
      if (c.first.grid.rows == g.rows && c.first.grid.cols == g.cols) return;
    Params prm;
    prm.grid = g;
    choices.push_back({prm, note});
  };
  if (given.grid.rows > 0) {  // MPIR_CVAR_TOPOA2A_MESH_GRID: that grid alone
    choices.push_back({given, "MPIR_CVAR_TOPOA2A_MESH_GRID"});
    return choices;
  }
  const int rpn = topo.ranks_per_node;
  if (topo.nodes > 1 && rpn > 0) {
    if (topo.placement == Placement::kBlock) add(Grid{topo.nodes, rpn}, "rows=nodes");
    if (topo.placement == Placement::kRoundRobin) add(Grid{rpn, topo.nodes}, "cols=nodes");
  }
  if (topo.proc_topo == ProcTopo::kCart && topo.cart_dims.size() == 2)
    add(Grid{topo.cart_dims[0], topo.cart_dims[1]}, "cart");
  const Network& n = topo.network;
  if (n.direct() && n.dims.size() == 2 && (n.rank_level || topo.nodes == p))
    add(Grid{n.dims[0], n.dims[1]}, "network");
  add(default_grid(std::max(1, p)), "default");
  if (choices.empty()) {
    Params prm;
    prm.grid = default_grid(std::max(1, p));
    choices.push_back({prm, "default"});
  }
  return choices;
}

}  // namespace topoa2a
