// The executor: runs any compiled plan for MPI_Alltoall over a transport.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "coll/plan.h"
#include "coll/transport.h"

namespace topoa2a {

struct AlltoallArgs {
  const void* sendbuf;  // MPI_IN_PLACE allowed
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
};

// What one call did, for statistics.
struct RunStats {
  int rounds = 0;  // rounds executed (idle ones included)
  long long bytes_sent = 0;
  long long messages_sent = 0;
};

// Largest message (in blocks) the plan sends or receives.
int max_message_blocks(const Plan& plan);

// Run the plan. Returns MPI_SUCCESS or an MPI error code.
int run_alltoall(const Plan& plan, Transport& transport, const AlltoallArgs& args, RunStats* stats);

}  // namespace topoa2a
