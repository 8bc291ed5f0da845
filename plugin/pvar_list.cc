#include "plugin/pvar_list.h"

#include <cstdio>
#include <cstring>

#include "coll/algorithms.h"
#include "plugin/stats.h"

namespace topoa2a {

const std::vector<Pvar>& pvars() {
  static const std::vector<Pvar> list = [] {
    std::vector<Pvar> out;
    static const char* const kCounters[] = {"calls", "rounds", "bytes"};
    static const char* const kWhat[] = {"calls of MPI_%s that %s ran",
                                        "communication rounds of the MPI_%s calls %s ran",
                                        "bytes this process sent in the MPI_%s calls %s ran"};
    // The statistics' operations and the MPI call each counts (the
    // nonblocking and persistent ones are the preload door's only; in the
    // native door their counters stay 0).
    static const char* const kOps[][2] = {{"alltoall", "Alltoall"},
                                          {"alltoallv", "Alltoallv"},
                                          {"ialltoall", "Ialltoall"},
                                          {"ialltoallv", "Ialltoallv"},
                                          {"alltoall_init", "Alltoall_init (each start)"},
                                          {"alltoallv_init", "Alltoallv_init (each start)"}};
    for (const auto& entry : kOps) {
      const char* op = entry[0];
      const bool v = std::strchr(op, 'v') != nullptr;
      std::vector<std::string> names;
      for (const Algorithm& a : algorithms())
        if (!v || a.alltoallv) names.push_back(a.name);
      names.push_back("mpich");
      const std::string Op = entry[1];
      for (const std::string& alg : names)
        for (int c = 0; c < 3; ++c) {
          char desc[160];
          const std::string who =
              alg == "mpich" ? "MPICH (fallbacks, topo_auto's MPICH choices)" : "topoa2a's " + alg;
          std::snprintf(desc, sizeof desc, kWhat[c], Op.c_str(), who.c_str());
          out.push_back(
              {std::string("topoa2a_") + op + "_" + alg + "_" + kCounters[c], desc, op, alg, c});
        }
    }
    return out;
  }();
  return list;
}

unsigned long long pvar_value(const Pvar& v) {
  long long c[3] = {0, 0, 0};
  topoa2a_stats_get(v.op.c_str(), v.algorithm.c_str(), &c[0], &c[1], &c[2]);
  return static_cast<unsigned long long>(c[v.counter]);
}

}  // namespace topoa2a
