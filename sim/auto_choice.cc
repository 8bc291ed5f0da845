#include "sim/auto_choice.h"

#include <mpi.h>

#include <cstdio>
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "topology/node_layout.h"

namespace sim {

topoa2a::Topology sim_topology(int p, const std::string& forced, std::string* err) {
  std::vector<int> node_of_rank(p);
  for (int r = 0; r < p; ++r) node_of_rank[r] = r;
  topoa2a::Topology t = topoa2a::topology_from_layout(node_of_rank);
  if (!forced.empty()) {
    topoa2a::NetworkDesc desc;
    if (!topoa2a::parse_forced_topology(forced, &desc, err)) return t;
    topoa2a::configure_topology(&t, nullptr, "", &desc);
    if (!t.errors.empty()) *err = t.errors[0];
  }
  return t;
}

topoa2a::Params algorithm_params(const topoa2a::Topology& t, int p) {
  (void)t;
  return topoa2a::resolve_params(p, topoa2a::Params{});
}

topoa2a::Params algorithm_params(const topoa2a::Algorithm& a, const topoa2a::Topology& t,
                                 const std::shared_ptr<const topoa2a::NodeLayout>& layout,
                                 topoa2a::Params params) {
  topoa2a::topology_params(a, t, layout, &params);
  return params;
}

AutoModel::AutoModel(topoa2a::Topology topo, const topoa2a::CostParams& cost)
    : topo_(std::move(topo)), cost_(cost) {
  model_ = std::make_unique<topoa2a::CostModel>(topo_, cost_);
}

AutoChoice AutoModel::choose(size_t m) const {
  const topoa2a::Choice c = model_->choose(m);
  // The plugin runs its choice with the model's window (0 there: round by
  // round, the executor's window 1).
  return {c.algorithm, c.params, c.predicted, c.window > 0 ? c.window : 1};
}

AutoChoice broadcast_choice(const AutoModel* model, size_t m, const topoa2a::Params& base) {
  struct {
    char name[32];
    int rows, cols, window, leaders;
    double predicted;
  } wire{};
  if (model) {
    const AutoChoice c = model->choose(m);
    std::snprintf(wire.name, sizeof wire.name, "%s", c.algorithm.c_str());
    wire.rows = c.params.grid.rows;
    wire.cols = c.params.grid.cols;
    wire.window = c.window;
    wire.leaders = c.params.leaders;
    wire.predicted = c.predicted;
  }
  MPI_Bcast(&wire, sizeof wire, MPI_BYTE, 0, MPI_COMM_WORLD);
  AutoChoice c;
  c.algorithm = wire.name;
  c.params = base;
  if (wire.rows > 0) c.params.grid = {wire.rows, wire.cols};
  c.params.leaders = wire.leaders;
  c.predicted = wire.predicted;
  c.window = wire.window;
  return c;
}

}  // namespace sim
