// The plugin's own variables (MPIR_CVAR_TOPOA2A_*, plugin/config.h
// load_options): switches, counts, grids, the window and the user's
// topology descriptions.
#include <cstdlib>
#include <string>

#include "plugin/config.h"
#include "plugin/config_env.h"

namespace topoa2a {
namespace {

using config_detail::load_bool;

// A count from 0 to 65536 (leaders per node; 0: the default).
bool load_count(const char* var, int* out, const char* valid, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return true;
  const std::string s = v;
  long long n = 0;
  bool ok = s.size() <= 6;  // more digits are out of range whatever they are
  for (size_t i = 0; ok && i < s.size(); ++i) {
    ok = s[i] >= '0' && s[i] <= '9';
    n = n * 10 + (s[i] - '0');
  }
  if (!ok || n > 65536) {
    *error = std::string(var) + "=" + v + " is not a valid value; valid values: " + valid;
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

// MPIR_CVAR_TOPOA2A_WINDOW: a decimal count of messages, 0 .. kMaxWindow.
bool load_window(Config* c, std::string* error) {
  const char* w = std::getenv("MPIR_CVAR_TOPOA2A_WINDOW");
  if (!w || !*w) return true;
  const std::string text(w);
  const bool digits = text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stol(text) > kMaxWindow) {
    *error = "MPIR_CVAR_TOPOA2A_WINDOW=" + text +
             " is not a valid value: valid values are 0 (the default for the algorithm) and 1 "
             "to " +
             std::to_string(kMaxWindow) + " (messages in flight per rank; 1: round by round)";
    return false;
  }
  c->window = static_cast<int>(std::stol(text));
  return true;
}

}  // namespace

bool load_options(Config* c, std::string* error) {
  if (!load_bool("MPIR_CVAR_TOPOA2A_VERBOSE", &c->verbose, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_STATS", &c->stats, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_AUTO_AGREE", &c->auto_agree, error)) return false;
  if (!load_count("MPIR_CVAR_TOPOA2A_LEADERS", &c->leaders,
                  "0 (every rank of a node leads) or 1..65536 leaders per node", error))
    return false;
  if (const char* g = std::getenv("MPIR_CVAR_TOPOA2A_MESH_GRID"); g && *g) {
    std::string why;
    if (!parse_grid(g, &c->mesh_grid, &why)) {
      *error = std::string("MPIR_CVAR_TOPOA2A_MESH_GRID=") + g + " is not a valid value: " + why;
      return false;
    }
  }
  if (const char* d = std::getenv("MPIR_CVAR_TOPOA2A_TORUS_DIMS"); d && *d) {
    std::string why;
    if (!parse_extents(d, &c->torus_dims, &why)) {
      *error = std::string("MPIR_CVAR_TOPOA2A_TORUS_DIMS=") + d + " is not a valid value: " + why;
      return false;
    }
  }
  if (!load_window(c, error)) return false;
  return load_user_descriptions(&c->descriptions, error);
}

}  // namespace topoa2a
