// The calling process's CPU binding (hwloc; no MPI).
#pragma once

namespace topoa2a {

// The calling process's package and NUMA node (hwloc logical indices) from
// its CPU binding; -1 where unknown or unbound across several. Cached.
void local_binding(int* package, int* numa);

}  // namespace topoa2a
