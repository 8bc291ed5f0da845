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

struct AlltoallvArgs {
  const void* sendbuf;  // MPI_IN_PLACE allowed
  const int* sendcounts;
  const int* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* rdispls;
  MPI_Datatype recvtype;
};

// Run the plan. Returns MPI_SUCCESS or an MPI error code of the real class.
// An error does not stop the rank's traffic: it still completes every
// message of its schedule (discard mode, see transport.h), so that no rank
// waits for it; it returns its first error, and a rank that received a
// lost payload returns the class its sender failed with.
int run_alltoall(const Plan& plan, Transport& transport, const AlltoallArgs& args, RunStats* stats);

// Run a schedule for MPI_Alltoallv. Block sizes differ, so forwarded blocks
// travel in self-describing messages (a header of block sizes, then the
// packed blocks) whose length the receiver learns by a matched probe; a
// message of one block straight from its source to its destination uses the
// user's buffers and datatypes, as in run_alltoall. Errors as run_alltoall.
int run_alltoallv(const Schedule& schedule, Transport& transport, const AlltoallvArgs& args,
                  RunStats* stats);

}  // namespace topoa2a
