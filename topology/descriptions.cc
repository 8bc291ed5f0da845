#include "topology/descriptions.h"

#include <cstdlib>

#include "topology/cost_model.h"

namespace topoa2a {
namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

UserDescriptions read_user_descriptions() {
  UserDescriptions d;
  d.cost = env(kEnvCost);
  d.forced = env(kEnvTopology);
  d.path = env(kEnvNetworkFile);
  if (!d.path.empty() && !read_text_file(d.path, &d.text, &d.read_error)) d.text.clear();
  return d;
}

void apply_user_descriptions(Topology* t, const UserDescriptions& d,
                             const std::function<std::vector<std::string>()>& rank_names,
                             bool always_names) {
  t->cost_text = d.cost;
  {
    std::string cost_error;
    cost_params_for(*t, &cost_error);
    if (!cost_error.empty()) t->errors.push_back(cost_error);
  }

  NetworkDesc file_desc, forced_desc;
  bool have_file = false, have_forced = false;
  std::string error;
  if (!d.read_error.empty()) {
    t->errors.push_back(std::string(kEnvNetworkFile) + ": " + d.read_error);
  } else if (!d.path.empty()) {
    if (parse_network_file(d.text, d.path, &file_desc, &error))
      have_file = true;
    else
      t->errors.push_back(error);
  }
  if (d.forced.find_first_not_of(" \t") != std::string::npos) {
    if (parse_forced_topology(d.forced, &forced_desc, &error))
      have_forced = true;
    else
      t->errors.push_back(error);
  }

  if ((have_file && !file_desc.hosts.empty()) || always_names) {
    const std::vector<std::string> names = rank_names();
    t->node_names.assign(t->nodes, "");
    std::vector<bool> seen(t->nodes, false);
    for (int r = 0; r < t->size && r < static_cast<int>(names.size()); ++r) {
      const int n = t->node_of_rank[r];
      if (seen[n]) continue;
      seen[n] = true;
      t->node_names[n] = names[r];
    }
  }

  configure_topology(t, have_file ? &file_desc : nullptr, "file:" + d.path,
                     have_forced ? &forced_desc : nullptr);
}

}  // namespace topoa2a
