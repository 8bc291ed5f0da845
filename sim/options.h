// sim_a2a's command line (sim/driver.cc's header comment says what the
// program does; usage() lists the options).
#pragma once

#include <string>
#include <vector>

#include "topology/cost_model.h"
#include "topology/topology.h"

namespace sim {

struct Options {
  std::vector<long> sizes{8, 1024};
  std::vector<std::string> algs;  // ours, "topo_auto", "mpi", "mpich_NAME"
  std::string platform = "unnamed";
  std::string topology;   // forced topology for the cost model
  std::string cost;       // MPIR_CVAR_TOPOA2A_COST syntax
  std::string cost_file;  // a cost file (topoa2a-calibrate's); --cost overrides it key by key
  std::string mpi_label = "mpi";
  std::string csv;
  int iters = 1;
  int window = 0;  // --window: messages in flight for our forced algorithms (0: their default)
  int warmup = 1;
  bool check = true;
  bool shared = false;  // SMPI_SHARED_MALLOC buffers (no payload, no check)
  int explain_p = 0;    // > 0: print the cost model's estimates for p ranks, run nothing
};

// The options, or exit status 2 with the usage line. --list prints the
// algorithm table and exits 0.
Options parse(int argc, char** argv);
[[noreturn]] void usage(const char* msg);
// --topology's Topology for p ranks / --cost-file and --cost's costs, or
// exit status 2 with the usage line and the reason.
topoa2a::Topology topology_or_exit(int p, const Options& o);
topoa2a::CostParams cost_or_exit(const Options& o);

}  // namespace sim
