// topoa2a-model-time: how long building the cost model takes for a forced
// topology (no MPI). Usage: topoa2a-model-time P TOPOLOGY [REPEATS]
// e.g. topoa2a-model-time 1024 torus:32x32; TOPOLOGY is what
// MPIR_CVAR_TOPOA2A_TOPOLOGY takes (nodes:64x16,fat_tree). Prints the
// median construction time (CPU time: the machine may be shared), the choice at a few sizes and the
// time of each candidate alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "topology/cost_model.h"
#include "topology/topology.h"

using namespace topoa2a;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: topoa2a-model-time P TOPOLOGY [REPEATS]\n");
    return 2;
  }
  const int p = std::atoi(argv[1]);
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  Topology t = uniform_topology(1, p);
  NetworkDesc d;
  std::string err;
  if (!parse_forced_topology(argv[2], &d, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 2;
  }
  configure_topology(&t, nullptr, "", &d);
  for (const std::string& e : t.errors) {
    std::fprintf(stderr, "%s\n", e.c_str());
    return 2;
  }
  std::vector<double> secs, cpu;
  const CostParams cost;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const CostModel model(t, cost);
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    const auto t1 = std::chrono::steady_clock::now();
    secs.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (i + 1 == repeats)
      for (size_t m : {size_t{8}, size_t{2048}, size_t{32768}}) {
        const Choice c = model.choose(m);
        std::printf("  %8zu B: %s (%s)\n", m, c.algorithm.c_str(),
                    format_seconds(c.predicted).c_str());
      }
  }
  for (const std::string& name : default_candidates()) {
    const std::clock_t c0 = std::clock();
    const CostModel one(t, cost, {name});
    std::printf("  %-14s %.3f s CPU\n", name.c_str(),
                static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
  }
  std::sort(secs.begin(), secs.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "p=%d %s: model construction median %.3f s CPU (min %.3f, max %.3f), %.3f s wall, %d "
      "runs\n",
      p, argv[2], cpu[cpu.size() / 2], cpu.front(), cpu.back(), secs[secs.size() / 2], repeats);
  return 0;
}
