// What the preload door's entry points share (preload_impl.h): errors
// through the communicator's handler, the fallback rule, the verbose
// report, the private communicator, and the argument checks before it
// takes a call (arguments MPICH would reject go to MPICH untouched, so that
// MPICH rejects them itself, with its own error class, message and
// handler).
#include "plugin/preload_impl.h"

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <string>

#include "coll/pmpi_transport.h"
#include "plugin/comm_state.h"
#include "plugin/stats.h"

namespace topoa2a {

int raise(MPI_Comm comm, int err) {
  PMPI_Comm_call_errhandler(comm, err);
  return err;
}

int fall_back(const char* op, const char* stats_op, const std::string& reason, CommState& state,
              MPI_Comm comm, const std::function<int()>& mpich) {
  const std::string why = std::string(op) + ": " + reason;
  if (door_config().fallback == Fallback::kError) return raise(comm, error_code_for(why));
  if (door_config().fallback == Fallback::kPrint && state.first_time("fallback " + why) &&
      state.rank() == 0)
    std::fprintf(stderr, "topoa2a: %s; falling back to MPICH's algorithm\n", why.c_str());
  const int err = mpich();
  stats_add(*state.stats(), stats_op, "mpich", 0, 0);
  return err;
}

void report(const char* op, const Decision& d, CommState& state, long long bytes) {
  if (!door_config().verbose || state.rank() != 0) return;
  const std::string key = std::string(op) + " " + std::to_string(bytes) + " " + d.algo->name;
  if (!state.first_time(key)) return;
  std::fprintf(stderr, "topoa2a: %s comm=%ld size=%d msg=%lld bytes algorithm=%s (%s)\n", op,
               state.id(), state.size(), bytes, d.algo->name, d.how.c_str());
}

// The private communicator to run decision `d` on, or MPI_COMM_NULL with
// the reason in *why (the algorithm cannot run here, the machine's
// description is bad for this communicator, or no private communicator
// can be made): the caller then falls back.
MPI_Comm private_comm(const Decision& d, CommState& state, MPI_Comm comm, std::string* why) {
  *why = d.cannot_run.empty() ? state.topology_error() : d.cannot_run;
  return why->empty() ? state.shadow(comm, why) : MPI_COMM_NULL;
}

bool is_inter(MPI_Comm comm) {
  int inter = 0;
  return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

// Arguments MPICH would reject: let MPICH reject them, with its own error
// class, message and handler.
bool plainly_valid(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                   MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || rb == MPI_IN_PLACE || rc < 0 || rt == MPI_DATATYPE_NULL)
    return false;
  // MPICH's aliasing check (MPI_BOTTOM on both sides with other types passes).
  if (sb != MPI_IN_PLACE &&
      (sc < 0 || st == MPI_DATATYPE_NULL || (sb == rb && st == rt && sc == rc && sc != 0)))
    return false;
  return true;
}

bool plainly_valid_v(const void* sb, const int* sc, const int* sd, MPI_Datatype st, void* rb,
                     const int* rc, const int* rd, MPI_Datatype rt, MPI_Comm comm) {
  return !(comm == MPI_COMM_NULL || rb == MPI_IN_PLACE || !rc || !rd || rt == MPI_DATATYPE_NULL ||
           (sb != MPI_IN_PLACE &&
            (!sc || !sd || st == MPI_DATATYPE_NULL || (sb == rb && st == rt && sc == rc))) ||
           is_inter(comm));
}

// MPICH's checks of one buffer argument that it makes before communicating
// (n blocks; displs null: one block at the buffer's start). MPI_IN_PLACE
// passes.
bool mpich_accepts(const void* buf, const int* counts, const int* displs, int n,
                   MPI_Datatype type) {
  if (buf == MPI_IN_PLACE) return true;
  if (mpich_buffer_check(buf, 0, type) != MPI_SUCCESS) return false;
  for (int i = 0; i < n && buf == MPI_BOTTOM; ++i)
    if ((!displs || displs[i] == 0) && mpich_buffer_check(buf, counts[i], type)) return false;
  return true;
}

}  // namespace topoa2a
