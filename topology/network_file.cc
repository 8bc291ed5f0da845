// Parsers for the network description file (MPIR_CVAR_TOPOA2A_NETWORK_FILE)
// and the forced topology string (MPIR_CVAR_TOPOA2A_TOPOLOGY). The formats
// are documented in topology/README.md.
#include <cctype>
#include <climits>
#include <vector>

#include "topology/line_tokens.h"
#include "topology/topology.h"

namespace topoa2a {

namespace {

constexpr int kMaxExtent = 1 << 20;
constexpr long long kMaxEndpoints = INT_MAX / 2;

// Parse a non-negative decimal integer filling all of `text`, at most
// INT_MAX (in 64 bits: no overflow, no wrap-around).
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

// Parse "A" or "AxBxC": positive extents of at most kMaxExtent whose product
// is at most kMaxEndpoints. On failure *bad is the offset of the offending
// part within `text`; *why says what is out of range and what is valid, or
// is empty when the text is not of that form.
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

bool is_pow2_ll(long long v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

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

namespace {

// The dims the coordinates of host / rank lines refer to.
std::vector<int> coord_dims(NetKind kind, const std::vector<int>& dims) {
  if (kind == NetKind::kDragonfly && dims.size() >= 2) return {dims[0], dims[1]};
  if (kind != NetKind::kHypercube || dims.empty()) return dims;
  std::vector<int> out;
  for (int e = 1; e < dims[0]; e *= 2) out.push_back(2);
  if (out.empty()) out.push_back(1);
  return out;
}

using detail::split_line;
using detail::Token;

}  // namespace

bool parse_network_file(const std::string& text, const std::string& filename, NetworkDesc* out,
                        std::string* error) {
  NetworkDesc desc;
  int line_no = 0;
  int network_line = 0, nodes_line = 0;
  std::map<std::string, int> host_line;
  std::map<int, int> rank_line;
  std::map<std::string, int> bandwidth_line;
  std::vector<int> cdims;  // dims coordinates refer to (known once the network line is read)
  size_t pos = 0;
  auto err = [&](int column, const std::string& msg) {
    *error = filename + ":" + std::to_string(line_no) + ":" + std::to_string(column) + ": " + msg;
    return false;
  };
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_no;
    pos = end + 1;
    const std::vector<Token> tok = split_line(line);
    if (tok.empty()) {
      if (end == text.size()) break;
      continue;
    }
    const std::string& kw = tok[0].text;
    auto end_column = [&]() {
      return tok.back().column + static_cast<int>(tok.back().text.size());
    };
    if (kw == "network") {
      if (network_line)
        return err(tok[0].column,
                   "duplicate network line (first at line " + std::to_string(network_line) + ")");
      if (tok.size() < 2)
        return err(end_column(), "expected a network kind (" + net_kind_names() + ")");
      if (!parse_net_kind(tok[1].text, &desc.kind))
        return err(tok[1].column,
                   "expected a network kind (" + net_kind_names() + "), got '" + tok[1].text + "'");
      if (tok.size() >= 3) {
        size_t bad = 0;
        std::string why;
        if (!parse_dims(tok[2].text, &desc.dims, &bad, &why))
          return err(tok[2].column + static_cast<int>(bad),
                     why.empty() ? "expected dimensions: positive integers separated by 'x' "
                                   "(e.g. 4x4), got '" +
                                       tok[2].text + "'"
                                 : "dimensions " + tok[2].text + ": " + why);
      }
      const std::string why = check_kind_dims(desc.kind, desc.dims);
      if (!why.empty()) return err(tok.size() >= 3 ? tok[2].column : end_column(), why);
      if (tok.size() > 3) return err(tok[3].column, "expected end of line after the dimensions");
      network_line = line_no;
      cdims = coord_dims(desc.kind, desc.dims);
    } else if (kw == "nodes") {
      if (nodes_line)
        return err(tok[0].column,
                   "duplicate nodes line (first at line " + std::to_string(nodes_line) + ")");
      std::vector<int> d;
      size_t bad = 0;
      std::string why;
      if (tok.size() < 2)
        return err(end_column(), "expected NODESxRANKS_PER_NODE (e.g. 'nodes 2x4')");
      const bool ok = parse_dims(tok[1].text, &d, &bad, &why);
      if (!ok && !why.empty())
        return err(tok[1].column + static_cast<int>(bad), "nodes " + tok[1].text + ": " + why);
      if (!ok || d.size() != 2)
        return err(tok[1].column + static_cast<int>(bad),
                   "expected NODESxRANKS_PER_NODE (e.g. 'nodes 2x4'), got '" + tok[1].text + "'");
      if (tok.size() > 2) return err(tok[2].column, "expected end of line");
      desc.layout_nodes = d[0];
      desc.layout_ranks_per_node = d[1];
      nodes_line = line_no;
    } else if (kw == "host" || kw == "rank") {
      if (!network_line)
        return err(tok[0].column, "a " + kw + " line must come after the network line");
      if (desc.kind == NetKind::kSwitch || desc.kind == NetKind::kFatTree)
        return err(tok[0].column, kw +
                                      " lines need a network with coordinates (ring, mesh, "
                                      "torus, hypercube, dragonfly), not " +
                                      to_string(desc.kind));
      if (tok.size() < 2)
        return err(end_column(), kw == "host" ? "expected a host name" : "expected a rank");
      int rank = -1;
      if (kw == "rank" && !parse_int(tok[1].text, &rank))
        return err(
            tok[1].column,
            all_digits(tok[1].text)
                ? "rank " + tok[1].text + " is out of range; at most " + std::to_string(INT_MAX)
                : "expected a rank (a non-negative integer), got '" + tok[1].text + "'");
      if (tok.size() < 3)
        return err(end_column(),
                   "expected coordinates (one per dimension, or one endpoint "
                   "index)");
      std::vector<int> coords;
      for (size_t i = 2; i < tok.size(); ++i) {
        int c = 0;
        if (!parse_int(tok[i].text, &c))
          return err(tok[i].column, all_digits(tok[i].text)
                                        ? "coordinate " + tok[i].text +
                                              " is out of range; at most " + std::to_string(INT_MAX)
                                        : "expected a coordinate (a non-negative integer), got '" +
                                              tok[i].text + "'");
        coords.push_back(c);
      }
      if (!cdims.empty()) {
        long long e = 1;
        for (int d : cdims) e *= d;
        if (coords.size() == 1) {
          if (coords[0] >= e)
            return err(tok[2].column, "endpoint index " + std::to_string(coords[0]) +
                                          " is outside 0.." + std::to_string(e - 1));
        } else if (coords.size() != cdims.size()) {
          return err(tok[2].column, "expected " + std::to_string(cdims.size()) +
                                        " coordinates or one endpoint index, got " +
                                        std::to_string(coords.size()));
        } else {
          for (size_t i = 0; i < coords.size(); ++i)
            if (coords[i] >= cdims[i])
              return err(tok[2 + i].column, "coordinate " + std::to_string(coords[i]) +
                                                " is outside 0.." + std::to_string(cdims[i] - 1));
        }
      }
      if (kw == "host") {
        auto it = host_line.find(tok[1].text);
        if (it != host_line.end())
          return err(tok[1].column, "duplicate host '" + tok[1].text + "' (first at line " +
                                        std::to_string(it->second) + ")");
        host_line[tok[1].text] = line_no;
        desc.hosts[tok[1].text] = coords;
      } else {
        auto it = rank_line.find(rank);
        if (it != rank_line.end())
          return err(tok[1].column, "duplicate rank " + std::to_string(rank) + " (first at line " +
                                        std::to_string(it->second) + ")");
        rank_line[rank] = line_no;
        desc.ranks[rank] = coords;
      }
    } else if (kw == "bandwidth") {
      if (!network_line)
        return err(tok[0].column, "a bandwidth line must come after the network line");
      if (tok.size() < 2)
        return err(end_column(),
                   "expected a link class and its bandwidth (e.g. 'bandwidth dim1 "
                   "25GB/s')");
      const std::string& cls = tok[1].text;
      std::string why = check_link_class(desc.kind, desc.dims, cls);
      if (!why.empty()) return err(tok[1].column, why);
      if (auto it = bandwidth_line.find(cls); it != bandwidth_line.end())
        return err(tok[1].column, "duplicate bandwidth of '" + cls + "' (first at line " +
                                      std::to_string(it->second) + ")");
      if (tok.size() < 3)
        return err(end_column(), "expected a bandwidth after '" + cls + "' (e.g. '25GB/s')");
      double bw = 0;
      if (!parse_bandwidth(tok[2].text, &bw, &why)) return err(tok[2].column, why);
      if (tok.size() > 3) return err(tok[3].column, "expected end of line after the bandwidth");
      desc.bandwidth[cls] = bw;
      bandwidth_line[cls] = line_no;
    } else {
      return err(tok[0].column,
                 "expected 'network', 'nodes', 'host', 'rank' or 'bandwidth', got '" + kw + "'");
    }
    if (end == text.size()) break;
  }
  *out = std::move(desc);
  return true;
}

bool parse_forced_topology(const std::string& text, NetworkDesc* out, std::string* error) {
  static const char* kValid =
      "valid items: switch, fat_tree[:KxU], ring[:N], mesh[:AxB...], torus[:AxB...], "
      "hypercube[:N], "
      "dragonfly:GxH[xL], nodes:NxR, comma separated (e.g. 'torus:4x4', 'nodes:2x4,ring')";
  NetworkDesc desc;
  auto err = [&](size_t column, const std::string& msg) {
    *error = std::string(kEnvTopology) + "='" + text + "': column " + std::to_string(column + 1) +
             ": " + msg + "; " + kValid;
    return false;
  };
  if (text.find_first_not_of(" \t") == std::string::npos) return err(0, "empty value");
  bool have_network = false, have_nodes = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    // Trim blanks around the item.
    size_t b = pos, e = end;
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    const std::string item = text.substr(b, e - b);
    if (item.empty()) return err(b, "empty item");
    const size_t colon = item.find(':');
    std::string name = item.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string value = colon == std::string::npos ? "" : item.substr(colon + 1);
    const size_t value_col = b + (colon == std::string::npos ? item.size() : colon + 1);
    if (name == "nodes") {
      if (have_nodes) return err(b, "nodes given twice");
      std::vector<int> d;
      size_t bad = 0;
      std::string why;
      const bool ok = parse_dims(value, &d, &bad, &why);
      if (!ok && !why.empty()) return err(value_col + bad, "nodes:" + value + ": " + why);
      if (!ok || d.size() != 2)
        return err(value_col, "expected nodes:NxR (N nodes of R ranks), got '" + item + "'");
      desc.layout_nodes = d[0];
      desc.layout_ranks_per_node = d[1];
      have_nodes = true;
    } else {
      NetKind kind;
      if (!parse_net_kind(name, &kind)) return err(b, "unknown item '" + item + "'");
      if (have_network) return err(b, "more than one network given");
      desc.kind = kind;
      if (colon != std::string::npos) {
        size_t bad = 0;
        std::string why;
        if (!parse_dims(value, &desc.dims, &bad, &why))
          return err(value_col + bad, why.empty()
                                          ? "expected dimensions such as 4x4 after '" + name + ":'"
                                          : name + ":" + value + ": " + why);
      }
      const std::string why = check_kind_dims(kind, desc.dims);
      if (!why.empty()) return err(colon != std::string::npos ? value_col : b + item.size(), why);
      have_network = true;
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  *out = std::move(desc);
  return true;
}

}  // namespace topoa2a
