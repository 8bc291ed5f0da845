#include "plugin/comm_core.h"

namespace topoa2a {
namespace {
std::string key_of(const Algorithm& a, const Params& p) {
  return std::string(a.name) + ":" + std::to_string(p.grid.rows) + "x" +
         std::to_string(p.grid.cols);
}
}  // namespace

const Plan& CommCore::plan(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = plans_[key_of(a, params)];
  if (!slot) slot = std::make_unique<Plan>(make_plan(a.build(size_, rank_, params), size_, rank_));
  return *slot;
}

const Schedule& CommCore::schedule(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = schedules_[key_of(a, params)];
  if (!slot) slot = std::make_unique<Schedule>(a.build(size_, rank_, params));
  return *slot;
}

const Choice& CommCore::choice(long long bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = choices_.find(bytes);
  if (it == choices_.end())
    it = choices_.emplace(bytes, model_->choose(static_cast<size_t>(bytes))).first;
  return it->second;
}

bool CommCore::first_time(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.insert(key).second;
}

void CommCore::set_topology(std::shared_ptr<const Topology> topology,
                            std::shared_ptr<const CostModel> model) {
  std::lock_guard<std::mutex> lock(mu_);
  topology_ = std::move(topology);
  model_ = std::move(model);
  choices_.clear();
}

void CommCore::share_topology(const CommCore& from) { set_topology(from.topology_, from.model_); }

}  // namespace topoa2a
