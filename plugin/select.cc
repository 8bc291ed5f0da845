#include "plugin/select.h"

#include <climits>
#include <limits>

#include "coll/exec.h"
#include "plugin/comm_state.h"

namespace topoa2a {
namespace {

// Default per-message and per-byte costs (seconds) for the built-in model.
constexpr double kTs = 2e-6, kTw = 1e-9;

const Algorithm* cheapest(int p, const Params& params, long long bytes, bool alltoallv) {
  const Algorithm* best = nullptr;
  double best_time = std::numeric_limits<double>::infinity();
  for (const Algorithm& a : algorithms()) {
    if (alltoallv && !a.alltoallv) continue;
    if (!a.check(p, params).empty()) continue;
    const double t = a.time(p, params, kTs, kTw, static_cast<double>(bytes));
    if (t < best_time) {
      best_time = t;
      best = &a;
    }
  }
  return best;
}

}  // namespace

Decision decide(const Selection& sel, const Config& config, CommState& state, long long bytes,
                bool alltoallv) {
  Decision d;
  const int p = state.size();
  d.params = resolve_params(p, Params{config.mesh_grid});
  if (sel.topo_auto) {
    d.how = "topo_auto";
    d.algo = cheapest(p, d.params, bytes, alltoallv);
  } else {
    d.how = "forced";
    d.algo = sel.ours;
  }
  if (!d.algo) return d;
  d.cannot_run = d.algo->check(p, d.params);
  if (d.cannot_run.empty() && !alltoallv) {
    // Messages are counted in MPI ints.
    const long long largest =
        static_cast<long long>(max_message_blocks(state.plan(*d.algo, d.params))) * bytes;
    if (largest > INT_MAX)
      d.cannot_run = std::string(d.algo->name) + " would send a message of " +
                     std::to_string(largest) + " bytes, more than one MPI call can carry";
  }
  return d;
}

}  // namespace topoa2a
