// sim_a2a's command line: parsing, and the topology and costs it names.
#include "sim/options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "coll/algorithms.h"
#include "sim/auto_choice.h"
#include "topology/cost_file.h"

namespace sim {
namespace {

using topoa2a::Algorithm;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(sep, pos);
    if (end == std::string::npos) end = s.size();
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

void usage(const char* msg) {
  std::fprintf(
      stderr,
      "sim_a2a: %s\nusage: sim_a2a [--sizes B,B,...] [--algs a,b,...|all] "
      "[--platform NAME] [--topology T] [--cost C] [--cost-file F] [--mpi-label NAME] [--iters N] "
      "[--warmup N] [--window W] [--no-check] [--shared] [--csv FILE] [--explain P] [--list]\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(value(), ',')) o.sizes.push_back(std::atol(s.c_str()));
    } else if (a == "--algs") {
      o.algs = split(value(), ',');
    } else if (a == "--platform") {
      o.platform = value();
    } else if (a == "--topology") {
      o.topology = value();
    } else if (a == "--cost") {
      o.cost = value();
    } else if (a == "--cost-file") {
      o.cost_file = value();
    } else if (a == "--mpi-label") {
      o.mpi_label = value();
    } else if (a == "--csv") {
      o.csv = value();
    } else if (a == "--iters") {
      o.iters = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--window") {
      o.window = std::atoi(value().c_str());
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::atoi(value().c_str()));
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "--list") {
      // The algorithm table, one name a line (for the sweep scripts).
      for (const Algorithm& t : topoa2a::algorithms()) std::printf("%s\n", t.name);
      std::exit(0);
    } else if (a == "--explain") {
      o.explain_p = std::atoi(value().c_str());
    } else if (a == "--shared") {
      o.shared = true;
      o.check = false;
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  // "all": every algorithm of the table, then topo_auto.
  std::vector<std::string> algs;
  for (const std::string& a : o.algs.empty() ? std::vector<std::string>{"all"} : o.algs) {
    if (a != "all") {
      algs.push_back(a);
      continue;
    }
    for (const Algorithm& t : topoa2a::algorithms()) algs.push_back(t.name);
    algs.push_back("topo_auto");
  }
  o.algs = algs;
  for (long s : o.sizes)
    if (s < 8 || s % 8 != 0) usage("sizes must be multiples of 8 bytes");
  return o;
}

topoa2a::Topology topology_or_exit(int p, const Options& o) {
  std::string err;
  topoa2a::Topology t = sim::sim_topology(p, o.topology, &err);
  if (!err.empty()) usage(err.c_str());
  return t;
}

topoa2a::CostParams cost_or_exit(const Options& o) {
  // The plugin's precedence (topology/cost_file.h): the defaults, the file,
  // then --cost (MPIR_CVAR_TOPOA2A_COST) key by key.
  topoa2a::CostParams cost;
  std::string text, read_error, err;
  if (!o.cost_file.empty()) topoa2a::read_text_file(o.cost_file, &text, &read_error);
  if (!topoa2a::resolve_cost(o.cost_file, text, read_error, o.cost, &cost, nullptr, &err))
    usage(err.c_str());
  return cost;
}

}  // namespace sim
