// What the native front door's entry points share (native.cc: the blocking
// calls, communicators and registration; native_sched.cc: the nonblocking
// and persistent calls): the host table and options, each communicator's
// state, and the decision for one call.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "coll/exec.h"
#include "plugin/comm_core.h"
#include "plugin/config.h"
#include "plugin/native/mpich_coll_plugin.h"
#include "plugin/native/native_topology.h"
#include "plugin/select.h"

namespace topoa2a::native {

// Set by the entry point (native.cc).
struct Globals {
  const MPICH_Coll_plugin_host* host = nullptr;
  Config config;
  std::unique_ptr<WorldFacts> world;
  int world_rank = 0;
  long next_id = 0;
};
Globals& globals();

// The state of one communicator: the shared core, plus what detection used,
// so that a Cartesian topology attached after creation can be added once.
class NativeComm : public CommCore {
 public:
  NativeComm(MPICH_Coll_plugin_comm* comm, int size, int rank, long id)
      : CommCore(size, rank, id), comm_(comm) {}

  // Detects the topology (local: MPICH's node map and the world facts).
  int detect(const std::vector<int>& cart_dims, const std::vector<int>& cart_periods);
  // MPI_Cart_create attaches its topology after MPICH commits the
  // communicator: pick it up on the first call.
  void add_cart_once();

 private:
  MPICH_Coll_plugin_comm* comm_;
  bool cart_checked_ = false;
};

// The decision for one call (blocking or not: the same).
struct Call {
  bool alltoallv;
  Decision decision;
  long long bytes = 0;  // per block (alltoall)
  std::string refused;  // a reason the call cannot run at all
};

// ctx: the registered Algorithm, or null for topo_auto.
Call decide_call(const MPICH_Coll_plugin_args* a, NativeComm& s, void* ctx);

// Which MPI call: the statistics' operation names (plugin/pvar_list.cc).
enum class CallKind { kBlocking, kNonblocking, kPersistent };
inline const char* op_name(bool alltoallv, CallKind kind = CallKind::kBlocking) {
  switch (kind) {
    case CallKind::kNonblocking:
      return alltoallv ? "ialltoallv" : "ialltoall";
    case CallKind::kPersistent:
      return alltoallv ? "alltoallv_init" : "alltoall_init";
    default:
      return alltoallv ? "alltoallv" : "alltoall";
  }
}

// The check of one call (MPICH_Coll_plugin_algorithm::check and its
// nonblocking twin): decides, records topo_auto's choice under the call's
// operation, and where MPICH takes the call counts it there (algorithm
// "mpich") and says in `why` which of MPICH's algorithms runs (for the
// nonblocking calls MPICH's nonblocking counterpart of topo_auto's choice)
// or why ours cannot run. No exception leaves it.
MPICH_Coll_plugin_verdict check_call(const MPICH_Coll_plugin_args* a, void* state, void* ctx,
                                     CallKind kind, char* why, int why_len);

// The C boundary: runs f, an MPI error class instead of any exception.
template <class F>
int c_status(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

// Calls add(alltoallv, name, algorithm) for every name MPICH learns: each
// algorithm for alltoall and, where it has one, alltoallv, then topo_auto
// (algorithm null) for both; stops at the first error.
int for_each_name(
    const std::function<int(bool alltoallv, const char* name, const Algorithm* a)>& add);

// TOPOA2A_VERBOSE: one line per (op, size, algorithm) on rank 0.
void report(const char* op, const Decision& d, NativeComm& s, long long bytes);

// The executor's arguments (int counts: decide_call refuses larger ones).
AlltoallArgs alltoall_args(const MPICH_Coll_plugin_args& a);
class AlltoallvInts {
 public:
  AlltoallvInts(const MPICH_Coll_plugin_args& a, int p);
  // Valid while this object lives.
  AlltoallvArgs args() const;

 private:
  const MPICH_Coll_plugin_args& a_;
  std::vector<int> sc_, sd_, rc_, rd_;
};

}  // namespace topoa2a::native
