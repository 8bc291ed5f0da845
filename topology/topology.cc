#include "topology/topology.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "coll/schedule.h"

namespace topoa2a {

const char* to_string(Placement p) {
  switch (p) {
    case Placement::kBlock:
      return "block";
    case Placement::kRoundRobin:
      return "round_robin";
    case Placement::kOther:
      return "other";
    case Placement::kSingle:
      return "single";
  }
  return "?";
}

const char* to_string(ProcTopo t) {
  switch (t) {
    case ProcTopo::kNone:
      return "none";
    case ProcTopo::kCart:
      return "cart";
    case ProcTopo::kGraph:
      return "graph";
    case ProcTopo::kDistGraph:
      return "dist_graph";
  }
  return "?";
}

namespace {
struct KindName {
  NetKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {NetKind::kSwitch, "switch"},       {NetKind::kRing, "ring"},
    {NetKind::kMesh, "mesh"},           {NetKind::kTorus, "torus"},
    {NetKind::kHypercube, "hypercube"}, {NetKind::kFatTree, "fat_tree"},
    {NetKind::kDragonfly, "dragonfly"},
};
}  // namespace

const char* to_string(NetKind k) {
  for (const KindName& kn : kKindNames)
    if (kn.kind == k) return kn.name;
  return "unknown";
}

bool parse_net_kind(const std::string& text, NetKind* out) {
  for (const KindName& kn : kKindNames) {
    if (text == kn.name) {
      *out = kn.kind;
      return true;
    }
  }
  return false;
}

std::string net_kind_names() {
  std::string out;
  for (const KindName& kn : kKindNames) {
    if (!out.empty()) out += ", ";
    out += kn.name;
  }
  return out;
}

int Network::endpoints() const {
  if (dims.empty()) return 0;
  long long e = 1;
  for (int d : dims) e *= d;
  return static_cast<int>(e);
}

bool Topology::spans_network() const {
  if (size <= 1) return false;
  return network.rank_level || nodes > 1;
}

void reset_network(Topology* t) {
  Network n;
  n.endpoint_of_rank.resize(t->size);
  for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = t->global_node_of_rank[r];
  t->network = std::move(n);
}

void finalize_layout(Topology* t) {
  t->size = static_cast<int>(t->node_of_rank.size());
  std::map<int, int> renumber;
  for (int& n : t->node_of_rank) {
    auto it = renumber.find(n);
    if (it == renumber.end()) it = renumber.emplace(n, static_cast<int>(renumber.size())).first;
    n = it->second;
  }
  t->nodes = static_cast<int>(renumber.size());
  std::vector<int> count(t->nodes, 0);
  for (int n : t->node_of_rank) ++count[n];
  t->ranks_per_node = 0;
  if (!count.empty() &&
      std::all_of(count.begin(), count.end(), [&](int c) { return c == count[0]; }))
    t->ranks_per_node = count[0];
  if (t->nodes <= 1) {
    t->placement = Placement::kSingle;
    return;
  }
  bool block = true, rr = true;
  for (int r = 1; r < t->size; ++r)
    if (t->node_of_rank[r] < t->node_of_rank[r - 1]) block = false;
  for (int r = 0; r < t->size; ++r)
    if (t->node_of_rank[r] != r % t->nodes) rr = false;
  t->placement = block ? Placement::kBlock : rr ? Placement::kRoundRobin : Placement::kOther;
}

Topology topology_from_layout(const std::vector<int>& node_of_rank) {
  Topology t;
  t.node_of_rank = node_of_rank;
  finalize_layout(&t);
  t.world_size = t.size;
  t.world_nodes = t.nodes;
  t.world_rank.resize(t.size);
  for (int r = 0; r < t.size; ++r) t.world_rank[r] = r;
  t.global_node_of_rank = t.node_of_rank;
  t.package_of_rank.assign(t.size, -1);
  t.numa_of_rank.assign(t.size, -1);
  reset_network(&t);
  return t;
}

Topology uniform_topology(int nodes, int ranks_per_node, Placement placement) {
  std::vector<int> node_of_rank(static_cast<size_t>(std::max(0, nodes * ranks_per_node)));
  for (int r = 0; r < static_cast<int>(node_of_rank.size()); ++r)
    node_of_rank[r] = placement == Placement::kRoundRobin ? r % nodes : r / ranks_per_node;
  return topology_from_layout(node_of_rank);
}

bool apply_layout(Topology* t, int nodes, int ranks_per_node, const std::string& source) {
  const std::string what = "nodes " + std::to_string(nodes) + "x" + std::to_string(ranks_per_node);
  if (nodes <= 0 || ranks_per_node <= 0 || 1LL * nodes * ranks_per_node != t->world_size) {
    t->errors.push_back(source + ": " + what + " describes " +
                        std::to_string(1LL * nodes * ranks_per_node) +
                        " ranks but MPI_COMM_WORLD has " + std::to_string(t->world_size) +
                        "; the detected layout is kept");
    return false;
  }
  std::vector<int> global(t->size);
  for (int r = 0; r < t->size; ++r) {
    if (t->world_rank[r] < 0) {
      t->errors.push_back(source + ": " + what + " cannot place rank " + std::to_string(r) +
                          ", which is not in MPI_COMM_WORLD; the detected layout is kept");
      return false;
    }
    global[r] = t->world_rank[r] / ranks_per_node;
  }
  t->global_node_of_rank = global;
  t->node_of_rank = global;
  t->world_nodes = nodes;
  t->layout_source = source;
  t->node_names.clear();
  finalize_layout(t);
  if (!t->network.direct()) reset_network(t);
  return true;
}

namespace {

// Linear row-major index of `coords` in `dims`, or -1 (with *why) if out of range.
// A single coordinate is taken as the linear index itself.
int linear_index(const std::vector<int>& coords, const std::vector<int>& dims, std::string* why) {
  long long e = 1;
  for (int d : dims) e *= d;
  if (coords.size() == 1) {
    if (coords[0] < 0 || coords[0] >= e) {
      *why = "endpoint " + std::to_string(coords[0]) + " is outside 0.." + std::to_string(e - 1);
      return -1;
    }
    return coords[0];
  }
  if (coords.size() != dims.size()) {
    *why = std::to_string(coords.size()) + " coordinates given, the network has " +
           std::to_string(dims.size()) + " dimensions";
    return -1;
  }
  long long idx = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (coords[i] < 0 || coords[i] >= dims[i]) {
      *why = "coordinate " + std::to_string(coords[i]) + " is outside 0.." +
             std::to_string(dims[i] - 1);
      return -1;
    }
    idx = idx * dims[i] + coords[i];
  }
  return static_cast<int>(idx);
}

std::string dims_string(const std::vector<int>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "x" : "") + std::to_string(dims[i]);
  return out;
}

}  // namespace

bool apply_network(Topology* t, const NetworkDesc& desc, const std::string& source, bool forced) {
  if (desc.kind == NetKind::kUnknown) return true;
  const int ws = t->world_size > 0 ? t->world_size : t->size;
  const int wn = t->world_nodes > 0 ? t->world_nodes : t->nodes;
  const bool switch_like = desc.kind == NetKind::kSwitch || desc.kind == NetKind::kFatTree;
  auto fail = [&](const std::string& msg) {
    t->errors.push_back(source + ": " + msg + "; the network description is ignored");
    return false;
  };

  Network n;
  n.kind = desc.kind;
  n.source = source;

  // How many endpoints the description has, and whether they are ranks.
  const bool dragonfly = desc.kind == NetKind::kDragonfly;
  if (dragonfly) {
    const std::string why = check_kind_dims(desc.kind, desc.dims);
    if (!why.empty()) return fail(why);
  }
  long long given = 0;
  const bool tapered = desc.kind == NetKind::kFatTree && desc.dims.size() == 2;
  if (tapered) {
    n.leaf_size = desc.dims[0];
    n.leaf_uplinks = desc.dims[1];
  } else if (!desc.dims.empty()) {
    given = 1;
    for (size_t i = 0; i < desc.dims.size() && !(dragonfly && i == 2); ++i) given *= desc.dims[i];
  }
  if (forced) {
    n.rank_level = given > 0 ? (given == ws && given != wn) : (wn <= 1 && ws > 1);
  } else {
    n.rank_level = !desc.ranks.empty() && desc.hosts.empty();
  }
  const long long units = n.rank_level ? ws : wn;
  const long long e = given > 0 ? given : units;

  if (dragonfly) {
    n.dims = {desc.dims[0], desc.dims[1]};
    n.periodic = {0, 0};
    n.global_links = desc.dims.size() == 3 ? desc.dims[2] : 1;
  } else if (!switch_like) {
    if (desc.kind == NetKind::kHypercube) {
      if (e <= 0 || (e & (e - 1)) != 0)
        return fail("a hypercube needs a power-of-two number of endpoints, not " +
                    std::to_string(e));
      for (long long k = 1; k < e; k *= 2) n.dims.push_back(2);
      if (n.dims.empty()) n.dims.push_back(1);
    } else if (!desc.dims.empty()) {
      n.dims = desc.dims;
    } else if (desc.kind == NetKind::kRing) {
      n.dims = {static_cast<int>(e)};
    } else {
      const Grid g = default_grid(static_cast<int>(e));
      n.dims = g.rows > 1 ? std::vector<int>{g.rows, g.cols} : std::vector<int>{g.cols};
    }
    const int periodic = desc.kind == NetKind::kRing || desc.kind == NetKind::kTorus ? 1 : 0;
    n.periodic.assign(n.dims.size(), periodic);
  }
  if (e < units)
    return fail("the network has " + std::to_string(e) + " endpoints, fewer than the " +
                std::to_string(units) + (n.rank_level ? " ranks" : " nodes") + " of the job");
  for (const auto& [cls, bw] : desc.bandwidth) {
    const bool direct = n.direct();
    const std::string why = check_link_class(desc.kind, direct ? n.dims : desc.dims, cls);
    if (!why.empty()) return fail("bandwidth " + cls + ": " + why);
    if (cls == "uplink") {
      n.uplink_bw = bw;
    } else if (cls == "global") {
      n.global_bw = bw;
    } else if (direct) {
      const size_t k = static_cast<size_t>(std::atoi(cls.c_str() + 3));
      n.dim_bw.resize(n.dims.size(), 0);
      if (k >= 1 && k <= n.dim_bw.size()) n.dim_bw[k - 1] = bw;
    }
  }

  n.endpoint_of_rank.assign(t->size, -1);
  std::vector<std::string> warnings;
  if (n.rank_level) {
    for (int r = 0; r < t->size; ++r) {
      const int w = t->world_rank[r];
      int ep = w;
      auto it = desc.ranks.find(w);
      if (it != desc.ranks.end() && n.has_coords()) {
        std::string why;
        ep = linear_index(it->second, n.dims, &why);
        if (ep < 0) return fail("rank " + std::to_string(w) + ": " + why);
      }
      if (ep < 0) return fail("rank " + std::to_string(r) + " is not in MPI_COMM_WORLD");
      n.endpoint_of_rank[r] = ep;
    }
  } else {
    if (!desc.ranks.empty())
      warnings.push_back(source + ": rank lines are ignored when host lines are present");
    if (!desc.hosts.empty() && t->node_names.empty())
      warnings.push_back(source + ": host names are unknown; host lines are ignored");
    std::vector<int> endpoint_of_node(t->nodes, -1);
    std::vector<std::string> unplaced;
    for (int r = 0; r < t->size; ++r) {
      const int node = t->node_of_rank[r];
      if (endpoint_of_node[node] >= 0) continue;
      int ep = t->global_node_of_rank[r];
      bool placed = false;
      if (n.has_coords() && node < static_cast<int>(t->node_names.size())) {
        auto it = desc.hosts.find(t->node_names[node]);
        if (it != desc.hosts.end()) {
          std::string why;
          ep = linear_index(it->second, n.dims, &why);
          if (ep < 0) return fail("host " + it->first + ": " + why);
          placed = true;
        }
      }
      if (!placed && !desc.hosts.empty() && !t->node_names.empty() &&
          node < static_cast<int>(t->node_names.size()))
        unplaced.push_back(t->node_names[node]);
      if (ep >= e) return fail("node " + std::to_string(node) + " has no endpoint");
      endpoint_of_node[node] = ep;
    }
    if (!unplaced.empty() && n.has_coords()) {
      std::string list;
      for (size_t i = 0; i < unplaced.size() && i < 8; ++i) list += (i ? ", " : "") + unplaced[i];
      if (unplaced.size() > 8) list += ", ...";
      warnings.push_back(source + ": no host line for " + std::to_string(unplaced.size()) +
                         " node(s) (" + list + "); placed by node number");
    }
    for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = endpoint_of_node[t->node_of_rank[r]];
  }
  t->network = std::move(n);
  t->warnings.insert(t->warnings.end(), warnings.begin(), warnings.end());
  return true;
}

bool apply_cart_network(Topology* t) {
  if (t->proc_topo != ProcTopo::kCart || t->cart_dims.empty()) return false;
  if (t->network.kind != NetKind::kUnknown || t->network.source != "detected") return false;
  long long e = 1;
  for (int d : t->cart_dims) e *= d;
  if (e != t->size || t->nodes != t->size || t->size <= 1) return false;
  Network n;
  const bool all =
      std::all_of(t->cart_periods.begin(), t->cart_periods.end(), [](int p) { return p != 0; });
  const bool none =
      std::none_of(t->cart_periods.begin(), t->cart_periods.end(), [](int p) { return p != 0; });
  n.kind =
      none ? NetKind::kMesh : (all && t->cart_dims.size() == 1 ? NetKind::kRing : NetKind::kTorus);
  n.dims = t->cart_dims;
  n.periodic = t->cart_periods;
  n.periodic.resize(n.dims.size(), 0);
  for (int& p : n.periodic) p = p != 0;
  n.rank_level = false;
  n.endpoint_of_rank.resize(t->size);
  for (int r = 0; r < t->size; ++r) n.endpoint_of_rank[r] = r;  // cart ranks are row-major
  n.source = "cart";
  t->network = std::move(n);
  return true;
}

void configure_topology(Topology* t, const NetworkDesc* file, const std::string& file_source,
                        const NetworkDesc* forced) {
  if (forced && forced->layout_nodes > 0)
    apply_layout(t, forced->layout_nodes, forced->layout_ranks_per_node, "forced");
  else if (file && file->layout_nodes > 0)
    apply_layout(t, file->layout_nodes, file->layout_ranks_per_node, file_source);
  bool done = false;
  if (forced && forced->kind != NetKind::kUnknown) done = apply_network(t, *forced, "forced", true);
  if (!done && file && file->kind != NetKind::kUnknown)
    done = apply_network(t, *file, file_source, false);
  if (!done) apply_cart_network(t);
}

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
  for (const std::string& w : t.warnings) os << "warning: " << w << "\n";
  for (const std::string& e : t.errors) os << "error: " << e << "\n";
  return os.str();
}

bool read_text_file(const std::string& path, std::string* text, std::string* error,
                    long long max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = path + ": cannot stat: " + std::strerror(errno);
    return false;
  }
  const std::string limit = "the limit is " + std::to_string(max_bytes) + " bytes (" +
                            std::to_string(max_bytes >> 20) + " MiB)";
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)                          ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISFIFO(st.st_mode)                       ? "a pipe"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                    : "not a plain file";
    *error = path + ": is " + std::string(what) + ", expected a regular file";
    return false;
  }
  if (st.st_size > max_bytes) {
    *error = path + ": is " + std::to_string(static_cast<long long>(st.st_size)) +
             " bytes, too large; " + limit;
    return false;
  }
  // Read to the end, but never past the limit (the file may grow meanwhile).
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = path + ": read error: " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    if (static_cast<long long>(out.size()) + n > max_bytes) {
      *error = path + ": grew past the size limit while being read; " + limit;
      return false;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  *text = std::move(out);
  return true;
}

}  // namespace topoa2a
