// What topoa2a keeps per communicator in either front door: its topology
// (derived locally, without communication), and what is built from it on
// first use and then reused: plans, schedules, topo_auto's cost model
// (shared between communicators of the same topology) and its choices.
// No MPI calls.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "coll/algorithms.h"
#include "coll/plan.h"
#include "topology/cost_model.h"
#include "topology/node_layout.h"
#include "topology/topology.h"

namespace topoa2a {

class CommCore {
 public:
  CommCore(int size, int rank, long id) : size_(size), rank_(rank), id_(id) {}
  virtual ~CommCore() = default;
  CommCore(const CommCore&) = delete;
  CommCore& operator=(const CommCore&) = delete;

  int size() const { return size_; }
  int rank() const { return rank_; }
  long id() const { return id_; }

  const Topology& topology() const { return *topology_; }
  // The node layout for the node-aware algorithms (node_layout_for the
  // topology), made once with it.
  const std::shared_ptr<const NodeLayout>& layout() const { return layout_; }
  // topo_auto's choice for blocks of `bytes`, priced once per size and
  // in-place-ness (MPICH's noinplace algorithms are out for MPI_IN_PLACE).
  // The first call builds the cost model, or takes the one another
  // communicator of the same topology already built.
  const Choice& choice(long long bytes, bool in_place = false);

  const Plan& plan(const Algorithm& a, const Params& params);
  const Schedule& schedule(const Algorithm& a, const Params& params);
  // True the first time `key` is seen on this communicator.
  bool first_time(const std::string& key);

  // Install a topology and the cost parameters to price it with (clears
  // the model and the cached choices).
  void set_topology(std::shared_ptr<const Topology> topology, const CostParams& cost);

 private:
  int size_, rank_;
  long id_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Plan>> plans_;
  std::map<std::string, std::unique_ptr<Schedule>> schedules_;
  std::set<std::string> seen_;
  std::shared_ptr<const Topology> topology_;
  std::shared_ptr<const NodeLayout> layout_;
  CostParams cost_;
  std::shared_ptr<const CostModel> model_;  // built by the first choice()
  std::map<std::pair<long long, bool>, Choice> choices_;
};

}  // namespace topoa2a
