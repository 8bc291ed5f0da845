// Shared by the preload door's entry points (preload.cc: the lifecycle;
// preload_blocking.cc: the blocking calls; preload_nb.cc: the nonblocking
// and persistent ones); implemented in preload_impl.cc (door_config,
// error_code_for and the MPI_T pinning in preload.cc).
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "plugin/config.h"
#include "plugin/select.h"

namespace topoa2a {

class CommState;

Config& door_config();
// Runs `call` (MPICH's collective) with MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM
// set to `value` through MPI_T, then puts the variable back: topo_auto chose
// one of MPICH's algorithms. *pinned false: it could not pin (why_not_pinned
// says why), and the call ran with MPICH's own selection.
int run_as_mpich(const std::string& value, bool* pinned, const std::function<int()>& call);
std::string why_not_pinned();
// An MPI error code whose string says why the algorithm cannot run.
int error_code_for(const std::string& why);
// Hands err to comm's error handler and returns it.
int raise(MPI_Comm comm, int err);
// The requested algorithm cannot run on this call:
// MPIR_CVAR_COLLECTIVE_FALLBACK (error, or MPICH's algorithm: mpich()).
int fall_back(const char* op, const char* stats_op, const std::string& reason, CommState& state,
              MPI_Comm comm, const std::function<int()>& mpich);
void report(const char* op, const Decision& d, CommState& state, long long bytes);
// The private communicator to run decision `d` on, or MPI_COMM_NULL with
// the reason in *why.
MPI_Comm private_comm(const Decision& d, CommState& state, MPI_Comm comm, std::string* why);
bool is_inter(MPI_Comm comm);
// Arguments MPICH would reject (MPICH then rejects them itself).
bool plainly_valid(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                   MPI_Comm comm);
// MPICH's checks of one buffer argument made before communicating.
bool mpich_accepts(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype type);
// MPI_Alltoallv's argument checks before the state (see MPI_Alltoallv).
bool plainly_valid_v(const void* sb, const int* sc, const int* sd, MPI_Datatype st, void* rb,
                     const int* rc, const int* rd, MPI_Datatype rt, MPI_Comm comm);

}  // namespace topoa2a
