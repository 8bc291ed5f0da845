// What topoa2a keeps per communicator in either front door: its detected
// topology and cost model, and the plans, schedules and topo_auto choices
// built from them (each built on first use, then reused). No MPI calls.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "coll/algorithms.h"
#include "coll/plan.h"
#include "topology/cost_model.h"
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

  // Detected once, at creation (or copied from the parent of a dup).
  const Topology& topology() const { return *topology_; }
  // topo_auto's choice for blocks of `bytes`, priced once per size.
  const Choice& choice(long long bytes);

  const Plan& plan(const Algorithm& a, const Params& params);
  const Schedule& schedule(const Algorithm& a, const Params& params);
  // True the first time `key` is seen on this communicator.
  bool first_time(const std::string& key);

  // Install a topology and the model priced on it (clears cached choices).
  void set_topology(std::shared_ptr<const Topology> topology,
                    std::shared_ptr<const CostModel> model);
  // Share another communicator's topology and model (a duplicate).
  void share_topology(const CommCore& from);

 private:
  int size_, rank_;
  long id_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Plan>> plans_;
  std::map<std::string, std::unique_ptr<Schedule>> schedules_;
  std::set<std::string> seen_;
  std::shared_ptr<const Topology> topology_;
  std::shared_ptr<const CostModel> model_;
  std::map<long long, Choice> choices_;
};

}  // namespace topoa2a
