// Per-communicator state of the preload front door, cached as an MPI
// attribute: a private duplicate for internal traffic, and the compiled
// plans (built on first use of each algorithm, then reused).
#pragma once

#include <mpi.h>

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

class CommState {
 public:
  // The state of `comm`, created (collectively: it duplicates the
  // communicator) on first use. Null on failure, with *err set.
  static CommState* get(MPI_Comm comm, int* err);
  // Create the attribute key (after MPI_Init) / drop world's state (before
  // MPI_Finalize).
  static int init_keyval();
  // Build the state of a new communicator (collective over it; no-op for
  // MPI_COMM_NULL and intercommunicators). A duplicate (dup true) takes its
  // parent's detected facts instead of detecting again.
  static void on_created(MPI_Comm comm, MPI_Comm parent, bool dup);
  // Communicators whose state this process has built, and how many of them
  // detected their topology (a duplicate copies it).
  static long created_count();
  static long detected_count();
  static void release(MPI_Comm comm);

  MPI_Comm shadow() const { return shadow_; }
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

 private:
  CommState(MPI_Comm shadow, int size, int rank, long id)
      : shadow_(shadow), size_(size), rank_(rank), id_(id) {}
  static int delete_fn(MPI_Comm, int, void* value, void*);
  static CommState* create(MPI_Comm comm, const CommState* parent, int* err);

  MPI_Comm shadow_;
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
