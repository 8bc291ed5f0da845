// topoa2a's MPI_T variables (plugin/pvar_list.h) in MPICH's own MPI_T,
// through the plugin ABI: all of them on a host of ABI 3 or later, the
// per-process counters only on ABI 2, none on ABI 1.
#pragma once

#include "plugin/native/mpich_coll_plugin.h"
#include "plugin/stats.h"

namespace topoa2a {

// stats_of: the statistics of a communicator, from the state comm_create
// made for it. During the plugin's entry point.
int register_native_pvars(const MPICH_Coll_plugin_host& host,
                          const CommStats* (*stats_of)(void* comm_state));

}  // namespace topoa2a
