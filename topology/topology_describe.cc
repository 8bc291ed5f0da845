// A Topology and its Network as text, for topoa2a-info and the verbose
// output (topology/topology.h describe).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace topoa2a {
namespace {

std::string dims_string(const std::vector<int>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "x" : "") + std::to_string(dims[i]);
  return out;
}

}  // namespace

std::string describe(const Network& n) {
  std::string out = to_string(n.kind);
  if (n.kind == NetKind::kHypercube) {
    out += " " + std::to_string(n.endpoints());
  } else if (n.kind == NetKind::kDragonfly && n.dims.size() == 2) {
    out += " " + dims_string(n.dims) + " (" + std::to_string(n.global_links) + " global link" +
           (n.global_links == 1 ? "" : "s") + " per group pair)";
  } else if (n.kind == NetKind::kFatTree && n.leaf_size > 0) {
    out += " " + std::to_string(n.leaf_size) + "x" + std::to_string(n.leaf_uplinks) +
           " (leaves of " + std::to_string(n.leaf_size) + ", " + std::to_string(n.leaf_uplinks) +
           " up-link" + (n.leaf_uplinks == 1 ? "" : "s") + " each)";
  } else if (!n.dims.empty()) {
    out += " " + dims_string(n.dims);
    const bool uniform = std::all_of(n.periodic.begin(), n.periodic.end(),
                                     [&](int p) { return p == n.periodic[0]; });
    if (!uniform) {
      out += " (periodic ";
      for (size_t i = 0; i < n.periodic.size(); ++i)
        out += (i ? "," : "") + std::to_string(n.periodic[i]);
      out += ")";
    }
  }
  if (n.kind == NetKind::kUnknown) out += " (modelled as a full-bisection switch)";
  std::string bw;
  for (size_t d = 0; d < n.dim_bw.size(); ++d)
    if (n.dim_bw[d] > 0)
      bw += ", dim" + std::to_string(d + 1) + " " + format_bandwidth(n.dim_bw[d]);
  if (n.uplink_bw > 0) bw += ", uplink " + format_bandwidth(n.uplink_bw);
  if (n.global_bw > 0) bw += ", global " + format_bandwidth(n.global_bw);
  if (!bw.empty()) out += "; links: " + bw.substr(2) + " (others as fast as a NIC)";
  return out;
}

std::string describe(const Topology& t) {
  std::ostringstream os;
  os << "ranks: " << t.size << "\n";
  os << "nodes: " << t.nodes;
  if (t.ranks_per_node > 0)
    os << " x " << t.ranks_per_node << " ranks per node";
  else
    os << " (ranks per node not uniform)";
  os << ", placement " << to_string(t.placement) << " (" << t.layout_source << ")\n";
  if (!t.node_names.empty()) {
    os << "node names:";
    for (size_t i = 0; i < t.node_names.size() && i < 16; ++i) os << " " << t.node_names[i];
    if (t.node_names.size() > 16) os << " ...";
    os << "\n";
  }
  auto list = [&](const char* what, const std::vector<int>& v) {
    if (std::all_of(v.begin(), v.end(), [](int x) { return x < 0; })) {
      os << what << ": unknown\n";
      return;
    }
    os << what << " of rank:";
    for (size_t i = 0; i < v.size() && i < 32; ++i) os << " " << v[i];
    if (v.size() > 32) os << " ...";
    os << "\n";
  };
  list("package", t.package_of_rank);
  list("numa", t.numa_of_rank);
  os << "process topology: " << to_string(t.proc_topo);
  if (t.proc_topo == ProcTopo::kCart) {
    os << " " << dims_string(t.cart_dims) << " periods";
    for (size_t i = 0; i < t.cart_periods.size(); ++i) os << (i ? "," : " ") << t.cart_periods[i];
  }
  os << "\n";
  os << "network: " << describe(t.network) << ", endpoints are "
     << (t.network.rank_level ? "ranks" : "nodes") << " (" << t.network.source << ")\n";
  if (t.leaders > 0 || !t.torus_dims.empty() || !t.mesh_grid.empty()) {
    os << "user settings:";
    if (t.leaders > 0) os << " leaders " << t.leaders;
    if (!t.torus_dims.empty()) os << " torus " << dims_string(t.torus_dims);
    if (!t.mesh_grid.empty()) os << " mesh " << dims_string(t.mesh_grid);
    os << "\n";
  }
  for (const std::string& w : t.warnings) os << "warning: " << w << "\n";
  for (const std::string& e : t.errors) os << "error: " << e << "\n";
  return os.str();
}

}  // namespace topoa2a
