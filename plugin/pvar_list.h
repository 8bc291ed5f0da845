// The MPI_T performance variables of topoa2a, the same in both doors, in one
// category "topoa2a":
// - per process (MPI_T_BIND_NO_OBJECT): three counters per operation and
//   algorithm, topoa2a_<op>_<algorithm>_{calls,rounds,bytes};
// - per communicator (MPI_T_BIND_MPI_COMM): the same counters, for the calls
//   on that communicator, topoa2a_comm_<op>_<algorithm>_{calls,rounds,bytes};
//   and topoa2a_comm_<op>_topo_auto_choice, the algorithm topo_auto chose in
//   the last call of <op> it decided there (class STATE, MPI_INT, values
//   named by the MPI_T enum "topoa2a_algorithm": choice_names()).
// Counters are MPI_UNSIGNED_LONG_LONG, continuous and read-only. The
// preload door lists them by interposing MPI_T (pvars.cc); the native door
// registers them with MPICH's own MPI_T (native/native_pvars.cc, plugin ABI 2 and
// 3).
#pragma once

#include <string>
#include <vector>

#include "plugin/stats.h"

namespace topoa2a {

struct Pvar {
  std::string name, desc, op, algorithm;
  int counter = 0;      // 0 calls, 1 rounds, 2 bytes
  bool comm = false;    // bound to a communicator
  bool choice = false;  // topo_auto's last choice (a STATE variable)
};

// The process's counters (every algorithm of the table, for MPI_Alltoallv
// those offered there, then "mpich": the calls MPICH ran, fallbacks and
// topo_auto's MPICH choices), then the communicator's counters in the same
// order, then the choices.
const std::vector<Pvar>& pvars();

// The values of the choice variables: "none" (topo_auto has not decided a
// call of that operation on the communicator), our algorithms, "mpich"
// (MPICH's own selection) and "mpich:<name>" for MPICH's algorithms.
const std::vector<std::string>& choice_names();
inline constexpr const char* kChoiceEnum = "topoa2a_algorithm";

// The variable's value: for the process's counters, this process's; for
// those bound to a communicator, comm's (0, or "none", when comm is null).
// A choice is its index in choice_names().
unsigned long long pvar_value(const Pvar& v, const CommStats* comm = nullptr);

inline constexpr const char* kPvarCategory = "topoa2a";
inline constexpr const char* kPvarCategoryDesc =
    "topoa2a's all-to-all algorithms: calls, rounds and bytes per process and per communicator, "
    "and topo_auto's last choice per communicator";

}  // namespace topoa2a
