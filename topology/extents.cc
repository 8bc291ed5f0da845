// Extents and network kinds shared by the network file and the forced
// topology string: the numbers (topology/extents.h), parse_extents and
// check_kind_dims (topology/topology.h).
#include "topology/extents.h"

#include <cctype>
#include <climits>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace topoa2a {
namespace {

constexpr int kMaxExtent = 1 << 20;
constexpr long long kMaxEndpoints = INT_MAX / 2;

bool is_pow2_ll(long long v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

namespace detail {

bool parse_int(const std::string& text, int* out) {
  if (text.empty() || text.size() > 10) return false;
  long long v = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  if (v > INT_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool parse_dims(const std::string& text, std::vector<int>* dims, size_t* bad, std::string* why) {
  dims->clear();
  size_t pos = 0;
  long long e = 1;
  while (true) {
    size_t end = text.find_first_of("xX", pos);
    const std::string part = text.substr(pos, end == std::string::npos ? end : end - pos);
    *bad = pos;
    if (!all_digits(part)) {
      why->clear();
      return false;
    }
    int v = 0;
    if (!parse_int(part, &v) || v <= 0 || v > kMaxExtent) {
      *why = "extent " + part + " is out of range; each extent must be 1.." +
             std::to_string(kMaxExtent);
      return false;
    }
    e *= v;  // <= kMaxEndpoints * kMaxExtent: fits in 64 bits
    if (e > kMaxEndpoints) {
      *why = "the extents of '" + text + "' multiply to more than " +
             std::to_string(kMaxEndpoints) + " endpoints, the most allowed";
      return false;
    }
    dims->push_back(v);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return true;
}

}  // namespace detail

using detail::parse_dims;

bool parse_extents(const std::string& text, std::vector<int>* dims, std::string* why) {
  size_t bad = 0;
  if (parse_dims(text, dims, &bad, why)) return true;
  if (why->empty()) *why = "expected extents like 8x8x4 (positive integers joined by 'x')";
  return false;
}

std::string check_kind_dims(NetKind kind, const std::vector<int>& dims) {
  if (kind == NetKind::kDragonfly && dims.size() != 2 && dims.size() != 3)
    return "a dragonfly takes GROUPSxENDPOINTS_PER_GROUP[xGLOBAL_LINKS] (e.g. 'dragonfly "
           "4x16x2': 4 groups of 16, 2 links between each pair of groups)";
  if (dims.empty()) return {};
  switch (kind) {
    case NetKind::kSwitch:
      return std::string("a ") + to_string(kind) + " network takes no dimensions";
    case NetKind::kFatTree:
      if (dims.size() != 2)
        return "a fat_tree takes LEAFxUPLINKS: endpoints per leaf switch and the leaf's up-links "
               "(e.g. 'fat_tree 16x8': 2:1 tapered), or nothing (full bisection)";
      return {};
    case NetKind::kRing:
      if (dims.size() != 1) return "a ring has one dimension (e.g. 'ring 8')";
      return {};
    case NetKind::kHypercube:
      if (dims.size() != 1 || !is_pow2_ll(dims[0]))
        return "a hypercube takes its number of endpoints, a power of two (e.g. 'hypercube 16')";
      return {};
    default:
      return {};
  }
}

}  // namespace topoa2a
