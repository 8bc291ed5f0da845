// The links of a topology and the load a set of messages puts on them: a
// node's NIC in and out (switch, fat tree, unknown; full bisection behind
// the NICs), every directed link of a ring / mesh / torus / hypercube
// (dimension-order shortest routes, ties the positive way), plus a
// dragonfly's bundle of global links per ordered pair of groups. Internal to
// the cost model.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "coll/schedule.h"
#include "topology/node_layout.h"  // ranks_are_endpoints
#include "topology/topology.h"

namespace topoa2a {

// A link of bandwidth bw (bytes/s; 0: a NIC's) carries a block in `factor`
// times a NIC's time (tw_inter): loads are counted in a NIC's blocks, so the
// busiest link times tw_inter prices the slowest link.
inline double link_factor(double bw, double tw_inter) {
  return bw > 0 && tw_inter > 0 ? 1 / (bw * tw_inter) : 1.0;
}

class LinkLoads {
 public:
  // tw_inter: the cost model's, to weigh links of other bandwidths
  // (Network::dim_bw, uplink_bw, global_bw).
  LinkLoads(const Topology& t, double tw_inter) : t_(t) {
    const Network& n = t.network;
    if (n.direct()) {
      nd_ = static_cast<int>(n.dims.size());
      stride_.assign(nd_, 1);
      for (int d = nd_ - 2; d >= 0; --d) stride_[d] = stride_[d + 1] * n.dims[d + 1];
      slots_ = static_cast<size_t>(n.endpoints()) * nd_ * 2;
      dim_factor_.assign(nd_, 1.0);
      for (int d = 0; d < nd_ && d < static_cast<int>(n.dim_bw.size()); ++d)
        dim_factor_[d] = link_factor(n.dim_bw[d], tw_inter);
    } else {
      const int units = n.rank_level ? t.size : t.nodes;
      slots_ = static_cast<size_t>(units) * 2;  // injection, ejection
      if (n.kind == NetKind::kFatTree && n.leaf_size > 0 && n.leaf_uplinks > 0) {
        // A tapered fat tree: each leaf's up-links, out and in, as one
        // bundle (a message between leaves adds load/U to both).
        int endpoints = units;
        for (int e : n.endpoint_of_rank) endpoints = std::max(endpoints, e + 1);
        leaves_ = (endpoints + n.leaf_size - 1) / n.leaf_size;
        uplinks_ = slots_;
        slots_ += static_cast<size_t>(leaves_) * 2;
        uplink_share_ = link_factor(n.uplink_bw, tw_inter) / n.leaf_uplinks;
      }
      if (n.kind == NetKind::kDragonfly && n.dims.size() == 2) {
        groups_ = n.dims[0];
        bundles_ = slots_;  // then one slot per ordered pair of groups
        slots_ += static_cast<size_t>(groups_) * groups_;
        bundle_share_ = link_factor(n.global_bw, tw_inter) / std::max(1, n.global_links);
      }
    }
    load_.assign(slots_, 0);
    stamp_.assign(slots_, 0);
  }

  void begin_round() {
    ++gen_;
    max_ = 0;
    messages_ = 0;
    links_ = 0;
    std::fill(line_.begin(), line_.end(), 0.0);
  }

  // A mesh or torus whose endpoints are the ranks in order, one rank per
  // node: a product round (Algorithm::product_on its grid) loads every
  // line of a dimension alike there, so add_line prices it.
  bool lines_alike() const {
    return t_.network.direct() && t_.nodes == t_.size && ranks_are_endpoints(t_);
  }
  // On every line of dimension d alike (lines_alike): the route from
  // coordinate `from` to `to` carries `load` more; `weight`: the messages
  // it stands for (for the mean route length).
  void add_line(int d, int from, int to, double load, double weight) {
    if (line_.empty()) {
      line_at_.assign(nd_, 0);
      for (int k = 1; k < nd_; ++k) line_at_[k] = line_at_[k - 1] + 2 * t_.network.dims[k - 1];
      line_.assign(static_cast<size_t>(line_at_[nd_ - 1] + 2 * t_.network.dims[nd_ - 1]), 0.0);
    }
    double hops = 0;
    walk(from * stride_[d], to * stride_[d], [&](int at, int dim, int way) {
      const int c = (at / stride_[dim]) % t_.network.dims[dim];
      double& l = line_[static_cast<size_t>(line_at_[dim] + 2 * c + way)];
      l += load * dim_factor_[dim];
      max_ = std::max(max_, l);
      ++hops;
    });
    links_ += weight * hops;
  }
  // Messages that add_line's routes stand for (for the mean route length).
  void count_messages(double n) { messages_ += n; }

  // Charge a message's route: every link it crosses carries `load` more
  // (blocks; a dragonfly's global bundle load/L: its L links share it),
  // times the link's factor (link_factor) where it is not as fast as a NIC.
  // `count`: the messages it stands for (for the mean route length).
  void add_message(int src, int dst, double load, double count) {
    const Network& n = t_.network;
    messages_ += count;
    double links = 0;
    if (!n.direct()) {
      bump(2 * static_cast<size_t>(t_.unit_of_rank(src)), load);
      bump(2 * static_cast<size_t>(t_.unit_of_rank(dst)) + 1, load);
      if (groups_ > 0) {
        const int gs = group_of_rank(src), gd = group_of_rank(dst);
        if (gs != gd) bump(bundles_ + static_cast<size_t>(gs) * groups_ + gd, load * bundle_share_);
        links = gs != gd ? 5 : 3;  // host, local (, global, local), host
      } else {
        links = n.kind == NetKind::kFatTree ? 4 : 2;  // up (to the spine) and down
        if (leaves_ > 0) {
          const int ls = leaf_of_rank(src), ld = leaf_of_rank(dst);
          if (ls != ld) {
            bump(uplinks_ + 2 * static_cast<size_t>(ls), load * uplink_share_);
            bump(uplinks_ + 2 * static_cast<size_t>(ld) + 1, load * uplink_share_);
          } else {
            links = 2;  // through the leaf switch only
          }
        }
      }
      links_ += count * links;
      return;
    }
    walk(n.endpoint_of_rank[src], n.endpoint_of_rank[dst], [&](int at, int d, int way) {
      bump((static_cast<size_t>(at) * nd_ + d) * 2 + way, load * dim_factor_[d]);
      ++links;
    });
    links_ += count * links;
  }

  double max_load() const { return max_; }
  // Where a message from rank src to rank dst goes: 0 inside the node (no
  // network), 1 over the network inside a dragonfly group or a tapered fat
  // tree's leaf (or on any other network), 2 between groups / leaves (over
  // the global links / up-links, the scarce ones).
  int locality(int src, int dst) const {
    if (t_.unit_of_rank(src) == t_.unit_of_rank(dst)) return 0;
    if (groups_ > 0) return group_of_rank(src) != group_of_rank(dst) ? 2 : 1;
    if (leaves_ > 0) return leaf_of_rank(src) != leaf_of_rank(dst) ? 2 : 1;
    return 1;
  }
  // Links beyond the first on the round's routes, averaged over its messages.
  double mean_extra_hops() const {
    return messages_ > 0 ? std::max(0.0, links_ / messages_ - 1.0) : 0.0;
  }

  // A rough cost of routing one message, for sampling.
  double hops_estimate() const {
    const Network& n = t_.network;
    if (!n.direct()) return 2;
    double h = 1;
    for (size_t d = 0; d < n.dims.size(); ++d) h += n.dims[d] / (n.periodic[d] ? 4.0 : 3.0);
    return h;
  }

 private:
  // The route from endpoint `cur` to `to` of a ring / mesh / torus /
  // hypercube: dimension by dimension, the shortest way (ties the positive
  // way); hop(endpoint, dimension, 0 positive / 1 negative) per link.
  template <class Hop>
  void walk(int cur, int to, Hop&& hop) const {
    const Network& n = t_.network;
    for (int d = 0; d < nd_ && cur != to; ++d) {
      const int ext = n.dims[d];
      const int a = (cur / stride_[d]) % ext, b = (to / stride_[d]) % ext;
      if (a == b) continue;
      int steps, dir;
      if (n.periodic[d]) {
        const int fwd = mod(b - a, ext), bwd = ext - fwd;
        dir = fwd <= bwd ? +1 : -1;
        steps = std::min(fwd, bwd);
      } else {
        dir = b > a ? +1 : -1;
        steps = std::abs(b - a);
      }
      int c = a;
      for (int s = 0; s < steps; ++s) {
        hop(cur, d, dir > 0 ? 0 : 1);
        const int next = n.periodic[d] ? mod(c + dir, ext) : c + dir;
        cur += (next - c) * stride_[d];
        c = next;
      }
    }
  }

  // A dragonfly's group, a tapered fat tree's leaf, of the node of rank r.
  int group_of_rank(int r) const { return t_.network.group_of(t_.network.endpoint_of_rank[r]); }
  int leaf_of_rank(int r) const { return t_.network.endpoint_of_rank[r] / t_.network.leaf_size; }

  void bump(size_t i, double w) {
    if (stamp_[i] != gen_) {
      stamp_[i] = gen_;
      load_[i] = 0;
    }
    load_[i] += w;
    max_ = std::max(max_, load_[i]);
  }

  const Topology& t_;
  int nd_ = 0;
  int groups_ = 0;           // dragonfly
  size_t bundles_ = 0;       // dragonfly: first bundle slot
  double bundle_share_ = 1;  // dragonfly: 1 / global links per pair
  int leaves_ = 0;           // tapered fat tree
  size_t uplinks_ = 0;       // tapered fat tree: first leaf slot (up, down)
  double uplink_share_ = 1;  // tapered fat tree: 1 / up-links per leaf
  double messages_ = 0, links_ = 0;
  std::vector<int> stride_;
  std::vector<double> dim_factor_;  // per dimension: link_factor of its links
  size_t slots_ = 0;
  std::vector<double> load_;
  // add_line: per dimension, coordinate and direction, every line's load
  std::vector<double> line_;
  std::vector<int> line_at_;  // where each dimension's starts
  std::vector<unsigned> stamp_;
  unsigned gen_ = 0;
  double max_ = 0;
};

}  // namespace topoa2a
