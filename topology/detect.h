// Topology detection for the preload front door and the tools (PMPI calls
// only: this code runs inside the MPI_* interposer, so calling MPI_* here
// would recurse into the plugin).
//
// The facts are gathered once, collectively over MPI_COMM_WORLD, at
// MPI_Init (gather_world); every communicator's topology is then derived
// from them locally (comm_facts + derive_topology, topology/world.h).
#pragma once

#include <mpi.h>

#include "topology/descriptions.h"
#include "topology/world.h"

namespace topoa2a {

// Collective over MPI_COMM_WORLD. Each process's node (MPI_Comm_split_type
// SHARED), host name and CPU binding. *descriptions: on world rank 0, the
// user's descriptions (forced topology, network file, cost) as it read them
// (read_user_descriptions); on return every rank holds rank 0's, so that
// every rank derives the same topologies (a rank other than 0 gets them as
// read: parse them with parse_user_descriptions). Returns an MPI error code.
int gather_world(WorldFacts* facts, UserDescriptions* descriptions);

// What the calling process knows of `comm` locally: world ranks of its
// members (MPI_Group_translate_ranks) and its Cartesian grid.
CommFacts comm_facts(MPI_Comm comm);

// For tools: the topology of `comm`. The first call gathers the world's
// facts (collective over MPI_COMM_WORLD); later calls are local.
Topology detect_topology(MPI_Comm comm);

}  // namespace topoa2a
