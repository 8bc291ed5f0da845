// The parser of the forced topology string (MPIR_CVAR_TOPOA2A_TOPOLOGY,
// e.g. 'nodes:2x4,torus:2x2'), documented in topology/README.md.
#include <cctype>
#include <string>
#include <vector>

#include "topology/extents.h"
#include "topology/topology.h"

namespace topoa2a {

using detail::parse_dims;

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
