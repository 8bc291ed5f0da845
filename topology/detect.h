// Topology detection for a communicator (PMPI calls only).
//
// Collective over `comm`: every rank must call it, once per communicator
// (the caller caches the result). Rank 0 reads the environment and the
// network file and broadcasts them, so every rank builds the same Topology
// and later makes the same choices.
#pragma once

#include <mpi.h>

#include <string>

#include "topology/binding.h"
#include "topology/topology.h"

namespace topoa2a {

struct DetectOptions {
  // Read MPIR_CVAR_TOPOA2A_TOPOLOGY and MPIR_CVAR_TOPOA2A_NETWORK_FILE (on
  // rank 0) unless the fields below are set.
  bool read_env = true;
  std::string forced;             // non-empty: the forced topology string to use
  std::string network_file;       // non-empty: the network file to read
  bool use_hwloc = true;          // package / NUMA of each rank's binding
  bool use_cart = true;           // Cartesian dims (and the cart-derived network)
  bool gather_hostnames = false;  // fill node_names even if no host line needs them
};

// Nodes (MPI_Comm_split_type SHARED), world ranks, package / NUMA (hwloc),
// the communicator's process topology, then the network file and the forced
// topology (configure_topology). Problems with the user's descriptions land
// in Topology::errors / warnings (identical on all ranks); detection itself
// does not fail. On an intercommunicator only the local group is described
// and an error notes it.
Topology detect_topology(MPI_Comm comm, const DetectOptions& options = {});

}  // namespace topoa2a
