// Communicator constructors: each new intracommunicator gets its topoa2a
// state (private duplicate, detected topology) at creation, so nothing is
// detected on the first all-to-all. A duplicate copies its parent's
// topology instead of detecting again. MPI_Comm_idup's result cannot be
// used collectively before its request completes: its state is built on
// first use instead.
#include <mpi.h>

#include "plugin/comm_state.h"
#include "plugin/front.h"

using namespace topoa2a;

#define TOPOA2A_EXPORT __attribute__((visibility("default")))

namespace {
int created(int err, MPI_Comm parent, const MPI_Comm* newcomm, bool dup) {
  if (err == MPI_SUCCESS && newcomm && front_active()) CommState::on_created(*newcomm, parent, dup);
  return err;
}
}  // namespace

extern "C" {

TOPOA2A_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return created(PMPI_Comm_dup(comm, newcomm), comm, newcomm, true);
}

TOPOA2A_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return created(PMPI_Comm_dup_with_info(comm, info, newcomm), comm, newcomm, true);
}

TOPOA2A_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return created(PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                       MPI_Comm* newcomm) {
  return created(PMPI_Comm_split_type(comm, type, key, info, newcomm), comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return created(PMPI_Comm_create(comm, group, newcomm), comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                                         MPI_Comm* newcomm) {
  return created(PMPI_Comm_create_group(comm, group, tag, newcomm), comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                   int reorder, MPI_Comm* newcomm) {
  return created(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), comm, newcomm,
                 false);
}

TOPOA2A_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return created(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                                    int reorder, MPI_Comm* newcomm) {
  return created(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), comm, newcomm,
                 false);
}

TOPOA2A_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                         const int degrees[], const int destinations[],
                                         const int weights[], MPI_Info info, int reorder,
                                         MPI_Comm* newcomm) {
  return created(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                        reorder, newcomm),
                 comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                                  const int sourceweights[], int outdegree,
                                                  const int destinations[], const int destweights[],
                                                  MPI_Info info, int reorder, MPI_Comm* newcomm) {
  return created(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                                 destinations, destweights, info, reorder, newcomm),
                 comm, newcomm, false);
}

TOPOA2A_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm) {
  return created(PMPI_Intercomm_merge(intercomm, high, newcomm), MPI_COMM_NULL, newcomm, false);
}

}  // extern "C"
