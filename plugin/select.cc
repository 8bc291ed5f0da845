#include "plugin/select.h"

#include "plugin/comm_core.h"

namespace topoa2a {
namespace {

// The communicator's ranks sit on the network's endpoints in rank order,
// one each (a simulation, a forced topology, one rank per node placed in
// order): the grid of the network is then the grid of the ranks.
bool ranks_are_endpoints(const Topology& t) {
  const Network& n = t.network;
  if (!n.has_coords() || n.endpoints() != t.size) return false;
  for (int r = 0; r < t.size; ++r)
    if (n.endpoint_of_rank[r] != r) return false;
  return true;
}

// torus: the grid from MPIR_CVAR_TOPOA2A_TORUS_DIMS, else the
// communicator's Cartesian topology, else the network's; direct_scheduled:
// the network to order its rounds for.
void network_params(const Algorithm& a, const Config& config, const Topology& t, Params* params) {
  const Network& n = t.network;
  const bool on_network = ranks_are_endpoints(t);
  if (a.id == AlgorithmId::kTorus) {
    long long cart = 1;
    for (int d : t.cart_dims) cart *= d;
    if (!config.torus_dims.empty())
      params->dims = config.torus_dims;
    else if (t.proc_topo == ProcTopo::kCart && cart == t.size)
      params->dims = t.cart_dims;
    else if (on_network && n.direct())
      params->dims = n.dims;
  } else if (a.id == AlgorithmId::kDirectScheduled && on_network) {
    if (n.kind == NetKind::kDragonfly && n.dims.size() >= 2) {
      params->fabric = Fabric::kDragonfly;
      params->dims = {n.dims[0], n.dims[1]};
    } else if (n.direct()) {
      params->fabric = Fabric::kTorus;
      params->dims = n.dims;
    }
  }
}

}  // namespace

Decision decide(const Selection& sel, const Config& config, CommCore& state, long long bytes,
                bool in_place, long long count) {
  Decision d;
  const int p = state.size();
  d.params = resolve_params(p, Params::of_grid(config.mesh_grid));
  if (sel.topo_auto) {
    // The rules file first, then the cost model over the detected topology.
    std::string name;
    if (config.rules) {
      RuleQuery q = rule_query_for(state.topology());
      q.comm_size = p;
      q.avg_msg_size = static_cast<size_t>(bytes);
      q.count = count;
      q.inplace = in_place;
      q.multi_threaded = config.multi_threaded;
      if (auto r = apply_rules(*config.rules, q); r && *r != "topo_auto") {
        name = *r;
        d.how = "topo_auto, rules file";
      }
    }
    if (name.empty()) {
      const Choice& c = state.choice(bytes, in_place);
      name = c.algorithm;
      if (config.mesh_grid.rows == 0 && c.params.grid.rows > 0) d.params = c.params;
      d.how = "topo_auto, cost model";
    }
    d.algo = find_algorithm(name);
    if (!d.algo) {
      d.mpich = name.empty() ? "auto" : name;
      return d;
    }
  } else {
    d.how = "forced";
    d.algo = sel.ours;
  }
  if (!d.algo) return d;
  d.params.layout = state.layout();  // the node-aware algorithms' node layout
  if (config.leaders > 0) d.params.leaders = config.leaders;  // else topo_auto's or the default
  network_params(*d.algo, config, state.topology(), &d.params);
  // Messages of any size go (the transports count in MPI_Count / MPI_Aint).
  d.cannot_run = d.algo->check(p, d.params);
  return d;
}

}  // namespace topoa2a
