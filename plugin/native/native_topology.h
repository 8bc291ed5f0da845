// Topology detection in the native front door: from what MPICH knows of a
// communicator (its node map, world ranks, Cartesian topology) and the
// facts gathered once over MPI_COMM_WORLD at MPI_Init. Local: building a
// communicator's topology needs no communication.
#pragma once

#include <string>
#include <vector>

#include "plugin/native/mpich_coll_plugin.h"
#include "topology/descriptions.h"
#include "topology/topology.h"

namespace topoa2a {

// Per MPI_COMM_WORLD rank.
struct WorldFacts {
  std::vector<std::string> host_names;
  std::vector<int> package, numa;
  int nodes = 0;  // MPICH's node count
};

// Collective over `world` (MPI_COMM_WORLD, while MPICH commits it): a ring
// allgather of each process's host name and CPU binding.
int gather_world_facts(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* world,
                       WorldFacts* out);

Topology native_topology(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm,
                         const WorldFacts& world, const UserDescriptions& descriptions,
                         const std::vector<int>& cart_dims, const std::vector<int>& cart_periods);

}  // namespace topoa2a
