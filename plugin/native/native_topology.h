// Topology detection in the native front door: the facts gathered once over
// MPI_COMM_WORLD at MPI_Init, and what MPICH knows of a communicator (its
// node map, world ranks), handed to the detector both doors share
// (derive_topology, topology/world.h). Local: building a communicator's
// topology needs no communication.
#pragma once

#include <string>
#include <vector>

#include "plugin/native/mpich_coll_plugin.h"
#include "topology/descriptions.h"
#include "topology/topology.h"
#include "topology/world.h"

namespace topoa2a {

// Collective over `world` (MPI_COMM_WORLD, while MPICH commits it): a ring
// allgather of each process's host name and CPU binding.
int gather_world_facts(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* world,
                       WorldFacts* out);

Topology native_topology(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm,
                         const WorldFacts& world, const UserDescriptions& descriptions,
                         const std::vector<int>& cart_dims, const std::vector<int>& cart_periods);

}  // namespace topoa2a
