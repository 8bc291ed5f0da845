// Graph: one rank's all-to-all as a dependency graph that a scheduler runs
// by itself, with no further help from topoa2a: MPICH's transport-based
// scheduler (gentran) in the native door's nonblocking and persistent
// calls (plugin/native/native_sched.cc).
//
// The same compiled plan (plan.h) the executor runs (exec_engine.h), turned
// into vertices: sends, receives, local copies (packing a block into a
// scratch slot, unpacking a delivered one, the staging moves) and joins.
// Each vertex lists the vertices it waits for, and the dependencies say
// exactly what the engine's rules say:
//  - the window: step k enters once every step before j_k is complete,
//    j_k the first step such that steps j_k..k fit in `window` messages
//    and `depth` steps (exec_engine.h's admit), k itself at least; a
//    join per step, cumulative, stands for "steps 0..j complete";
//  - a send waits for the receives that bring its blocks (PlanSend::after)
//    and for the gathers (copies into its scratch slots) that pack them;
//  - messages between two ranks are issued in schedule order on both
//    sides, so MPI's non-overtaking rule matches them: each send to a peer
//    waits for the previous send to that peer, each receive from a peer
//    for the previous receive from it (stricter than the engine, which
//    orders only the posts; it matters only where a pair exchanges more
//    than once within the window);
//  - round by round (depth 1) a step's receives wait for its gathers (a
//    slot a send gathers from may take that round's data), and the moves
//    from the staging area follow the whole step;
//  - MPI_IN_PLACE: every vertex waits for the copy of the receive buffer
//    the sends work from.
// The engine's deadlock argument (exec_engine.h) carries over: every
// dependency points to an earlier step, or to an earlier message of the
// same step between the same pair of ranks, which its peer issues in the
// same order.
//
// Alltoallv: only plans whose messages all go straight from the user's
// send buffer to the user's receive buffer (PlanSend::direct; the direct
// exchanges): a forwarded alltoallv block has a size its forwarder learns
// only from the message (exec.h), and a graph needs every receive's size
// when it is built. Messages of 0 bytes are left out on both sides.
//
// No MPI call: the builder is the scheduler's.
#pragma once

#include <mpi.h>

#include <vector>

#include "coll/exec.h"
#include "coll/plan.h"
#include "coll/transport.h"

namespace topoa2a {

// The scheduler's vertices. Each call adds one vertex that starts once the
// vertices in `after` (ids it returned earlier) have completed, and stores
// its id in *vtx. Returns an MPI error class.
class GraphBuilder {
 public:
  virtual ~GraphBuilder() = default;
  virtual int send(const Message& m, const std::vector<int>& after, int* vtx) = 0;
  virtual int recv(const Message& m, const std::vector<int>& after, int* vtx) = 0;
  // incount elements of intype at in -> outcount elements of outtype at out.
  virtual int copy(const void* in, MPI_Aint incount, MPI_Datatype intype, void* out,
                   MPI_Aint outcount, MPI_Datatype outtype, const std::vector<int>& after,
                   int* vtx) = 0;
  virtual int join(const std::vector<int>& after, int* vtx) = 0;
  // Memory that lives as long as the graph (null: out of memory).
  virtual void* alloc(MPI_Aint bytes) = 0;
  virtual int type_info(MPI_Datatype type, TypeInfo* info) = 0;
};

// What a built graph does each time it runs.
struct GraphStats {
  int rounds = 0;
  long long bytes_sent = 0;
  long long messages_sent = 0;
};

// Adds this rank's call to b; *last: a vertex that completes after all the
// others (-1: the graph is empty). `window` as for the executor (the plan
// compiled for window_depth(schedule, window)). Errors: an argument the
// call cannot run with (a send block of another size than the receive
// block: MPI_ERR_TRUNCATE), or the builder's.
int build_alltoall_graph(const Plan& plan, const AlltoallArgs& args, int window, GraphBuilder& b,
                         int* last, GraphStats* stats);
// The same for MPI_Alltoallv; the plan must be all_direct (else
// MPI_ERR_INTERN: check graph_supports_alltoallv first).
int build_alltoallv_graph(const Plan& plan, const AlltoallvArgs& args, int window, GraphBuilder& b,
                          int* last, GraphStats* stats);
inline bool graph_supports_alltoallv(const Plan& plan) { return plan.all_direct; }

}  // namespace topoa2a
