#include "plugin/comm_core.h"

#include <deque>

namespace topoa2a {
namespace {
// Everything the cost model reads of a topology and its costs: communicators
// with equal keys share one model.
std::string model_key(const Topology& t, const CostParams& c) {
  std::string k = to_string(c);
  auto add = [&k](long long v) { k += ' ' + std::to_string(v); };
  auto add_all = [&](const std::vector<int>& v) {
    add(static_cast<long long>(v.size()));
    for (int x : v) add(x);
  };
  add(t.size);
  add(t.leaders);
  add_all(t.torus_dims);
  add_all(t.mesh_grid);
  add(t.nodes);
  add(t.ranks_per_node);
  add(static_cast<int>(t.placement));
  add(static_cast<int>(t.proc_topo));
  add_all(t.cart_dims);
  add_all(t.node_of_rank);
  const Network& n = t.network;
  add(static_cast<int>(n.kind));
  add_all(n.dims);
  add_all(n.periodic);
  add(n.global_links);
  add(n.leaf_size);
  add(n.leaf_uplinks);
  for (double bw : n.dim_bw) k += ' ' + std::to_string(bw);
  k += ' ' + std::to_string(n.uplink_bw) + ' ' + std::to_string(n.global_bw);
  add(n.rank_level);
  add_all(n.endpoint_of_rank);
  return k;
}

// Models alive in this process, by key; an entry lives as long as some
// communicator holds its model, and the most recently built few stay alive
// after their communicators are freed (a program that creates and frees
// communicators of one shape in a loop prices its topology once).
std::shared_ptr<const CostModel> shared_model(const Topology& t, const CostParams& cost) {
  constexpr size_t kKeptModels = 4;
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const CostModel>> models;
  static std::deque<std::shared_ptr<const CostModel>> recent;
  const std::string key = model_key(t, cost);
  std::lock_guard<std::mutex> lock(mu);
  if (auto live = models[key].lock()) return live;
  auto model = std::make_shared<const CostModel>(t, cost);
  models[key] = model;
  recent.push_back(model);
  if (recent.size() > kKeptModels) recent.pop_front();
  for (auto it = models.begin(); it != models.end();)  // drop dead entries
    it = it->second.expired() ? models.erase(it) : std::next(it);
  return model;
}
}  // namespace

CommCore::Key CommCore::key_of(const Algorithm& a, const Params& p) {
  // FNV-1a over what else a schedule depends on: the node layout (its hash),
  // the leaders, the network order and the grid extents.
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ULL;
  };
  mix(p.layout ? p.layout->hash : 0);
  mix(static_cast<std::uint64_t>(p.leaders));
  mix(static_cast<std::uint64_t>(p.fabric));
  mix(p.dims.size());
  for (int d : p.dims) mix(static_cast<std::uint64_t>(d));
  return Key{&a, p.grid.rows, p.grid.cols, h};
}

const Plan& CommCore::plan(const Algorithm& a, const Params& params, int window) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key key = key_of(a, params);
  const Plan*& known = by_window_[std::tuple_cat(key, std::make_tuple(window))];
  if (known) return *known;
  const Schedule& s = schedule_locked(key, params);
  const int depth = window_depth(s, window);
  auto& slot = plans_[std::tuple_cat(key, std::make_tuple(depth))];
  if (!slot) slot = std::make_unique<Plan>(make_plan(s, size_, rank_, depth));
  known = slot.get();
  return *slot;
}

int CommCore::default_window(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key key = key_of(a, params);
  auto it = default_windows_.find(key);
  if (it == default_windows_.end())
    it = default_windows_.emplace(key, topoa2a::default_window(schedule_locked(key, params), rank_))
             .first;
  return it->second;
}

const Schedule& CommCore::schedule(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  return schedule_locked(key_of(a, params), params);
}

const Schedule& CommCore::schedule_locked(const Key& key, const Params& params) {
  auto& slot = schedules_[key];
  if (!slot) slot = std::make_unique<Schedule>(std::get<0>(key)->build(size_, rank_, params));
  return *slot;
}

const Choice& CommCore::choice(long long bytes, bool in_place) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto key = std::make_pair(bytes, in_place);
  auto it = choices_.find(key);
  if (it == choices_.end()) {
    if (!model_) model_ = shared_model(*topology_, cost_);
    it = choices_.emplace(key, model_->choose(static_cast<size_t>(bytes), in_place)).first;
  }
  return it->second;
}

bool CommCore::first_time(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.insert(key).second;
}

void CommCore::set_topology(std::shared_ptr<const Topology> topology, const CostParams& cost) {
  std::lock_guard<std::mutex> lock(mu_);
  topology_ = std::move(topology);
  layout_ = topology_ ? node_layout_for(*topology_) : nullptr;
  cost_ = cost;
  model_.reset();
  choices_.clear();
}

}  // namespace topoa2a
