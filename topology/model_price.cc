// Pricing: a candidate's steps at a block size, the best window, and the
// model's construction (CostModel).
#include <algorithm>

#include "coll/algorithms.h"
#include "topology/cost_model.h"
#include "topology/model_pattern.h"
#include "topology/node_layout.h"

namespace topoa2a {

CostModel::CostModel(const Topology& topo, const CostParams& cost,
                     const std::vector<std::string>& candidates)
    : topo_(topo), cost_(cost), candidates_(candidates) {
  if (topo_.network.endpoint_of_rank.size() != static_cast<size_t>(topo_.size)) {
    // A hand-built topology without endpoints: one per unit.
    topo_.network.endpoint_of_rank.resize(topo_.size);
    for (int r = 0; r < topo_.size; ++r) topo_.network.endpoint_of_rank[r] = topo_.unit_of_rank(r);
    if (topo_.network.has_coords() &&
        topo_.network.endpoints() < (topo_.network.rank_level ? topo_.size : topo_.nodes))
      topo_.network.dims.clear();
  }
  layout_ = node_layout_for(topo_);
  for (const std::string& c : candidates_) options_.push_back(options_for(c));
}

const std::vector<CostModel::Option>& CostModel::options(const std::string& algorithm) const {
  static const std::vector<Option> none;
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i] == algorithm) return options_[i];
  return none;
}

// One step (topology/README.md, "Cost model"). Round by round: the round's
// network part, its start-up (the network's if a message crosses it, plus o
// for each further network message of the busiest rank, plus ts_hop per
// link beyond the first) then its busiest link, max(tw_intra x the largest
// message, tw_inter x the busiest network link), overlaps the copies the
// rank makes inside the node, one after another (the links of a round work
// in parallel, the seed's ports; a rank's copies do not). A window of
// messages in flight: the network part, one start-up plus the busiest
// link's bytes, overlaps the rank's copies of everything it sends.
double CostModel::price_step(const Plan& plan, const Step& s, double m) const {
  const CostParams& c = cost_;
  const double ts_net = std::max(c.ts_inter, c.ts_intra);
  const double start = ts_net + std::max(0.0, s.net_msgs - 1) * c.o + c.ts_hop * s.extra_hops +
                       std::max(0.0, s.nic_msgs - 1) * c.g_nic;
  if (!plan.windowed) {
    // The copies inside the node, one after another (at least one start-up).
    const double copies =
        std::max(1.0, s.intra_msgs) * c.ts_intra + m * c.tw_intra * s.intra_blocks;
    if (!s.network) return copies;
    return std::max(copies, start + m * std::max(c.tw_intra * s.max_msg, c.tw_inter * s.net_load));
  }
  const double net = s.network ? start + m * c.tw_inter * s.net_load : 0;
  const double cpu = s.intra_msgs * c.ts_intra + m * c.tw_intra * s.rank_blocks;
  return std::max(net, cpu);
}

Estimate CostModel::price(const Option& o, size_t m, int window) const {
  Estimate e;
  e.algorithm = o.algorithm;
  e.params = o.params;
  e.params_note = o.note;
  e.rounds = o.rounds;
  if (!o.why_not.empty()) {
    e.why_not = o.why_not;
    return e;
  }
  e.applicable = true;
  const double md = static_cast<double>(m);
  const CostParams& c = cost_;
  const Plan* best = nullptr;
  double best_time = 0;
  for (const Plan& plan : o.plans) {
    if (window >= 0 && plan.window != window) continue;
    double t = 0;
    for (const Step& s : plan.samples) t += s.weight * price_step(plan, s, md);
    // Ties (relative 1e-9) go to the smaller window.
    if (!best || t < best_time - 1e-9 * std::max(t, best_time)) {
      best = &plan;
      best_time = t;
    }
  }
  e.predicted = best ? best_time : 0;
  const int p = topo_.size;
  if (o.algorithm == "brucks" && p > 1)
    e.predicted += 2.0 * p * md * c.tw_intra;  // initial and final local rotation
  if (!best) {
    if (window >= 0) {
      e.applicable = false;
      e.why_not = "the model does not try window " + std::to_string(window) + " for " + o.algorithm;
    }
    return e;
  }
  e.window = best->window;
  e.rounds = best->steps;
  double total = 0, net = 0, cong = 0, ts = 0, tw = 0;
  const double ts_net = std::max(c.ts_inter, c.ts_intra);
  for (const Step& s : best->samples) {
    total += s.weight;
    const double biggest = std::max(1.0, best->windowed ? s.rank_blocks : s.max_msg);
    if (s.network) {
      net += s.weight;
      cong += s.weight * s.net_load / biggest;
      e.extra_hops += s.weight * s.extra_hops;
      ts += s.weight * (ts_net + std::max(0.0, s.net_msgs - 1) * c.o);
      tw += s.weight * std::max(c.tw_intra, c.tw_inter * s.net_load / biggest);
    } else {
      ts += s.weight * (best->windowed ? s.intra_msgs : 1) * c.ts_intra;
      tw += s.weight * c.tw_intra;
    }
  }
  e.network_fraction = total > 0 ? net / total : 0;
  e.congestion = net > 0 ? cong / net : 0;
  e.ts_eff = total > 0 ? ts / total : c.ts_intra;
  e.tw_eff = total > 0 ? tw / total : c.tw_intra;
  return e;
}

namespace {
bool better(const Estimate& a, const Estimate& b) {  // a strictly better than b
  if (!a.applicable) return false;
  if (!b.applicable) return true;
  return a.predicted < b.predicted - 1e-9 * std::max(a.predicted, b.predicted);
}
}  // namespace

Estimate CostModel::estimate(const std::string& algorithm, size_t m) const {
  const std::vector<Option>* opts = nullptr;
  std::vector<Option> local;
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i] == algorithm) opts = &options_[i];
  if (!opts) {
    local = options_for(algorithm);
    opts = &local;
  }
  Estimate best;
  bool first = true;
  for (const Option& o : *opts) {
    Estimate e = price(o, m);
    if (first || better(e, best)) best = e;
    first = false;
  }
  return best;
}

Estimate CostModel::estimate(const std::string& algorithm, size_t m, int window) const {
  Estimate best;
  bool first = true;
  for (const Option& o : options(algorithm)) {
    Estimate e = price(o, m, window);
    if (first || better(e, best)) best = e;
    first = false;
  }
  if (first) {
    best.algorithm = algorithm;
    best.why_not = "'" + algorithm + "' is not a candidate of this model";
  }
  return best;
}

std::vector<int> CostModel::windows(const std::string& algorithm) const {
  std::vector<int> out;
  for (const Option& o : options(algorithm)) {
    for (const Plan& plan : o.plans)
      if (std::find(out.begin(), out.end(), plan.window) == out.end()) out.push_back(plan.window);
  }
  return out;
}

bool estimate_better(const Estimate& a, const Estimate& b) { return better(a, b); }

}  // namespace topoa2a
