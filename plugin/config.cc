// The configuration (plugin/config.h): reading MPICH's variables, the
// algorithm selections (MPICH's *_INTRA_ALGORITHM, the fallback) and
// load_config, which reads everything (config_options.cc: the plugin's own
// variables; config_tuning.cc: the tuning file).
#include "plugin/config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "plugin/config_env.h"

namespace topoa2a {
namespace config_detail {
namespace {

const char* const kPrefixes[] = {"MPICH_", "MPIR_PARAM_", "MPIR_CVAR_"};  // MPICH's read order

}  // namespace

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

void unset_everywhere(const std::string& name) {
  for (const char* prefix : kPrefixes) unsetenv((prefix + name).c_str());
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

}  // namespace config_detail

namespace {

using config_detail::load_bool;
using config_detail::lower;
using config_detail::read_var;
using config_detail::set_everywhere;

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool load_selection(const std::string& var, Coll coll, Selection* sel, std::string* error) {
  std::string full = "MPIR_CVAR_" + var;
  const std::string raw = read_var(var, &full);
  if (raw.empty()) return true;
  if (!parse_selection(raw, coll, sel)) {
    *error = full + "=" + raw + " is not a valid value; valid values: " + valid_values(coll);
    return false;
  }
  // MPICH 4.0.2 aborts on values it does not know.
  if (sel->active()) set_everywhere(var, "auto");
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

const std::vector<std::string>& mpich_ialltoall_values() {
  static const std::vector<std::string> v = {
      "auto",          "sched_auto",     "sched_brucks",
      "sched_inplace", "sched_pairwise", "sched_permuted_sendrecv",
      "tsp_ring",      "tsp_brucks",     "tsp_scattered"};
  return v;
}

const std::vector<std::string>& mpich_ialltoallv_values() {
  static const std::vector<std::string> v = {"auto",          "sched_auto",    "sched_blocked",
                                             "sched_inplace", "tsp_scattered", "tsp_blocked",
                                             "tsp_inplace"};
  return v;
}

namespace {
const std::vector<std::string>& mpich_values(Coll coll) {
  switch (coll) {
    case Coll::kAlltoall:
      return mpich_alltoall_values();
    case Coll::kAlltoallv:
      return mpich_alltoallv_values();
    case Coll::kIalltoall:
      return mpich_ialltoall_values();
    case Coll::kIalltoallv:
      break;
  }
  return mpich_ialltoallv_values();
}
bool v_only(Coll coll) { return coll == Coll::kAlltoallv || coll == Coll::kIalltoallv; }
}  // namespace

bool parse_selection(const std::string& value, bool alltoallv, Selection* sel) {
  return parse_selection(value, alltoallv ? Coll::kAlltoallv : Coll::kAlltoall, sel);
}

std::string valid_values(bool alltoallv) {
  return valid_values(alltoallv ? Coll::kAlltoallv : Coll::kAlltoall);
}

bool parse_selection(const std::string& value, Coll coll, Selection* sel) {
  const bool alltoallv = v_only(coll);
  Selection out;
  out.value = lower(value);
  const auto& mpich = mpich_values(coll);
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

std::string valid_values(Coll coll) {
  std::string out;
  for (const auto& v : mpich_values(coll)) out += v + ", ";
  return out + algorithm_names(v_only(coll)) + ", topo_auto";
}

bool load_config(Config* c, std::string* error) {
  if (!load_selection("ALLTOALL_INTRA_ALGORITHM", Coll::kAlltoall, &c->alltoall, error))
    return false;
  if (!load_selection("ALLTOALLV_INTRA_ALGORITHM", Coll::kAlltoallv, &c->alltoallv, error))
    return false;
  if (!load_selection("IALLTOALL_INTRA_ALGORITHM", Coll::kIalltoall, &c->ialltoall, error))
    return false;
  if (!load_selection("IALLTOALLV_INTRA_ALGORITHM", Coll::kIalltoallv, &c->ialltoallv, error))
    return false;

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
    for (Selection* sel : {&c->alltoall, &c->alltoallv, &c->ialltoall, &c->ialltoallv})
      if (sel->value == "auto") sel->topo_auto = true;
  }
  if (!load_options(c, error)) return false;
  return config_detail::load_tuning_file(c, error);
}

void clear_mpich_variables() {
  for (const char* name :
       {"ALLTOALL_INTRA_ALGORITHM", "ALLTOALLV_INTRA_ALGORITHM", "IALLTOALL_INTRA_ALGORITHM",
        "IALLTOALLV_INTRA_ALGORITHM", "COLLECTIVE_FALLBACK", "COLL_SELECTION_TUNING_JSON_FILE"})
    config_detail::unset_everywhere(name);
}

}  // namespace topoa2a
