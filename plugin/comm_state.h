// Per-communicator state of the preload front door, cached as an MPI
// attribute: a private duplicate for internal traffic, plus the shared
// per-communicator core (topology, plans, choices; plugin/comm_core.h).
#pragma once

#include <mpi.h>

#include "plugin/comm_core.h"

namespace topoa2a {

class CommState : public CommCore {
 public:
  // The state of `comm`, created (collectively: it duplicates the
  // communicator) on first use. Null on failure, with *err set.
  static CommState* get(MPI_Comm comm, int* err);
  // Create the attribute key (after MPI_Init) / drop world's state (before
  // MPI_Finalize).
  static int init_keyval();
  // Build the state of a new communicator (collective over it; no-op for
  // MPI_COMM_NULL and intercommunicators). A duplicate (dup true) takes its
  // parent's detected facts instead of detecting again.
  static void on_created(MPI_Comm comm, MPI_Comm parent, bool dup);
  // Communicators whose state this process has built, and how many of them
  // detected their topology (a duplicate copies it).
  static long created_count();
  static long detected_count();
  static void release(MPI_Comm comm);

  MPI_Comm shadow() const { return shadow_; }

 private:
  CommState(MPI_Comm shadow, int size, int rank, long id)
      : CommCore(size, rank, id), shadow_(shadow) {}
  static int delete_fn(MPI_Comm, int, void* value, void*);
  static CommState* create(MPI_Comm comm, const CommState* parent, int* err);

  MPI_Comm shadow_;
};

}  // namespace topoa2a
