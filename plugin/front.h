// Shared by the preload front door's translation units.
#pragma once

namespace topoa2a {

struct Config;

// True after MPI_Init when topoa2a handles some collective (an algorithm of
// ours is selected): only then is per-communicator state built.
bool front_active();

// The configuration read at MPI_Init; null before MPI_Init and after
// MPI_Finalize. Changed only through topoa2a_select (plugin/control.h).
Config* front_config();

// Once per process, collective over MPI_COMM_WORLD: the facts every
// communicator's topology is derived from (plugin/comm_state.h). Done in
// MPI_Init when one of ours is selected there, else by the first
// topoa2a_select that selects one. A malformed description of the machine
// stops the program (one line per problem from world rank 0, exit status 1).
void front_gather_world();

}  // namespace topoa2a
