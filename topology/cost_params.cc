// MPIR_CVAR_TOPOA2A_COST: parsing and printing the cost parameters (one
// value, the keys), and the formatting of times and sizes for the model's
// tables. The cost file and the precedence: cost_file.cc.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "topology/cost_file.h"
#include "topology/cost_model.h"

namespace topoa2a {

// ---------------------------------------------------------------------------
// Cost parameters

namespace {

struct CostKey {
  const char* name;
  double CostParams::*field;
  const char* unit;  // for printing
  double scale;
};
constexpr CostKey kCostKeys[] = {
    {"ts_intra", &CostParams::ts_intra, "us", 1e-6},
    {"tw_intra", &CostParams::tw_intra, "ns", 1e-9},
    {"ts_inter", &CostParams::ts_inter, "us", 1e-6},
    {"tw_inter", &CostParams::tw_inter, "ns", 1e-9},
    {"ts_hop", &CostParams::ts_hop, "us", 1e-6},
    {"o", &CostParams::o, "us", 1e-6},
    {"g_nic", &CostParams::g_nic, "us", 1e-6},
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

bool parse_cost_value(const std::string& value, double* out, std::string* why) {
  const char* begin = value.c_str();
  char* rest = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &rest);
  if (rest == begin || errno != 0 || !std::isfinite(v) || v < 0 || std::isspace(*begin)) {
    *why = "'" + value + "' is not a non-negative number";
    return false;
  }
  std::string unit = rest;
  if (unit.size() >= 2 &&
      (unit.substr(unit.size() - 2) == "/B" || unit.substr(unit.size() - 2) == "/b"))
    unit.resize(unit.size() - 2);
  double scale = 1;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "us")
    scale = 1e-6;
  else if (unit == "ns")
    scale = 1e-9;
  else if (unit == "ps")
    scale = 1e-12;
  else {
    *why = "unknown unit '" + unit + "' in '" + value + "'";
    return false;
  }
  *out = v * scale;
  return true;
}

std::vector<std::string> cost_keys() {
  std::vector<std::string> out;
  for (const CostKey& k : kCostKeys) out.push_back(k.name);
  return out;
}

double* cost_field(CostParams* c, const std::string& key) {
  for (const CostKey& k : kCostKeys)
    if (key == k.name) return &(c->*(k.field));
  return nullptr;
}

std::string format_cost_value(const std::string& key, double v) {
  for (const CostKey& k : kCostKeys)
    if (key == k.name) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g%s", v / k.scale, k.unit);
      return buf;
    }
  return fmt_g(v);
}

bool parse_cost_params(const std::string& text, CostParams* inout, std::string* error,
                       std::vector<std::string>* given) {
  static const char* kHelp =
      "expected key=value[,key=value...] with keys ts_intra, tw_intra, ts_inter, tw_inter, "
      "ts_hop, o, g_nic and "
      "values in seconds (per byte for tw) with an optional unit s, ms, us, ns, ps, e.g. "
      "'ts_inter=1.5us,tw_inter=0.08ns'";
  CostParams c = *inout;
  std::vector<std::string> keys;
  auto err = [&](const std::string& msg) {
    *error = std::string(kEnvCost) + "='" + text + "': " + msg + "; " + kHelp;
    return false;
  };
  if (trim(text).empty()) return err("empty value");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(text.substr(pos, end - pos));
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return err("'" + item + "' has no '='");
    const std::string key = trim(item.substr(0, eq));
    const std::string value = trim(item.substr(eq + 1));
    double* field = cost_field(&c, key);
    if (!field) return err("unknown key '" + key + "'");
    std::string why;
    if (!parse_cost_value(value, field, &why)) return err(why);
    keys.push_back(key);
    if (end == text.size()) break;
    pos = end + 1;
  }
  *inout = c;
  if (given) given->insert(given->end(), keys.begin(), keys.end());
  return true;
}

std::string to_string(const CostParams& c) {
  std::string out;
  for (const CostKey& k : kCostKeys) {
    if (!out.empty()) out += ",";
    out += std::string(k.name) + "=" + fmt_g(c.*(k.field) / k.scale) + k.unit;
  }
  return out;
}

CostParams cost_params_for(const Topology& t, std::string* error, std::vector<std::string>* from) {
  CostParams c;
  if (!resolve_cost(t.cost_file, t.cost_file_text, t.cost_file_error, t.cost_text, &c, from,
                    error)) {
    if (from) from->assign(cost_keys().size(), "default");
    return CostParams{};
  }
  return c;
}

std::string format_seconds(double s) {
  const char* unit = "s";
  double v = s;
  if (s < 1e-6) {
    v = s * 1e9;
    unit = "ns";
  } else if (s < 1e-3) {
    v = s * 1e6;
    unit = "us";
  } else if (s < 1) {
    v = s * 1e3;
    unit = "ms";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, unit);
  return buf;
}

std::string format_bytes(size_t b) {
  if (b >= (size_t{1} << 20) && b % (size_t{1} << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

}  // namespace topoa2a
