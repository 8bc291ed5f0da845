#include "coll/nodes.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace topoa2a {
namespace {

void fnv(std::uint64_t* h, long long v) {
  for (int i = 0; i < 8; ++i) {
    *h ^= static_cast<std::uint64_t>(v >> (8 * i)) & 0xff;
    *h *= 1099511628211ULL;
  }
}

// Is v a permutation of 0..n-1?
bool is_permutation_of(const std::vector<int>& v, int n) {
  if (static_cast<int>(v.size()) != n) return false;
  std::vector<char> seen(n, 0);
  for (int x : v) {
    if (x < 0 || x >= n || seen[x]) return false;
    seen[x] = 1;
  }
  return true;
}

// Product of the extents; 0 when empty or an extent is not positive.
long long product(const std::vector<int>& dims) {
  long long e = dims.empty() ? 0 : 1;
  for (int d : dims) {
    if (d <= 0 || e > (1LL << 31)) return 0;
    e *= d;
  }
  return e;
}

}  // namespace

std::shared_ptr<const NodeLayout> make_node_layout(const std::vector<int>& node_of_rank,
                                                   NodeNet net, std::vector<int> dims,
                                                   const std::vector<int>& endpoint_of_rank) {
  if (node_of_rank.empty()) return nullptr;
  auto l = std::make_shared<NodeLayout>();
  std::map<int, int> renumber;
  for (int id : node_of_rank) {
    if (id < 0) return nullptr;
    auto it = renumber.emplace(id, static_cast<int>(renumber.size())).first;
    l->node_of_rank.push_back(it->second);
  }
  l->nodes = static_cast<int>(renumber.size());
  l->net = net;
  l->dims = std::move(dims);
  if (endpoint_of_rank.size() == node_of_rank.size()) {
    l->endpoint_of_node.assign(l->nodes, -1);
    bool ok = true;
    for (size_t r = 0; r < endpoint_of_rank.size() && ok; ++r) {
      int& e = l->endpoint_of_node[l->node_of_rank[r]];
      ok = endpoint_of_rank[r] >= 0 && (e < 0 || e == endpoint_of_rank[r]);
      e = endpoint_of_rank[r];
    }
    if (!ok) l->endpoint_of_node.clear();
  }
  std::uint64_t h = 1469598103934665603ULL;
  fnv(&h, l->nodes);
  for (int x : l->node_of_rank) fnv(&h, x);
  fnv(&h, static_cast<int>(l->net));
  fnv(&h, static_cast<long long>(l->dims.size()));
  for (int x : l->dims) fnv(&h, x);
  fnv(&h, static_cast<long long>(l->endpoint_of_node.size()));
  for (int x : l->endpoint_of_node) fnv(&h, x);
  l->hash = h;
  return l;
}

std::string layout_problem(int p, const Params& params) {
  const NodeLayout* l = params.layout.get();
  if (!l) return {};
  if (static_cast<int>(l->node_of_rank.size()) != p)
    return "the node layout has " + std::to_string(l->node_of_rank.size()) +
           " ranks, the communicator " + std::to_string(p);
  std::vector<char> used(l->nodes > 0 ? l->nodes : 0, 0);
  for (int a : l->node_of_rank) {
    if (a < 0 || a >= l->nodes)
      return "the node layout names node " + std::to_string(a) + " of " + std::to_string(l->nodes);
    used[a] = 1;
  }
  for (int a = 0; a < l->nodes; ++a)
    if (!used[a]) return "node " + std::to_string(a) + " of the node layout has no rank";
  return {};
}

Nodes nodes_of(int p, const Params& params) {
  Nodes nd;
  nd.p = p;
  const NodeLayout* l = params.layout.get();
  nd.n = l ? l->nodes : p;
  nd.node.resize(p);
  for (int r = 0; r < p; ++r) nd.node[r] = l ? l->node_of_rank[r] : r;
  nd.start.assign(nd.n + 1, 0);
  for (int r = 0; r < p; ++r) ++nd.start[nd.node[r] + 1];
  for (int a = 0; a < nd.n; ++a) nd.start[a + 1] += nd.start[a];
  nd.members.resize(p);
  nd.local.resize(p);
  std::vector<int> fill(nd.start.begin(), nd.start.end() - 1);
  for (int r = 0; r < p; ++r) {
    const int a = nd.node[r];
    nd.local[r] = fill[a] - nd.start[a];
    nd.members[fill[a]++] = r;
  }
  for (int a = 0; a < nd.n; ++a) {
    nd.qmax = std::max(nd.qmax, nd.size(a));
    if (nd.size(a) != nd.size(0)) nd.equal = false;
  }
  return nd;
}

int pair_1f(int n, int i, int j) {
  if (n % 2 == 1) return mod(i - j, n);
  const int idle = static_cast<int>((1LL * (n / 2) * i) % (n - 1));
  if (j == n - 1) return idle;
  if (j == idle) return n - 1;
  return mod(i - j, n - 1);
}

NodeSteps::NodeSteps(const Nodes& nodes, const Params& params) : n_(nodes.n) {
  const NodeLayout* l = params.layout.get();
  const bool placed = l && is_permutation_of(l->endpoint_of_node, n_);
  const NodeNet net = l ? l->net : NodeNet::kSwitch;
  const bool routed = net == NodeNet::kRing || net == NodeNet::kMesh || net == NodeNet::kTorus;
  if (routed && placed && product(l->dims) == n_ && n_ > 1) {
    kind_ = Kind::kShift;
    dims_ = l->dims;
  } else if (is_pow2(n_) && net != NodeNet::kRing && net != NodeNet::kMesh &&
             net != NodeNet::kTorus) {
    kind_ = Kind::kXor;
  } else {
    kind_ = Kind::kOneFactor;
  }
  if (kind_ != Kind::kOneFactor) {
    ep_.resize(n_);
    node_at_.resize(n_);
    for (int a = 0; a < n_; ++a) ep_[a] = placed ? l->endpoint_of_node[a] : a;
    for (int a = 0; a < n_; ++a) node_at_[ep_[a]] = a;
  }
  if (kind_ == Kind::kXor) {
    // On a dragonfly the distances go in bit-reversed order: a run of L
    // consecutive steps (one inter-node round of L lanes) then holds equal
    // shares of every value of the high bits, which number the group, so
    // every round loads the global links of all group pairs alike. In
    // distance order, 16 lanes at 64 nodes in 4 groups used no global link
    // in the first round and those of one group pair in each of the other
    // three. Elsewhere distance order (measured on the 64x16 fat tree:
    // bit-reversed was 9% slower at 8 B, the same at 2 KiB; sim/README.md).
    const int bits = ilog2(n_);
    for (int i = 1; i < n_; ++i) {
      int d = i;
      if (net == NodeNet::kDragonfly) {
        d = 0;
        for (int b = 0; b < bits; ++b)
          if ((i >> b) & 1) d |= 1 << (bits - 1 - b);
      }
      xor_.push_back(d);
    }
    step_of_xor_.assign(n_, -1);
    for (size_t j = 0; j < xor_.size(); ++j) step_of_xor_[xor_[j]] = static_cast<int>(j);
    count_ = n_ - 1;
  } else if (kind_ == Kind::kOneFactor) {
    count_ = rounds_1f(n_);
  } else {
    // Signed components in (-d/2, d/2]; hops = their absolute sum.
    const int nd = static_cast<int>(dims_.size());
    auto negate = [&](int s) {
      int out = 0;
      for (int i = 0, stride = n_; i < nd; ++i) {
        stride /= dims_[i];
        const int c = (s / stride) % dims_[i];
        out += ((dims_[i] - c) % dims_[i]) * stride;
      }
      return out;
    };
    auto hops = [&](int s) {
      int h = 0;
      for (int i = 0, stride = n_; i < nd; ++i) {
        stride /= dims_[i];
        const int c = (s / stride) % dims_[i];
        h += std::min(c, dims_[i] - c);
      }
      return h;
    };
    std::vector<std::pair<int, int>> canon;  // (hops, shift) with shift <= -shift
    for (int s = 1; s < n_; ++s)
      if (s <= negate(s)) canon.push_back({hops(s), s});
    std::stable_sort(canon.begin(), canon.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    // Equal lengths stay in row-major order: the last dimension's shift
    // comes before the first's, so both dimensions alternate.
    for (const auto& [h, s] : canon) {
      shift_.push_back(s);
      if (negate(s) != s) shift_.push_back(negate(s));
    }
    step_of_shift_.assign(n_, -1);
    for (size_t j = 0; j < shift_.size(); ++j) step_of_shift_[shift_[j]] = static_cast<int>(j);
    count_ = static_cast<int>(shift_.size());
  }
}

int NodeSteps::move(int a, int shift, int sign) const {
  const int nd = static_cast<int>(dims_.size());
  const int e = ep_[a];
  int out = 0;
  for (int i = 0, stride = n_; i < nd; ++i) {
    stride /= dims_[i];
    const int c = (e / stride) % dims_[i];
    const int s = (shift / stride) % dims_[i];
    out += mod(c + sign * s, dims_[i]) * stride;
  }
  return node_at_[out];
}

int NodeSteps::to(int j, int a) const {
  switch (kind_) {
    case Kind::kXor:
      return node_at_[ep_[a] ^ xor_[j]];
    case Kind::kShift:
      return move(a, shift_[j], +1);
    case Kind::kOneFactor:
      break;
  }
  return pair_1f(n_, j, a);
}

int NodeSteps::from(int j, int a) const {
  if (kind_ == Kind::kShift) return move(a, shift_[j], -1);
  return to(j, a);  // pairings are their own inverse
}

int NodeSteps::step_of(int a, int b) const {
  switch (kind_) {
    case Kind::kXor:
      return step_of_xor_[ep_[a] ^ ep_[b]];
    case Kind::kShift: {
      const int nd = static_cast<int>(dims_.size());
      int s = 0;
      for (int i = 0, stride = n_; i < nd; ++i) {
        stride /= dims_[i];
        const int ca = (ep_[a] / stride) % dims_[i], cb = (ep_[b] / stride) % dims_[i];
        s += mod(cb - ca, dims_[i]) * stride;
      }
      return step_of_shift_[s];
    }
    case Kind::kOneFactor:
      break;
  }
  // Round i pairs j with (i - j) mod n (odd n), or mod n-1 with n-1 taking
  // the idle rank idle(i) = (n/2) i mod (n-1), whose inverse is 2 idle.
  if (n_ % 2 == 1) return mod(a + b, n_);
  if (a == n_ - 1) return mod(2 * b, n_ - 1);
  if (b == n_ - 1) return mod(2 * a, n_ - 1);
  return mod(a + b, n_ - 1);
}

const char* to_string(NodeSteps::Kind k) {
  switch (k) {
    case NodeSteps::Kind::kXor:
      return "xor";
    case NodeSteps::Kind::kShift:
      return "shift";
    case NodeSteps::Kind::kOneFactor:
      break;
  }
  return "1-factor";
}

}  // namespace topoa2a
