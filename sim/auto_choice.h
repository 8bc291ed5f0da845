// What topoa2a sees of the simulated machine, and topo_auto's choice on it,
// for sim_a2a.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "coll/algorithms.h"
#include "coll/schedule.h"
#include "topology/cost_model.h"
#include "topology/topology.h"

namespace sim {

// p ranks, one node per rank unless `forced` (MPIR_CVAR_TOPOA2A_TOPOLOGY
// syntax) sets a layout (nodes:NxQ) and the network. On a malformed or
// unfitting string, *err says why.
topoa2a::Topology sim_topology(int p, const std::string& forced, std::string* err);

// The parameters a forced algorithm runs with on this topology, as the
// plugin's select layer derives them (plugin/select.cc: the default mesh
// grid). Where Params gains the node layout, it is filled here from `t`.
topoa2a::Params algorithm_params(const topoa2a::Topology& t, int p);
// What algorithm `a` takes from the topology (topology_params: the node
// layout, the torus grid, the network order), on top of `params`.
topoa2a::Params algorithm_params(const topoa2a::Algorithm& a, const topoa2a::Topology& t,
                                 const std::shared_ptr<const topoa2a::NodeLayout>& layout,
                                 topoa2a::Params params);

// What topo_auto would run: the cost model's choice.
struct AutoChoice {
  std::string algorithm;  // ours, or MPICH's "brucks" / "pairwise" / "scattered"
  topoa2a::Params params;
  double predicted = 0;
  int window = -1;  // the model's window (messages in flight; -1: the schedule's default)
};

class AutoModel {
 public:
  AutoModel(topoa2a::Topology topo, const topoa2a::CostParams& cost);
  AutoChoice choose(size_t m) const;
  const topoa2a::CostParams& cost() const { return cost_; }
  const topoa2a::CostModel& model() const { return *model_; }
  std::string describe() const { return topoa2a::describe(topo_.network); }

 private:
  topoa2a::Topology topo_;
  topoa2a::CostParams cost_;
  std::unique_ptr<topoa2a::CostModel> model_;
};

// Rank 0's choice (model non-null there) for blocks of m bytes, on every
// rank of MPI_COMM_WORLD; parameters the choice does not set come from base.
AutoChoice broadcast_choice(const AutoModel* model, size_t m, const topoa2a::Params& base);

}  // namespace sim
