// topoa2a-info: run under mpiexec; prints the topology detected for
// MPI_COMM_WORLD (and for a Cartesian communicator with --cart AxB[xC..],
// periodic with --periodic) and the algorithm topo_auto picks for each
// block size from 1 B to 16 MiB. --json prints the same as JSON. --prices
// B[,B...] adds, for each of those block sizes, every candidate's predicted
// time (fastest first; where one cannot run, why).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/schedule.h"
#include "topology/cost_file.h"
#include "topology/cost_model.h"
#include "topology/detect.h"
#include "topology/node_layout.h"

using namespace topoa2a;

namespace {

// A JSON string's contents: quotes, backslashes and control characters escaped.
std::string json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

constexpr size_t kMaxPriceBytes = size_t{1} << 30;

// "4096,65536" -> {4096, 65536}; false on anything else (or a size outside
// 1 .. kMaxPriceBytes).
bool parse_sizes(const char* s, std::vector<size_t>* out) {
  for (const char* at = s;;) {
    char* end = nullptr;
    if (*at < '0' || *at > '9') return false;
    const unsigned long long v = std::strtoull(at, &end, 10);
    if (v == 0 || v > kMaxPriceBytes || (*end && *end != ',')) return false;
    out->push_back(static_cast<size_t>(v));
    if (!*end) return true;
    at = end + 1;
  }
}

// Every algorithm of the table on this communicator, with the parameters a
// run takes (its node layout, the torus grid, MPIR_CVAR_TOPOA2A_LEADERS,
// MPIR_CVAR_TOPOA2A_MESH_GRID and MPIR_CVAR_TOPOA2A_TORUS_DIMS): rounds, or
// why it cannot run.
void print_algorithms(const Topology& t) {
  const auto layout = node_layout_for(t);
  std::printf("algorithms:\n");
  for (const Algorithm& a : algorithms()) {
    Params params;
    topology_params(a, t, layout, &params);
    params.leaders = t.leaders;
    params = resolve_params(t.size, params);
    const std::string why = a.check(t.size, params);
    if (why.empty())
      std::printf("  %-14s %6d rounds  %s\n", a.name, a.rounds(t.size, params), a.description);
    else
      std::printf("  %-14s cannot run: %s\n", a.name, why.c_str());
  }
}

// "7" messages in flight per rank, "rounds" round by round, "-" for MPICH's
// algorithms (MPICH runs them its way).
std::string window_of(const std::string& algorithm, int window) {
  return !find_algorithm(algorithm) ? "-" : window > 0 ? std::to_string(window) : "rounds";
}

// Every candidate's price at each block size of `sizes`: applicable ones
// fastest first, then those that cannot run here.
void print_prices(const CostModel& model, const std::vector<size_t>& sizes, bool json) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    Choice c = model.choose(sizes[i]);
    std::stable_sort(c.considered.begin(), c.considered.end(),
                     [](const Estimate& a, const Estimate& b) {
                       if (a.applicable != b.applicable) return a.applicable;
                       return a.applicable && a.predicted < b.predicted;
                     });
    if (json) {
      std::printf("%s{\"bytes\": %zu, \"candidates\": [", i ? ", " : "", sizes[i]);
      for (size_t j = 0; j < c.considered.size(); ++j) {
        const Estimate& e = c.considered[j];
        std::printf("%s{\"algorithm\": \"%s\", \"applicable\": %s", j ? ", " : "",
                    e.algorithm.c_str(), e.applicable ? "true" : "false");
        if (e.applicable)
          std::printf(", \"window\": %d, \"predicted_s\": %.9g, \"chosen\": %s}", e.window,
                      e.predicted, e.algorithm == c.algorithm ? "true" : "false");
        else
          std::printf(", \"why_not\": \"%s\"}", json_escape(e.why_not).c_str());
      }
      std::printf("]}");
      continue;
    }
    std::printf("prices at %s (* topo_auto's pick):\n", format_bytes(sizes[i]).c_str());
    for (const Estimate& e : c.considered) {
      if (e.applicable)
        std::printf("  %s %-16s %8s %12s\n", e.algorithm == c.algorithm ? "*" : " ",
                    e.algorithm.c_str(), window_of(e.algorithm, e.window).c_str(),
                    format_seconds(e.predicted).c_str());
      else
        std::printf("    %-16s cannot run: %s\n", e.algorithm.c_str(), e.why_not.c_str());
    }
  }
}

void print_table(const char* title, const Topology& t, bool json, bool last,
                 const std::vector<size_t>& prices) {
  std::string error;
  std::vector<std::string> from;
  const CostParams cost = cost_params_for(t, &error, &from);
  const CostModel model(t, cost);  // built once: the table and the prices
  const auto rows = decision_table(model);
  if (json) {
    std::printf("  \"%s\": {\"size\": %d, \"nodes\": %d, \"ranks_per_node\": %d, ", title, t.size,
                t.nodes, t.ranks_per_node);
    std::printf("\"network\": \"%s\", \"source\": \"%s\", \"costs\": {", to_string(t.network.kind),
                t.network.source.c_str());
    const std::vector<std::string> keys = cost_keys();
    CostParams copy = cost;
    for (size_t i = 0; i < keys.size(); ++i)
      std::printf("%s\"%s\": {\"value_s\": %.9g, \"from\": \"%s\"}", i ? ", " : "", keys[i].c_str(),
                  *cost_field(&copy, keys[i]),
                  json_escape(i < from.size() ? from[i] : "default").c_str());
    std::printf("}, \"choices\": [");
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::printf(
          "%s{\"bytes\": %zu, \"algorithm\": \"%s\", \"window\": %d, \"predicted_s\": %.9g}",
          i ? ", " : "", r.bytes, r.choice.algorithm.c_str(), r.choice.window, r.choice.predicted);
    }
    std::printf("]");
    if (!prices.empty()) {
      std::printf(", \"prices\": [");
      print_prices(model, prices, true);
      std::printf("]");
    }
    std::printf("}%s\n", last ? "" : ",");
    return;
  }
  std::printf("== %s\n%s\n", title, describe(t).c_str());
  if (!error.empty()) std::printf("cost: %s\n", error.c_str());
  std::printf("cost model: %s\n", to_string(cost).c_str());
  std::printf("costs from: %s\n", describe_cost(cost, from).c_str());
  std::printf("%12s  %-14s %-10s %8s %12s\n", "block size", "topo_auto", "grid", "window",
              "predicted");
  for (const auto& r : rows) {
    std::string grid = r.choice.algorithm == "mesh"
                           ? std::to_string(r.choice.params.grid.rows) + "x" +
                                 std::to_string(r.choice.params.grid.cols)
                           : "";
    std::printf("%12s  %-14s %-10s %8s %12s\n", format_bytes(r.bytes).c_str(),
                r.choice.algorithm.c_str(), grid.c_str(),
                window_of(r.choice.algorithm, r.choice.window).c_str(),
                format_seconds(r.choice.predicted).c_str());
  }
  print_prices(model, prices, false);
  print_algorithms(t);
  for (const auto& w : t.warnings) std::printf("warning: %s\n", w.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool json = false, periodic = false, bad = false;
  std::string cart;
  std::vector<size_t> prices;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json"))
      json = true;
    else if (!std::strcmp(argv[i], "--periodic"))
      periodic = true;
    else if (!std::strcmp(argv[i], "--cart") && i + 1 < argc)
      cart = argv[++i];
    else if (!std::strcmp(argv[i], "--prices") && i + 1 < argc)
      bad |= !parse_sizes(argv[++i], &prices);
    else
      bad = true;
  }
  if (bad) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpiexec -n P topoa2a-info [--json] [--cart AxB] [--periodic] "
                   "[--prices B[,B...]]\n"
                   "  --prices: every candidate's predicted time at these block sizes "
                   "(bytes, 1..%zu)\n",
                   kMaxPriceBytes);
    MPI_Finalize();
    return 2;
  }
  const Topology world = detect_topology(MPI_COMM_WORLD);
  int status = world.errors.empty() ? 0 : 1;
  if (rank == 0)
    for (const auto& e : world.errors) std::fprintf(stderr, "topoa2a-info: %s\n", e.c_str());
  Topology cart_topo;
  MPI_Comm cart_comm = MPI_COMM_NULL;
  if (!cart.empty()) {
    std::vector<int> dims;
    for (size_t at = 0; at < cart.size();) {
      size_t x = cart.find('x', at);
      dims.push_back(std::atoi(cart.substr(at, x - at).c_str()));
      at = x == std::string::npos ? cart.size() : x + 1;
    }
    int p = 0, prod = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int d : dims) prod *= d;
    if (prod != p) {
      if (rank == 0)
        std::fprintf(stderr, "topoa2a-info: --cart %s is not %d ranks\n", cart.c_str(), p);
      MPI_Finalize();
      return 2;
    }
    std::vector<int> periods(dims.size(), periodic ? 1 : 0);
    MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), 0,
                    &cart_comm);
    cart_topo = detect_topology(cart_comm);
  }
  if (rank == 0) {
    if (json) std::printf("{\n");
    print_table("MPI_COMM_WORLD", world, json, cart.empty(), prices);
    if (!cart.empty()) print_table(("cart " + cart).c_str(), cart_topo, json, true, prices);
    if (json) std::printf("}\n");
  }
  if (cart_comm != MPI_COMM_NULL) MPI_Comm_free(&cart_comm);
  MPI_Finalize();
  return status;
}
