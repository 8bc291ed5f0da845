// Convenience entry: run one algorithm once on a communicator, building the
// schedule and plan on the spot. The front doors cache plans per
// communicator instead; this is for tests, tools and benchmarks.
#pragma once

#include <mpi.h>

#include "coll/algorithms.h"
#include "coll/exec.h"

namespace topoa2a {

// Returns MPI_SUCCESS, an MPI error code from the transfer, or
// MPI_ERR_OTHER when the algorithm cannot run on this communicator (the
// reason, if `why` is given). Traffic uses `comm` directly with
// PmpiTransport::kTag: pass a communicator no user message is pending on.
// window: messages in flight per rank (exec.h); -1: the schedule's default
// (default_window in plan.h).
int run_on_comm(const Algorithm& algo, const Params& params, const AlltoallArgs& args,
                MPI_Comm comm, RunStats* stats = nullptr, std::string* why = nullptr,
                int window = -1);

// The same for MPI_Alltoallv.
int run_v_on_comm(const Algorithm& algo, const Params& params, const AlltoallvArgs& args,
                  MPI_Comm comm, RunStats* stats = nullptr, std::string* why = nullptr,
                  int window = -1);

}  // namespace topoa2a
