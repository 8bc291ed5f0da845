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
// Alltoallv: a plan whose messages all go straight from the user's send
// buffer to the user's receive buffer (PlanSend::direct; the direct
// exchanges) is such a graph, with messages of 0 bytes left out on both
// sides. A forwarded alltoallv block has a size its forwarder learns only
// from the message (exec.h), so a plan that forwards runs the executor's
// own alltoallv payload (exec_v.cc) in callbacks (graph_v.cc): each
// forwarded message goes as its length (a fixed-size message) and then
// the message itself, whose buffer and size a callback sets at run time
// (deferred vertices); callbacks pack what a send carries once the
// receives that bring its blocks have been unpacked, size a receive once
// its length has arrived, and unpack it once it has.
//
// No MPI call: the builder is the scheduler's.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "coll/exec.h"
#include "coll/plan.h"
#include "coll/transport.h"

namespace topoa2a {

// What the builder keeps for the graph's callbacks, until it is freed.
struct GraphState {
  virtual ~GraphState() = default;
};

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
  // fn(data) at every run of the graph; returns an MPI error class (an
  // error fails the run, which still completes).
  virtual int callback(int (*fn)(void* data), void* data, const std::vector<int>& after,
                       int* vtx) = 0;
  // A message whose buffer and count are read when the vertex starts
  // (*buf, *count; type predefined).
  virtual int send_deferred(const void* const* buf, const MPI_Aint* count, MPI_Datatype type,
                            int peer, const std::vector<int>& after, int* vtx) = 0;
  virtual int recv_deferred(void* const* buf, const MPI_Aint* count, MPI_Datatype type, int peer,
                            const std::vector<int>& after, int* vtx) = 0;
  // Memory that lives as long as the graph (null: out of memory).
  virtual void* alloc(MPI_Aint bytes) = 0;
  // Keeps `state` until the graph is freed (on an error: frees it now).
  virtual int keep(std::unique_ptr<GraphState> state) = 0;
  virtual int type_info(MPI_Datatype type, TypeInfo* info) = 0;
};

// What one run of a graph did.
struct GraphStats {
  int rounds = 0;
  long long bytes_sent = 0;
  long long messages_sent = 0;  // of the schedule (a forwarded one counts once)
};

// Called at the end of every run (from the graph's last vertex).
using GraphDone = std::function<void(const GraphStats&)>;

// Adds this rank's call to b; its last vertex calls `done` (if set).
// `window` as for the executor (the plan compiled for window_depth(schedule,
// window)). Errors: an argument the call cannot run with (a send block of
// another size than the receive block: MPI_ERR_TRUNCATE), or the builder's.
int build_alltoall_graph(const Plan& plan, const AlltoallArgs& args, int window, GraphBuilder& b,
                         GraphDone done);
// The same for MPI_Alltoallv. datatypes packs and unpacks forwarded blocks
// (kept with the graph); the argument arrays are copied.
int build_alltoallv_graph(const Plan& plan, const AlltoallvArgs& args, int window, GraphBuilder& b,
                          std::unique_ptr<Transport> datatypes, GraphDone done);

}  // namespace topoa2a
