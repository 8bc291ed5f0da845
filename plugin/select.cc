#include "plugin/select.h"

#include "plugin/comm_core.h"
#include "topology/node_layout.h"

namespace topoa2a {
Decision decide(const Selection& sel, const Config& config, CommCore& state, long long bytes,
                bool in_place, long long count) {
  Decision d;
  const int p = state.size();
  d.params = resolve_params(p, Params{});
  d.window = config.window;
  if (sel.topo_auto) {
    // The rules file first, then the cost model over the detected topology.
    std::string name;
    if (config.rules) {
      RuleQuery q = rule_query_for(state.topology());
      q.comm_size = p;
      q.avg_msg_size = static_cast<size_t>(bytes);
      q.count = count;
      q.inplace = in_place;
      q.multi_threaded = config.multi_threaded;
      if (auto r = apply_rules(*config.rules, q); r && *r != "topo_auto") {
        name = *r;
        d.how = "topo_auto, rules file";
      }
    }
    if (name.empty()) {
      const Choice& c = state.choice(bytes, in_place);
      name = c.algorithm;
      if (c.params.grid.rows > 0) d.params = c.params;  // mesh's grid as priced
      d.params.leaders = c.params.leaders;              // multileader's k as priced
      // The model's window for its choice (0 there: round by round), unless
      // MPIR_CVAR_TOPOA2A_WINDOW says otherwise.
      if (config.window == 0) d.window = c.window > 0 ? c.window : 1;
      d.how = "topo_auto, cost model";
    }
    d.algo = find_algorithm(name);
    if (!d.algo) {
      d.mpich = name.empty() ? "auto" : name;
      return d;
    }
  } else {
    d.how = "forced";
    d.algo = sel.ours;
  }
  if (!d.algo) return d;
  // What the algorithm takes from the topology (the cost model priced the
  // same), then the user's overrides.
  topology_params(*d.algo, state.topology(), state.layout(), &d.params);
  if (config.leaders > 0) d.params.leaders = config.leaders;  // else topo_auto's or the default
  // Messages of any size go (the transports count in MPI_Count / MPI_Aint).
  d.cannot_run = d.algo->check(p, d.params);
  if (d.cannot_run.empty() && d.window <= 0) d.window = state.default_window(*d.algo, d.params);
  return d;
}

void record_choice(CommCore& state, const std::string& op, const Decision& d) {
  if (d.how.rfind("topo_auto", 0) != 0) return;
  std::string name = "mpich";  // MPICH's own selection
  if (d.algo)
    name = d.algo->name;
  else if (!d.mpich.empty() && d.mpich != "auto")
    name += ":" + d.mpich;
  state.stats()->chose(op, name);
}

}  // namespace topoa2a
