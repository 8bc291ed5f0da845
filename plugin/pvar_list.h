// The MPI_T performance variables of topoa2a, the same in both doors: three
// counters per operation and algorithm (calls, rounds, bytes), named
// topoa2a_<op>_<algorithm>_<counter>, in one category "topoa2a". The
// preload door lists them by interposing MPI_T (pvars.cc); the native door
// registers them with MPICH's own MPI_T (native/native.cc, plugin ABI 2).
#pragma once

#include <string>
#include <vector>

namespace topoa2a {

struct Pvar {
  std::string name, desc, op, algorithm;
  int counter;  // 0 calls, 1 rounds, 2 bytes
};

// Every algorithm of the table (for MPI_Alltoallv those offered there), then
// "mpich": the calls MPICH ran (fallbacks, topo_auto's MPICH choices).
const std::vector<Pvar>& pvars();

// The counter's value in this process (plugin/stats.h).
unsigned long long pvar_value(const Pvar& v);

inline constexpr const char* kPvarCategory = "topoa2a";
inline constexpr const char* kPvarCategoryDesc =
    "topoa2a's all-to-all algorithms: calls, rounds and bytes";

}  // namespace topoa2a
