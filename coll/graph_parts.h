// What the graph builders (graph.cc: fixed-size and direct messages,
// graph_v.cc: forwarded alltoallv blocks) share: where the user's blocks
// are, the in-place copy, the self copy and the window over the steps.
// Internal to coll/.
#pragma once

#include <functional>
#include <new>
#include <vector>

#include "coll/exec_buffers.h"
#include "coll/graph.h"

namespace topoa2a::detail {

// Block i of a side is block_count(i) elements of its datatype at addr(i).
struct Side {
  const char* base = nullptr;  // may be MPI_BOTTOM
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeInfo info;
  MPI_Aint count = 0;           // alltoall: elements per block
  const int* counts = nullptr;  // alltoallv
  const int* displs = nullptr;  // alltoallv
  MPI_Aint block_count(int i) const { return counts ? counts[i] : count; }
  char* addr(int i) const {
    const MPI_Aint first = counts ? static_cast<MPI_Aint>(displs[i]) : i * count;
    return at(base, first * info.extent);
  }
  Message message(int i, int peer) const { return {addr(i), block_count(i), type, peer}; }
  MPI_Aint bytes(int i) const { return block_count(i) * info.size; }
};

// An alltoallv's sides (*send unless MPI_IN_PLACE), from args.
int alltoallv_sides(const AlltoallvArgs& args, GraphBuilder& b, Side* recv, Side* send);

// The send side the vertices read: `given`, or with MPI_IN_PLACE (given
// null) a copy of the receive buffer's footprint, made by a first vertex
// that is added to *base (every vertex waits for it). Not in place, the
// block rank `me` sends itself is copied by a vertex added to *extra.
int send_side(const Side& recv, const Side* given, int p, int me, GraphBuilder& b, Side* send,
              std::vector<int>* base, std::vector<int>* extra);

// Adds every step with add(step, enter, &its vertices), `enter` holding
// what the step waits for (base, and the window: steps 0 .. j_k - 1, see
// graph.h); *last: a join after every step.
using StepAdder =
    std::function<int(const PlanStep& step, const std::vector<int>& enter, std::vector<int>* vtx)>;
int add_steps(const Plan& plan, int window, GraphBuilder& b, const std::vector<int>& base,
              const StepAdder& add, int* last);

// A callback as the scheduler calls it: no C++ exception leaves it.
template <int (*F)(void*)>
int guarded(void* data) {
  try {
    return F(data);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

// Calls fn(data) after `after` (a callback vertex).
inline int add_callback(GraphBuilder& b, int (*fn)(void*), void* data,
                        const std::vector<int>& after) {
  int v;
  return b.callback(fn, data, after, &v);
}

}  // namespace topoa2a::detail
