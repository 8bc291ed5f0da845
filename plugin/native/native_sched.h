// The native door's nonblocking and persistent calls (plugin ABI 4):
// MPI_Ialltoall[v] and MPI_Alltoall[v]_init with topoa2a's algorithms,
// selected by MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM. The plugin builds
// the call's dependency graph (coll/graph.h) into a schedule of MPICH's
// transport-based scheduler, which MPICH's own progress engine runs.
#pragma once

#include "plugin/native/mpich_coll_plugin.h"

namespace topoa2a::native {

// Registers every algorithm for IALLTOALL and IALLTOALLV (host ABI >= 4).
int register_sched_algorithms(const MPICH_Coll_plugin_host& host);

}  // namespace topoa2a::native
