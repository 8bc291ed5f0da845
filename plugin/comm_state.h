// Per-communicator state of the preload front door, cached as an MPI
// attribute (a key whose copy callback copies nothing, so a duplicate of the
// user's communicator never inherits it) and made on the first topoa2a call
// on that communicator:
// - its topology, derived locally from the facts gathered once over
//   MPI_COMM_WORLD at MPI_Init (topology/detect.h): no communication;
// - the private communicator for topoa2a's traffic, made only when one of
//   topoa2a's algorithms first runs there, with MPI_Comm_create_group, which
//   copies no attribute (no user callback fires). If it cannot be made
//   (context ids exhausted, any error), the communicator keeps running
//   MPICH's algorithm under MPIR_CVAR_COLLECTIVE_FALLBACK;
// - plans, schedules and topo_auto's cost model (plugin/comm_core.h).
// A communicator that never calls an all-to-all costs nothing.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "plugin/comm_core.h"
#include "topology/descriptions.h"

namespace topoa2a {

class CommState : public CommCore {
 public:
  // After PMPI_Init, collective over MPI_COMM_WORLD: the attribute key and
  // the world's facts; `read`: the descriptions this process read (and
  // parsed) at MPI_Init, of which world rank 0's are used everywhere. On a
  // malformed description of the machine, returns false with the problems,
  // one per line, in *error.
  static bool init(const UserDescriptions& read, std::string* error);
  // Before PMPI_Finalize: drop world's and self's state.
  static void finalize();
  // The state of intracommunicator `comm`, made on first use (local). Null
  // on failure, with *err set.
  static CommState* get(MPI_Comm comm, int* err);
  // Communicators whose state this process has made, and private
  // communicators it has made for them.
  static long created_count();
  static long private_count();

  // The private communicator, made on the first call (collective over the
  // user's communicator `comm`: every rank reaches it in the same call).
  // MPI_COMM_NULL when it cannot be made; *why then says why.
  MPI_Comm shadow(MPI_Comm comm, std::string* why);
  // Problems with the machine's description for this communicator (empty:
  // none); topoa2a's algorithms do not run on it then.
  const std::string& topology_error() const { return topology_error_; }

  // The nonblocking operations' private communicators and their users
  // (plugin/nonblocking.h; guarded by its mutex).
  struct Nonblocking {
    std::vector<MPI_Comm> slots;      // MPI_COMM_NULL: not made yet
    std::vector<const void*> holder;  // the operation on each slot, or null
    unsigned long long sequence = 0;  // operations started on this communicator
    int live = 0;                     // operations not yet finished
    bool orphaned = false;            // the communicator is freed: delete at live == 0
  } nb;
  // Frees what the state holds (private communicators) and the state.
  static void destroy(CommState* state);

 private:
  CommState(int size, int rank, long id) : CommCore(size, rank, id) {}
  static int delete_fn(MPI_Comm, int, void* value, void*);

  MPI_Comm shadow_ = MPI_COMM_NULL;
  bool shadow_tried_ = false;
  std::string shadow_error_;
  std::string topology_error_;
};

}  // namespace topoa2a
