// Shared by the preload front door's translation units.
#pragma once

namespace topoa2a {

// True after MPI_Init when topoa2a handles some collective (an algorithm of
// ours is selected): only then is per-communicator state built.
bool front_active();

}  // namespace topoa2a
