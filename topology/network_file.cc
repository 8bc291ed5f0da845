// The parser of the network description file
// (MPIR_CVAR_TOPOA2A_NETWORK_FILE); forced_topology.cc parses the forced
// topology string. The format is documented in topology/README.md.
#include <cctype>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "topology/extents.h"
#include "topology/line_tokens.h"
#include "topology/topology.h"

namespace topoa2a {
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

using detail::all_digits;
using detail::parse_dims;
using detail::parse_int;
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

}  // namespace topoa2a
