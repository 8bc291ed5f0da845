// What topoa2a keeps per communicator in either front door: its topology
// (derived locally, without communication), and what is built from it on
// first use and then reused: plans, schedules, topo_auto's cost model
// (shared between communicators of the same topology) and its choices.
// No MPI calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "coll/algorithms.h"
#include "coll/plan.h"
#include "plugin/stats.h"
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

  // The plan for a window of `window` messages in flight (> 0; see
  // window_depth in coll/plan.h): compiled once per (algorithm, params,
  // window depth).
  const Plan& plan(const Algorithm& a, const Params& params, int window);
  // The window when MPIR_CVAR_TOPOA2A_WINDOW is unset: default_window of
  // this rank's schedule (coll/plan.h), worked out once.
  int default_window(const Algorithm& a, const Params& params);
  const Schedule& schedule(const Algorithm& a, const Params& params);
  // What ran on this communicator (the MPI_T variables bound to it).
  const std::shared_ptr<CommStats>& stats() const { return stats_; }
  // True the first time `key` is seen on this communicator.
  bool first_time(const std::string& key);

  // Install a topology and the cost parameters to price it with (clears
  // the model and the cached choices).
  void set_topology(std::shared_ptr<const Topology> topology, const CostParams& cost);

 private:
  int size_, rank_;
  long id_;
  std::mutex mu_;
  // Everything a schedule depends on: the algorithm and its Params (extend
  // when Params grows).
  // algorithm, grid rows, cols, a hash of the rest (layout, leaders, network
  // order, extents: key_of)
  using Key = std::tuple<const Algorithm*, int, int, std::uint64_t>;
  static Key key_of(const Algorithm& a, const Params& params);
  const Schedule& schedule_locked(const Key& key, const Params& params);
  std::map<std::tuple<const Algorithm*, int, int, std::uint64_t, int>, std::unique_ptr<Plan>>
      plans_;  // + depth
  std::map<std::tuple<const Algorithm*, int, int, std::uint64_t, int>, const Plan*> by_window_;
  std::map<Key, std::unique_ptr<Schedule>> schedules_;
  std::map<Key, int> default_windows_;
  std::set<std::string> seen_;
  std::shared_ptr<CommStats> stats_ = std::make_shared<CommStats>();
  std::shared_ptr<const Topology> topology_;
  std::shared_ptr<const NodeLayout> layout_;
  CostParams cost_;
  std::shared_ptr<const CostModel> model_;  // built by the first choice()
  std::map<std::pair<long long, bool>, Choice> choices_;
};

}  // namespace topoa2a
