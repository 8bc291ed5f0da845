// The facts about the whole job that topology detection needs, gathered
// once over MPI_COMM_WORLD at MPI_Init (each front door gathers them its
// own way), and the topology of any communicator derived from them
// locally: no communication, O(p) work per communicator of p ranks.
//
// Pure C++ (no MPI).
#pragma once

#include <string>
#include <vector>

#include "topology/descriptions.h"
#include "topology/topology.h"

namespace topoa2a {

// Per MPI_COMM_WORLD rank.
struct WorldFacts {
  std::vector<int> node;                // node index, 0..nodes-1
  std::vector<std::string> host_names;  // MPI_Get_processor_name / gethostname
  std::vector<int> package, numa;       // hwloc logical index of the binding, -1 unknown
  int nodes = 0;
  int size() const { return static_cast<int>(node.size()); }
};

// What a front door knows of one communicator without communicating.
struct CommFacts {
  int rank = 0;                 // the calling rank in the communicator
  std::vector<int> world_rank;  // per rank: its MPI_COMM_WORLD rank, -1 if none (spawned)
  // Per rank: a node index (from the same numbering as WorldFacts::node) for
  // ranks without a world rank; empty when every rank has one.
  std::vector<int> node;
  ProcTopo proc_topo = ProcTopo::kNone;      // MPI_Topo_test
  std::vector<int> cart_dims, cart_periods;  // a Cartesian communicator's grid
};

// The communicator's topology: its node layout from the world's, bindings
// and host names by world rank, its process topology, then the user's
// descriptions (forced topology, network file, cost). Problems with the
// descriptions land in Topology::errors (identical on every rank).
Topology derive_topology(const WorldFacts& world, const CommFacts& comm,
                         const UserDescriptions& descriptions);

}  // namespace topoa2a
