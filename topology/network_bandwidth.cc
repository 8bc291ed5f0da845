// The network file's bandwidth lines: a link class's bandwidth, checked
// against the network it describes (topology/README.md, "Network
// description file").
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "topology/topology.h"

namespace topoa2a {

bool parse_bandwidth(const std::string& text, double* out, std::string* why) {
  const char* begin = text.c_str();
  char* rest = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &rest);
  if (rest == begin || errno != 0 || !std::isfinite(v) || !(v > 0)) {
    *why = "'" + text + "' is not a positive bandwidth";
    return false;
  }
  const std::string unit = rest;
  struct Unit {
    const char* name;
    double scale;  // bytes per second
  };
  static const Unit kUnits[] = {
      {"B/s", 1},        {"kB/s", 1e3},     {"KB/s", 1e3},      {"MB/s", 1e6},
      {"GB/s", 1e9},     {"TB/s", 1e12},    {"kb/s", 1e3 / 8},  {"Kb/s", 1e3 / 8},
      {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8}, {"Tb/s", 1e12 / 8},
  };
  for (const Unit& u : kUnits)
    if (unit == u.name) {
      *out = v * u.scale;
      return true;
    }
  *why =
      "expected a unit B/s, kB/s, MB/s, GB/s, TB/s (bytes) or kb/s, Mb/s, Gb/s, Tb/s (bits) "
      "after the number in '" +
      text + "' (e.g. '25GB/s', '200Gb/s')";
  return false;
}

std::string check_link_class(NetKind kind, const std::vector<int>& dims, const std::string& cls) {
  switch (kind) {
    case NetKind::kFatTree:
      if (cls != "uplink")
        return "a fat_tree's links are 'uplink' (the leaves' up-links), not '" + cls + "'";
      if (dims.size() != 2)
        return "uplink bandwidth needs a tapered fat tree ('network fat_tree LEAFxUPLINKS')";
      return {};
    case NetKind::kDragonfly:
      if (cls != "global") return "a dragonfly's links are 'global', not '" + cls + "'";
      return {};
    case NetKind::kRing:
    case NetKind::kMesh:
    case NetKind::kTorus:
    case NetKind::kHypercube: {
      const bool digits = cls.size() > 3 && cls.size() <= 6 && cls.compare(0, 3, "dim") == 0 &&
                          cls.find_first_not_of("0123456789", 3) == std::string::npos;
      const int k = digits ? std::atoi(cls.c_str() + 3) : 0;
      size_t nd = dims.size();
      if (kind == NetKind::kHypercube && nd == 1)
        for (nd = 0; (1LL << nd) < dims[0]; ++nd) {
        }
      if (k < 1 || (nd > 0 && static_cast<size_t>(k) > nd))
        return "a " + std::string(to_string(kind)) + "'s links are dim1" +
               (nd > 1 ? "..dim" + std::to_string(nd) : std::string(nd == 1 ? "" : ", dim2, ...")) +
               " (the links of each dimension), not '" + cls + "'";
      return {};
    }
    default:
      return std::string("a ") + to_string(kind) +
             " network has no links beyond the NICs (their bandwidth is the cost model's "
             "tw_inter)";
  }
}

std::string format_bandwidth(double b) {
  char buf[64];
  if (b >= 1e9)
    std::snprintf(buf, sizeof buf, "%.4g GB/s", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(buf, sizeof buf, "%.4g MB/s", b / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.4g B/s", b);
  return buf;
}

}  // namespace topoa2a
