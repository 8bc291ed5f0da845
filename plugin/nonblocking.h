// Nonblocking all-to-alls in the preload door (MPI_Ialltoall[v], and the
// starts of the persistent MPI_Alltoall[v]_init): topoa2a's executor
// (coll/exec.h, Operation) advanced by MPI's progress.
//
// The request. The user gets an MPICH extended generalized request
// (MPIX_Grequest_class_create with a poll and a wait function, as ROMIO
// uses for its nonblocking I/O). MPICH 4.0.2 calls the poll function from
// MPI_Test, MPI_Testany/all/some, MPI_Wait (in a loop until the request is
// complete), MPI_Waitany and MPI_Waitsome on any mix of requests, and the
// wait function from MPI_Waitall; it leaves its global critical section
// around both, so they may call MPI (ROMIO's do). So the request behaves as
// an MPI request in every call that takes one, and completion is
// MPI_Grequest_complete from our progress. Why not a plain generalized
// request: nothing would call us, and a progress thread would busy-poll
// beside the application (or need MPI_THREAD_MULTIPLE).
//
// Progress. Every poll or wait call advances every outstanding operation of
// the process (nb_progress_all), not only the one it was asked about: ranks
// may complete operations in different orders, and a rank that waits for
// one must still move the others for its peers. So progress happens inside
// MPI calls that test or wait on one of topoa2a's requests, and in
// topoa2a's own calls (starts, MPI_Request_get_status); not inside other
// MPI calls: a rank blocked in, say, MPI_Recv does not advance its
// outstanding topoa2a operations (MPICH without an asynchronous progress
// thread advances its own schedules there). See README, MPI semantics.
//
// Traffic. Each operation runs on a private communicator of its own for its
// lifetime: a communicator's state keeps kSlots private communicators,
// made the first time a slot is used with MPI_Comm_idup of the
// communicator's private duplicate (nonblocking, no user attribute), and
// the operation with sequence number s on that communicator takes slot
// s mod kSlots. MPI makes every rank start a communicator's collectives in
// the same order, so every rank picks the same slot for the same operation;
// a start whose slot is still held by an operation kSlots earlier (still
// incomplete on this rank) first advances everything until it is free.
//
// Threads. One process-wide (recursive) mutex guards the operations and the
// slots; a communicator's state lives while any operation on it does.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "coll/exec.h"
#include "coll/transport.h"

namespace topoa2a {

class CommState;

constexpr int kSlots = 4;

// What an operation runs once its private communicator `slot` is there.
struct Launched {
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Operation> op;         // one of topoa2a's algorithms, or
  MPI_Request mpich = MPI_REQUEST_NULL;  // MPICH's, on `slot`
  std::string algo;                      // for the statistics
  int err = MPI_SUCCESS;                 // it could not start
};
// agreed: false when the agreement (below) found that ranks disagree.
using Launch = std::function<Launched(MPI_Comm slot, bool agreed)>;

// Starts an operation on `state` (the user's communicator's; its private
// duplicate exists) and returns its request in *request. agree: before
// launching, check with a nonblocking allreduce on the slot that every rank
// passed the same `agree_value` (topo_auto's block size). stats_op: the
// statistics' operation name. Returns MPI_SUCCESS or an error code.
int nb_start(CommState& state, const char* stats_op, bool agree, long long agree_value,
             Launch launch, MPI_Request* request);

// Advances every outstanding operation once (nonblocking).
void nb_progress_all();
// True while some operation is outstanding (cheap).
bool nb_any_live();

// From the communicator's attribute delete callback: true when the state
// may be deleted now; false when operations still run on it (the last one
// to finish deletes it).
bool nb_release_state(CommState* state);

// Persistent requests (plugin/persistent.cc). `start` begins one run and
// returns its request (one of nb_start's or MPICH's). The handle the user
// gets is an inactive persistent request of MPICH's (a receive on
// MPI_COMM_SELF, never started), so that calls we do not
// intercept see an inactive persistent request; MPI_Start[all], the wait
// and test calls, MPI_Request_get_status and MPI_Request_free are
// intercepted for the handles in the table: while a run is active they
// act on its request instead.
using PersistentStart = std::function<int(MPI_Request* run)>;
int persistent_init(PersistentStart start, MPI_Request* handle);

}  // namespace topoa2a
