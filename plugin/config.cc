#include "plugin/config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace topoa2a {
namespace {

const char* const kPrefixes[] = {"MPICH_", "MPIR_PARAM_", "MPIR_CVAR_"};  // MPICH's read order

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The effective value of MPICH variable `name` (without prefix): the last
// one MPICH would read wins. Empty when unset.
std::string read_var(const std::string& name, std::string* full_name) {
  std::string value;
  for (const char* prefix : kPrefixes) {
    if (const char* v = std::getenv((prefix + name).c_str())) {
      value = v;
      *full_name = prefix + name;
    }
  }
  return value;
}

void set_everywhere(const std::string& name, const char* value) {
  for (const char* prefix : kPrefixes)
    if (std::getenv((prefix + name).c_str())) setenv((prefix + name).c_str(), value, 1);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool load_selection(const std::string& var, bool alltoallv, Selection* sel, std::string* error) {
  std::string full = "MPIR_CVAR_" + var;
  const std::string raw = read_var(var, &full);
  if (raw.empty()) return true;
  if (!parse_selection(raw, alltoallv, sel)) {
    *error = full + "=" + raw + " is not a valid value; valid values: " + valid_values(alltoallv);
    return false;
  }
  // MPICH 4.0.2 aborts on values it does not know.
  if (sel->active()) set_everywhere(var, "auto");
  return true;
}

bool load_bool(const char* var, bool* out, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return true;
  const std::string s = lower(v);
  if (s == "1" || s == "yes" || s == "true" || s == "on")
    *out = true;
  else if (s == "0" || s == "no" || s == "false" || s == "off")
    *out = false;
  else {
    *error = std::string(var) + "=" + v + " is not a valid value; valid values: 0, 1";
    return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& mpich_alltoall_values() {
  static const std::vector<std::string> v = {
      "auto", "brucks", "nb", "pairwise", "pairwise_sendrecv_replace", "scattered"};
  return v;
}

const std::vector<std::string>& mpich_alltoallv_values() {
  static const std::vector<std::string> v = {"auto", "nb", "pairwise_sendrecv_replace",
                                             "scattered"};
  return v;
}

bool parse_selection(const std::string& value, bool alltoallv, Selection* sel) {
  Selection out;
  out.value = lower(value);
  const auto& mpich = alltoallv ? mpich_alltoallv_values() : mpich_alltoall_values();
  if (out.value == "topo_auto") {
    out.topo_auto = true;
  } else if (const Algorithm* a = find_algorithm(out.value);
             a != nullptr && (!alltoallv || a->alltoallv)) {
    out.ours = a;
  } else if (!contains(mpich, out.value)) {
    return false;
  }
  *sel = out;
  return true;
}

std::string valid_values(bool alltoallv) {
  std::string out;
  for (const auto& v : alltoallv ? mpich_alltoallv_values() : mpich_alltoall_values())
    out += v + ", ";
  return out + algorithm_names(alltoallv) + ", topo_auto";
}

bool load_config(Config* c, std::string* error) {
  if (!load_selection("ALLTOALL_INTRA_ALGORITHM", false, &c->alltoall, error)) return false;
  if (!load_selection("ALLTOALLV_INTRA_ALGORITHM", true, &c->alltoallv, error)) return false;

  std::string full = "MPIR_CVAR_COLLECTIVE_FALLBACK";
  const std::string fb = lower(read_var("COLLECTIVE_FALLBACK", &full));
  if (fb.empty() || fb == "silent")
    c->fallback = Fallback::kSilent;
  else if (fb == "print")
    c->fallback = Fallback::kPrint;
  else if (fb == "error")
    c->fallback = Fallback::kError;
  else {
    *error = full + "=" + fb + " is not a valid value; valid values: error, print, silent";
    return false;
  }
  bool topo_default = false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_AUTO", &topo_default, error)) return false;
  if (topo_default) {
    for (Selection* sel : {&c->alltoall, &c->alltoallv})
      if (sel->value == "auto") sel->topo_auto = true;
  }
  if (c->alltoall.topo_auto) {
    std::string var = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";
    const std::string path = read_var("COLL_SELECTION_TUNING_JSON_FILE", &var);
    if (!path.empty()) {
      auto rules = std::make_shared<Rules>();
      std::string why;
      if (!load_rules_file(path, rules.get(), &why)) {
        *error = var + ": " + why;
        return false;
      }
      c->rules = rules;
      // MPICH 4.0.2 cannot parse our algorithm names: it keeps its built-in
      // rules, topoa2a applies the file to MPI_Alltoall.
      set_everywhere("COLL_SELECTION_TUNING_JSON_FILE", "");
    }
  }
  return load_options(c, error);
}

bool load_options(Config* c, std::string* error) {
  if (!load_bool("MPIR_CVAR_TOPOA2A_VERBOSE", &c->verbose, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_STATS", &c->stats, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_AUTO_AGREE", &c->auto_agree, error)) return false;
  if (const char* g = std::getenv("MPIR_CVAR_TOPOA2A_MESH_GRID"); g && *g) {
    if (!parse_grid(g, &c->mesh_grid)) {
      *error = std::string("MPIR_CVAR_TOPOA2A_MESH_GRID=") + g +
               " is not a valid value; expected ROWSxCOLS, e.g. 4x2";
      return false;
    }
  }
  return true;
}

}  // namespace topoa2a
