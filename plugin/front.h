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

}  // namespace topoa2a
