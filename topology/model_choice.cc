// The choice: the argmin over the candidates (with the tie order), its
// reason, and the decision table over block sizes.
#include <algorithm>
#include <sstream>

#include "coll/algorithms.h"
#include "topology/cost_model.h"
#include "topology/model_pattern.h"

namespace topoa2a {

namespace {
std::string label(const Estimate& e) {
  std::string s = e.algorithm;
  if (e.algorithm == "mesh")
    s += " " + std::to_string(e.params.grid.rows) + "x" + std::to_string(e.params.grid.cols) +
         (e.params_note.empty() ? "" : " (" + e.params_note + ")");
  if (e.algorithm != "mesh" && !e.params_note.empty()) s += " " + e.params_note;
  if (e.window > 0) s += " window " + std::to_string(e.window);
  return s;
}
}  // namespace

namespace {
// The order in which candidates break ties: the candidate order, except that
// on a switch-like network (switch, fat_tree, dragonfly, unknown) that the
// communicator spans, the XOR 1-factor goes just before the (i - j) mod
// (p - 1) one. Both price alike (one block per round through each NIC), and
// on a single crossbar both are contention-free; but a fat tree's static
// destination-based routing carries every XOR round without contention
// while the other pairing makes ranks of one leaf share up-links (SimGrid,
// p = 64, 32 KiB blocks: fat tree 0.30 ms against 0.39 ms, dragonfly 0.85
// ms against 0.96 ms; sim/README.md). The seed text says as much.
std::vector<size_t> tie_order(const std::vector<std::string>& candidates, const Topology& t) {
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const NetKind kind = t.network.kind;
  const bool switch_like = kind == NetKind::kSwitch || kind == NetKind::kFatTree ||
                           kind == NetKind::kDragonfly || kind == NetKind::kUnknown;
  if (!switch_like || !t.spans_network()) return order;
  auto at = [&](const char* name) {
    return static_cast<size_t>(std::find(candidates.begin(), candidates.end(), name) -
                               candidates.begin());
  };
  const size_t plain = at("onefactor"), xr = at("onefactor_xor");
  if (plain < xr && xr < candidates.size()) {
    order.erase(order.begin() + xr);
    order.insert(order.begin() + plain, xr);
  }
  return order;
}
}  // namespace

Choice CostModel::choose(size_t m, bool in_place) const {
  Choice c;
  const Estimate* best = nullptr;
  const Estimate* second = nullptr;
  for (const std::string& name : candidates_) {
    c.considered.push_back(estimate(name, m));
    if (in_place && c.considered.back().applicable &&
        (name == "brucks" || name == "pairwise" || name == "scattered")) {
      c.considered.back().applicable = false;
      c.considered.back().why_not = "MPICH's " + name + " does not run in place";
    }
  }
  for (size_t i : tie_order(candidates_, topo_)) {
    const Estimate& e = c.considered[i];
    if (!e.applicable) continue;
    if (!best || estimate_better(e, *best)) {
      second = best;
      best = &e;
    } else if (!second || estimate_better(e, *second)) {
      second = &e;
    }
  }
  std::ostringstream os;
  os << "m=" << format_bytes(m) << ", p=" << topo_.size << ", " << topo_.nodes << " node(s)";
  if (topo_.ranks_per_node > 0) os << " x " << topo_.ranks_per_node;
  os << " (" << to_string(topo_.placement) << "), network " << describe(topo_.network)
     << (topo_.network.rank_level ? " of ranks" : "") << ": ";
  if (!best) {
    os << "no candidate applies";
    for (const Estimate& e : c.considered) os << "; " << e.algorithm << ": " << e.why_not;
    c.reason = os.str();
    return c;
  }
  c.algorithm = best->algorithm;
  c.params = best->params;
  c.predicted = best->predicted;
  c.window = find_algorithm(best->algorithm) ? best->window : 0;
  os << "min model time " << label(*best) << " " << format_seconds(best->predicted);
  if (second) os << ", next " << label(*second) << " " << format_seconds(second->predicted);
  c.reason = os.str();
  return c;
}

Choice choose_auto(const Topology& topo, size_t bytes_per_block, const CostParams& cost,
                   const std::vector<std::string>& candidates) {
  return CostModel(topo, cost, candidates).choose(bytes_per_block);
}

std::vector<DecisionRow> decision_table(const Topology& topo, const CostParams& cost,
                                        const std::vector<std::string>& candidates,
                                        size_t min_bytes, size_t max_bytes) {
  return decision_table(CostModel(topo, cost, candidates), min_bytes, max_bytes);
}

std::vector<DecisionRow> decision_table(const CostModel& model, size_t min_bytes,
                                        size_t max_bytes) {
  std::vector<DecisionRow> rows;
  for (size_t b = std::max<size_t>(1, min_bytes); b <= max_bytes; b *= 2) {
    rows.push_back({b, model.choose(b)});
    if (b > max_bytes / 2) break;
  }
  return rows;
}

}  // namespace topoa2a
