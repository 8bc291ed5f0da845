#include "topology/descriptions.h"

#include <cstdlib>

#include "coll/schedule.h"
#include "topology/cost_file.h"

namespace topoa2a {
namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }
}  // namespace

UserDescriptions read_user_descriptions() {
  UserDescriptions d;
  d.cost = env(kEnvCost);
  d.leaders = env("MPIR_CVAR_TOPOA2A_LEADERS");
  d.torus_dims = env("MPIR_CVAR_TOPOA2A_TORUS_DIMS");
  d.mesh_grid = env("MPIR_CVAR_TOPOA2A_MESH_GRID");
  d.forced = env(kEnvTopology);
  d.path = env(kEnvNetworkFile);
  if (!d.path.empty() && !read_text_file(d.path, &d.text, &d.read_error)) d.text.clear();
  d.cost_path = env(kEnvCostFile);
  if (!d.cost_path.empty() && !read_text_file(d.cost_path, &d.cost_text, &d.cost_read_error))
    d.cost_text.clear();
  return d;
}

namespace {
// Parses each description on its own, so that the good ones still apply;
// one line per problem into *errors.
void parse_each(UserDescriptions* d, std::vector<std::string>* errors) {
  d->parsed = false;
  d->file_desc.reset();
  d->forced_desc.reset();
  // The settings the front door's config validates (it stops MPI_Init on a
  // bad one): leaders as digits up to 65536, else 0; malformed grids empty.
  d->leaders_k = 0;
  if (!d->leaders.empty() && d->leaders.size() <= 6 &&
      d->leaders.find_first_not_of("0123456789") == std::string::npos) {
    const int k = std::stoi(d->leaders);
    d->leaders_k = k <= 65536 ? k : 0;
  }
  d->torus_extents.clear();
  std::string bad_grid;
  if (!blank(d->torus_dims) && !parse_extents(d->torus_dims, &d->torus_extents, &bad_grid))
    d->torus_extents.clear();
  d->mesh_extents.clear();
  Grid g;
  if (!blank(d->mesh_grid) && parse_grid(d->mesh_grid, &g)) d->mesh_extents = {g.rows, g.cols};
  std::string why;
  if (!resolve_cost(d->cost_path, d->cost_text, d->cost_read_error, d->cost, &d->cost_params,
                    &d->cost_from, &why))
    errors->push_back(why);
  if (!d->read_error.empty()) {
    errors->push_back(std::string(kEnvNetworkFile) + "=" + d->path + ": " + d->read_error);
  } else if (!d->path.empty()) {
    NetworkDesc desc;
    if (parse_network_file(d->text, d->path, &desc, &why))
      d->file_desc = std::move(desc);
    else
      errors->push_back(std::string(kEnvNetworkFile) + ": " + why);
  }
  if (!blank(d->forced)) {
    NetworkDesc desc;
    if (parse_forced_topology(d->forced, &desc, &why))
      d->forced_desc = std::move(desc);
    else
      errors->push_back(why);
  }
}
}  // namespace

bool parse_user_descriptions(UserDescriptions* d, std::string* error) {
  std::vector<std::string> errors;
  parse_each(d, &errors);
  if (!errors.empty()) {
    *error = errors.front();
    return false;
  }
  d->parsed = true;
  return true;
}

bool load_user_descriptions(UserDescriptions* d, std::string* error) {
  *d = read_user_descriptions();
  return parse_user_descriptions(d, error);
}

void apply_user_descriptions(Topology* t, const UserDescriptions& given,
                             const std::function<std::vector<std::string>()>& rank_names,
                             bool always_names) {
  t->cost_text = given.cost;
  t->cost_file = given.cost_path;
  t->cost_file_text = given.cost_text;
  t->cost_file_error = given.cost_read_error;
  UserDescriptions parsed_here;
  const UserDescriptions* d = &given;
  if (!given.parsed) {
    parsed_here = given;
    parse_each(&parsed_here, &t->errors);
    d = &parsed_here;
  }

  t->leaders = d->leaders_k;
  t->torus_dims = d->torus_extents;
  t->mesh_grid = d->mesh_extents;

  const NetworkDesc* file = d->file_desc ? &*d->file_desc : nullptr;
  const NetworkDesc* forced = d->forced_desc ? &*d->forced_desc : nullptr;
  if ((file && !file->hosts.empty()) || always_names) {
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

  configure_topology(t, file, "file:" + d->path, forced);
}

}  // namespace topoa2a
