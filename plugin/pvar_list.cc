#include "plugin/pvar_list.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "coll/algorithms.h"
#include "topology/rules.h"

namespace topoa2a {

namespace {

// The statistics' operations and the MPI call each counts (the nonblocking
// and persistent ones in the native door on hosts of plugin ABI 4).
constexpr const char* kOps[][2] = {{"alltoall", "Alltoall"},
                                   {"alltoallv", "Alltoallv"},
                                   {"ialltoall", "Ialltoall"},
                                   {"ialltoallv", "Ialltoallv"},
                                   {"alltoall_init", "Alltoall_init (each start)"},
                                   {"alltoallv_init", "Alltoallv_init (each start)"}};

void add_counters(bool comm, std::vector<Pvar>* out) {
  static const char* const kCounters[] = {"calls", "rounds", "bytes"};
  static const char* const kWhat[] = {"calls of MPI_%s that %s ran%s",
                                      "communication rounds of the MPI_%s calls %s ran%s",
                                      "bytes this process sent in the MPI_%s calls %s ran%s"};
  const char* where = comm ? " on the communicator" : "";
  for (const auto& entry : kOps) {
    const char* op = entry[0];
    const bool v = std::strchr(op, 'v') != nullptr;
    std::vector<std::string> names;
    for (const Algorithm& a : algorithms())
      if (!v || a.alltoallv) names.push_back(a.name);
    names.push_back("mpich");
    for (const std::string& alg : names)
      for (int c = 0; c < 3; ++c) {
        char desc[200];
        const std::string who =
            alg == "mpich" ? "MPICH (fallbacks, topo_auto's MPICH choices)" : "topoa2a's " + alg;
        std::snprintf(desc, sizeof desc, kWhat[c], entry[1], who.c_str(), where);
        Pvar p;
        p.name =
            std::string(comm ? "topoa2a_comm_" : "topoa2a_") + op + "_" + alg + "_" + kCounters[c];
        p.desc = desc;
        p.op = op;
        p.algorithm = alg;
        p.counter = c;
        p.comm = comm;
        out->push_back(std::move(p));
      }
  }
}

}  // namespace

const std::vector<Pvar>& pvars() {
  static const std::vector<Pvar> list = [] {
    std::vector<Pvar> out;
    add_counters(false, &out);
    add_counters(true, &out);
    for (const auto& entry : kOps) {
      Pvar p;
      p.op = entry[0];
      p.name = std::string("topoa2a_comm_") + entry[0] + "_topo_auto_choice";
      p.desc = std::string("the algorithm topo_auto chose in the last MPI_") + entry[1] +
               " it decided on the communicator (enum " + kChoiceEnum + ")";
      p.comm = true;
      p.choice = true;
      out.push_back(std::move(p));
    }
    return out;
  }();
  return list;
}

const std::vector<std::string>& choice_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"none"};
    for (const Algorithm& a : algorithms()) out.push_back(a.name);
    out.push_back("mpich");
    for (const std::string& m : mpich_alltoall_algorithms()) out.push_back("mpich:" + m);
    return out;
  }();
  return names;
}

unsigned long long pvar_value(const Pvar& v, const CommStats* comm) {
  if (v.choice) {
    const std::string last = comm ? comm->last_choice(v.op) : std::string();
    const auto& names = choice_names();
    auto it = std::find(names.begin(), names.end(), last.empty() ? "none" : last);
    if (it == names.end()) it = std::find(names.begin(), names.end(), "mpich");
    return static_cast<unsigned long long>(it - names.begin());
  }
  Counters c;
  if (!v.comm)
    topoa2a_stats_get(v.op.c_str(), v.algorithm.c_str(), &c.calls, &c.rounds, &c.bytes);
  else if (comm)
    c = comm->get(v.op, v.algorithm);
  const long long values[3] = {c.calls, c.rounds, c.bytes};
  return static_cast<unsigned long long>(values[v.counter]);
}

}  // namespace topoa2a
