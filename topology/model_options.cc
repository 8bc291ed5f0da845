// The cost model's message-size-free work: for each candidate and each of
// its parameter choices (model_params.h), per window candidate, the
// statistics of sampled steps (rounds or windows of messages in flight),
// from the messages the schedules send routed over the topology's links.
#include <algorithm>
#include <cmath>

#include "topology/cost_model.h"
#include "topology/model_params.h"
#include "topology/model_pattern.h"
#include "topology/plan_builder.h"

namespace topoa2a {
namespace {

using model_detail::ceil_log2;
using model_detail::PlanBuilder;

// Link updates per plan: O(p log p), so that pricing a communicator of p
// ranks costs each rank O(p log p) work whatever the algorithm (steps are
// sampled evenly when they would need more).
double link_budget(int p) {
  const double lg = std::max(1, ceil_log2(p));
  return std::max(1 << 14, 64 * p) * lg;
}

// Windows (messages in flight per rank) the model tries for the table's
// direct algorithms, besides round by round (0) and all messages at once.
constexpr int kWindows[] = {2, 4, 8, 16, 32};

}  // namespace

std::vector<CostModel::Option> CostModel::options_for(const std::string& algorithm) const {
  std::vector<Option> out;
  const int p = topo_.size;
  if (!find_algorithm(algorithm) && !find_mpich_pattern(algorithm)) {
    Option o;
    o.algorithm = algorithm;
    o.why_not = "unknown algorithm '" + algorithm + "' (the model knows " + known_names() + ")";
    out.push_back(o);
    return out;
  }
  for (auto& [params, note] : param_choices(algorithm, topo_, layout_)) {
    Option o;
    o.algorithm = algorithm;
    o.params = params;
    o.note = note;
    const Params resolved = resolve_params(p, params);
    if (p < 1)
      o.why_not = "empty communicator";
    else if (const Algorithm* a = find_algorithm(algorithm))
      o.why_not = a->check(p, resolved);
    if (!o.why_not.empty()) {
      out.push_back(o);
      continue;
    }
    MessagePattern pat;
    pat.bind(algorithm, p, resolved);
    o.rounds = pat.rounds();
    std::vector<ModelMessage> first;
    pat.sends(0, 0, &first);
    const int sends = std::max<int>(1, static_cast<int>(first.size()));
    const int all = o.rounds * sends;  // every message of a rank at once
    // Window candidates: a store-and-forward schedule waits for each round;
    // MPICH's algorithms have theirs; the table's direct ones are tried
    // round by round, with 2 .. 32 messages in flight, and all at once.
    std::vector<int> windows;
    bool windowed = true;
    if (pat.forwards() || pat.fixed_window() == 0) {
      windows = {0};
      windowed = false;
    } else if (pat.fixed_window() > 0) {
      windows = {std::min(pat.fixed_window(), std::max(1, all))};
    } else {
      windows = {0};
      for (int w : kWindows)
        if (w < all) windows.push_back(w);
      if (all > 1) windows.push_back(all);
    }
    const Algorithm* table = find_algorithm(algorithm);
    PlanBuilder builder(
        topo_, pat, cost_.tw_inter,
        table && table->product_on && table->product_on(p, resolved, topo_.network.dims),
        table && table->direct);
    const double budget = link_budget(p);
    // The windows share a second budget, unless the whole schedule fits in
    // one: then every plan is priced exactly.
    const bool fits = o.rounds * builder.round_cost(sends) <= budget;
    const double share =
        windows.size() > 1 && !fits ? budget / static_cast<double>(windows.size() - 1) : budget;
    for (size_t i = 0; i < windows.size(); ++i) {
      const bool win = windowed && windows[i] > 0;
      o.plans.push_back(builder.build(windows[i], win, sends, i == 0 ? budget : share,
                                      i == 0 ? &o.sampled_rounds : nullptr));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace topoa2a
