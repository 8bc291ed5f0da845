// The executor: runs any compiled plan for MPI_Alltoall and MPI_Alltoallv
// over a nonblocking transport, as a dependency graph with at most `window`
// messages in flight per rank (0: round by round). One engine
// (exec_engine.h, where the window and why it cannot deadlock are
// explained) serves both; they differ only in what a message carries:
//  - MPI_Alltoall: every block has m bytes, so a forwarded message is its
//    blocks packed back to back in scratch slots (plan.h), no header, and
//    every receive has a known length (a plain nonblocking receive).
//  - MPI_Alltoallv: block sizes differ, so a forwarded message is
//    self-describing (a header of block sizes, then the packed blocks) and
//    its receive has an unknown length (the transport probes for it).
// A message of one block straight from its source to its destination uses
// the user's buffers and datatypes in both.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

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

// What one call did, for statistics.
struct RunStats {
  int rounds = 0;  // rounds executed (idle ones included)
  long long bytes_sent = 0;
  long long messages_sent = 0;
};

// Run the plan. Returns MPI_SUCCESS or an MPI error code of the real class.
// An error does not stop the rank's traffic: it still completes every
// message of its schedule (discard mode, see transport.h), so that no rank
// waits for it; it returns its first error, and a rank that received a
// lost payload returns the class its sender failed with.
// `window` should be the one the plan was compiled for (window_depth).
int run_alltoall(const Plan& plan, Transport& transport, const AlltoallArgs& args, int window,
                 RunStats* stats);

// The same for MPI_Alltoallv (the plan's scratch slots are not used).
int run_alltoallv(const Plan& plan, Transport& transport, const AlltoallvArgs& args, int window,
                  RunStats* stats);

// A started all-to-all that runs on through progress() (the nonblocking
// calls): run_alltoall[v] is start, then progress(true). Its first
// messages are posted when it starts; the user's buffers are not touched
// once progress() has returned true. The plan and transport must outlive
// it; the argument arrays (counts, displacements) are read while it runs.
class Operation {
 public:
  virtual ~Operation() = default;
  // Advances it; block: until it is done. True once it is done.
  virtual bool progress(bool block) = 0;
  // Once done: MPI_SUCCESS or the error, as run_alltoall[v] returns it.
  virtual int result() const = 0;
  // Once done: what it did (nothing counted on an error).
  virtual const RunStats& stats() const = 0;
};

std::unique_ptr<Operation> start_alltoall(const Plan& plan, Transport& transport,
                                          const AlltoallArgs& args, int window);

std::unique_ptr<Operation> start_alltoallv(const Plan& plan, Transport& transport,
                                           const AlltoallvArgs& args, int window);

// Where MPI_Alltoall's scratch slots come from: operator new[] unless set.
// The simulation sets SMPI_SHARED_MALLOC where its payload is unchecked
// (sim_a2a --shared), so that p simulated ranks' scratch does not need p
// times the memory. Set it before any call starts, not during one.
struct ScratchAllocator {
  void* (*alloc)(std::size_t bytes);
  void (*release)(void* memory);
};
void set_scratch_allocator(ScratchAllocator allocator);

}  // namespace topoa2a
