// The cost model's routing of one plan (model_options.cc): the sampled
// rounds of a candidate, their messages routed over the topology's links
// (link_loads.h), the statistics of each step. Internal to the cost model.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "topology/cost_model.h"
#include "topology/link_loads.h"
#include "topology/model_pattern.h"

namespace topoa2a::model_detail {

inline int ceil_log2(int p) { return p <= 1 ? 0 : ilog2(p); }

// Routes the sampled rounds of one plan and records its steps.
class PlanBuilder {
 public:
  // product: every round is a product on the network's grid
  // (Algorithm::product_on); direct: every block goes once, straight to its
  // destination (Algorithm::direct).
  PlanBuilder(const Topology& t, const MessagePattern& pat, double tw_inter, bool product,
              bool direct)
      : t_(t),
        pat_(pat),
        loads_(t, tw_inter),
        net_(t.size),
        intra_(t.size),
        blocks_(t.size),
        intra_blocks_(t.size),
        nic_(t.size) {
    // Every round a product on the network's own grid: the ranks of one
    // line per dimension price it exactly (LinkLoads::add_line), so every
    // round of every window is priced, none sampled. A direct schedule's
    // rounds together send every rank's block to every other rank once:
    // all in flight, they load the lines as the shifts by 1 .. p-1 do,
    // which rank 0's messages of all rounds give, whatever each round is.
    const bool alike = loads_.lines_alike();
    product_ = alike && product;
    all_pairs_ = alike && direct;
    for (size_t d = 0; d < t.network.dims.size() && alike; ++d) line_ranks_ += t.network.dims[d];
  }

  // A round's cost in link updates: routing, making each message (a Round
  // with its vectors: about 16 link updates) and each block (made twice,
  // sent and received, at about the cost of a link update).
  double round_cost(int sends) const {
    return std::max(1.0, (by_lines_ || product_ ? line_ranks_ : t_.size) *
                             (sends * (loads_.hops_estimate() + 16) + 2 * pat_.blocks_per_round()));
  }

  // `window` messages per rank in flight (0: round by round), `sends` the
  // messages a rank sends per round, `budget` link updates.
  CostModel::Plan build(int window, bool windowed, int sends, double budget,
                        std::vector<int>* rounds_out) {
    CostModel::Plan plan;
    plan.window = window;
    plan.windowed = windowed;
    const int R = pat_.rounds(), p = t_.size;
    if (R <= 0) return plan;
    const int D = windowed ? std::clamp(window / std::max(1, sends), 1, R) : 1;
    by_lines_ = product_ || (all_pairs_ && windowed && D >= R);
    const int nw = (R + D - 1) / D;
    plan.steps = nw;
    const double A = budget / round_cost(sends);  // rounds affordable
    if (D == 1) {
      // Every round of a log-round algorithm (their rounds differ), at
      // least 4 of the others, spread over their phases.
      const int lg = std::max(1, ceil_log2(p));
      const int kw = std::clamp(static_cast<int>(A), R <= 2 * lg ? R : std::min(R, 4), R);
      for (auto [k, weight] : round_samples(R, kw)) {
        if (rounds_out) rounds_out->push_back(k);
        begin();
        add_round(k, 1);
        plan.samples.push_back(finish(weight));
      }
      return plan;
    }
    // Windows: whole windows evenly spread while the budget allows, else
    // a few windows with an even sample of their rounds, scaled up.
    int kw = nw, per = D;  // windows sampled, rounds per window
    if (A < R) {
      kw = std::clamp(static_cast<int>(A / D), std::min(nw, 2), nw);
      per = std::clamp(static_cast<int>(A / kw), 1, D);
    }
    for (int i = 0; i < kw; ++i) {
      const int j = static_cast<int>((i + 0.5) * nw / kw);
      const int first = j * D, len = std::min(R, first + D) - first;
      const int n = std::min(per, len);
      begin();
      for (int s = 0; s < n; ++s)
        add_round(first + static_cast<int>((s + 0.5) * len / n), static_cast<double>(len) / n);
      plan.samples.push_back(finish(static_cast<double>(nw) / kw));
    }
    return plan;
  }

 private:
  // kw of the R rounds, with the rounds each stands for. The phases of the
  // schedule (runs of rounds in which rank 0 sends to the same peers, e.g.
  // mesh's row and column phases) each get samples in proportion to their
  // length, at least one, when there are at most kw of them. Else the
  // rounds are classed by where rank 0's messages go (the largest
  // LinkLoads::locality: inside its node, over the network inside its
  // dragonfly group / fat-tree leaf, or between groups / leaves), and each
  // class, its rounds in order wherever they lie, gets its share: 4 samples
  // of node_aware's 15 + 4 + 16 rounds at 64 x 16 spread evenly all fell
  // in its intra-node phases 1 and 3; multileader's 31 node steps on a
  // 2-group dragonfly, in bit-reversed order, alternate between the groups
  // and 4 evenly spread samples all stayed inside one. Otherwise the
  // samples are spread evenly (midpoints).
  std::vector<std::pair<int, double>> round_samples(int R, int kw) {
    std::vector<std::pair<int, double>> out;
    std::vector<std::vector<int>> strata;  // the rounds of each phase / class
    if (kw < R) {
      std::vector<int> prev;
      for (int k = 0; k < R && static_cast<int>(strata.size()) <= kw; ++k) {
        pat_.sends(0, k, &msgs_);
        std::vector<int> peers;
        for (const ModelMessage& m : msgs_) peers.push_back(m.peer);
        if (k == 0 || peers != prev) strata.emplace_back();
        strata.back().push_back(k);
        prev = std::move(peers);
      }
      if (static_cast<int>(strata.size()) > kw) {
        strata.assign(3, {});
        for (int k = 0; k < R; ++k) {
          pat_.sends(0, k, &msgs_);
          int where = 0;
          for (const ModelMessage& m : msgs_)
            if (m.blocks > 0) where = std::max(where, loads_.locality(0, m.peer));
          strata[where].push_back(k);
        }
        strata.erase(std::remove_if(strata.begin(), strata.end(),
                                    [](const std::vector<int>& s) { return s.empty(); }),
                     strata.end());
      }
    }
    if (kw >= R || static_cast<int>(strata.size()) > kw) {
      strata.assign(1, {});
      for (int k = 0; k < R; ++k) strata[0].push_back(k);
    }
    int left = kw;
    for (size_t i = 0; i < strata.size(); ++i) {
      const std::vector<int>& rounds = strata[i];
      const int len = static_cast<int>(rounds.size());
      const int rest = static_cast<int>(strata.size() - i - 1);  // one each, at least
      const int n = std::clamp(static_cast<int>(std::lround(static_cast<double>(kw) * len / R)), 1,
                               std::min(len, std::max(1, left - rest)));
      left -= n;
      for (int s = 0; s < n; ++s)
        out.push_back(
            {rounds[static_cast<size_t>((s + 0.5) * len / n)], static_cast<double>(len) / n});
    }
    return out;
  }

  void begin() {
    loads_.begin_round();
    std::fill(net_.begin(), net_.end(), 0.0);
    std::fill(intra_.begin(), intra_.end(), 0.0);
    std::fill(blocks_.begin(), blocks_.end(), 0.0);
    std::fill(intra_blocks_.begin(), intra_blocks_.end(), 0.0);
    std::fill(nic_.begin(), nic_.end(), 0.0);
    network_ = false;
    max_msg_ = 0;
  }
  // Round k's messages, each counted `scale` times. By lines (product
  // rounds, or a direct schedule all in flight): rank 0's counts stand for
  // every rank's, the lines' routes for the links' loads.
  void add_round(int k, double scale) {
    if (by_lines_) lines_of_round(k, scale);
    for (int r = 0; r < (by_lines_ ? 1 : t_.size); ++r) {
      pat_.sends(r, k, &msgs_);
      for (const ModelMessage& m : msgs_) {
        if (m.peer == r || m.blocks <= 0) continue;
        max_msg_ = std::max(max_msg_, static_cast<double>(m.blocks));
        blocks_[r] += scale * m.blocks;
        if (t_.unit_of_rank(m.peer) == t_.unit_of_rank(r)) {
          intra_[r] += scale;
          intra_blocks_[r] += scale * m.blocks;
        } else {
          network_ = true;
          net_[r] += scale;
          nic_[t_.unit_of_rank(r)] += scale;
          if (!by_lines_) loads_.add_message(r, m.peer, scale * m.blocks, scale);
        }
      }
    }
  }
  // Round k's link loads, line by line: a product round from the ranks
  // of the line through rank 0 in each dimension (c_d's image is its
  // message's coordinate d), every other round (all pairs) as rank 0's
  // messages shifted to every coordinate.
  void lines_of_round(int k, double scale) {
    const Network& n = t_.network;
    const int nd = static_cast<int>(n.dims.size());
    int stride = t_.size;
    for (int d = 0; d < nd; ++d) {
      const int ext = n.dims[d];
      stride /= ext;
      const double weight = scale / ext;  // route length per message
      if (product_) {
        for (int c = 0; c < ext; ++c) {
          pat_.sends(c * stride, k, &msgs_);
          for (const ModelMessage& m : msgs_)
            if (m.peer != c * stride && m.blocks > 0)
              loads_.add_line(d, c, m.peer / stride % ext, scale * m.blocks, weight);
        }
        continue;
      }
      pat_.sends(0, k, &msgs_);
      for (const ModelMessage& m : msgs_)
        if (m.peer != 0 && m.blocks > 0)
          for (int c = 0; c < ext; ++c)
            loads_.add_line(d, c, (c + m.peer / stride) % ext, scale * m.blocks, weight);
    }
    pat_.sends(0, k, &msgs_);
    for (const ModelMessage& m : msgs_)
      if (m.peer != 0 && m.blocks > 0) loads_.count_messages(scale);
  }
  CostModel::Step finish(double weight) {
    CostModel::Step s;
    s.weight = weight;
    s.network = network_;
    s.net_load = loads_.max_load();
    s.max_msg = max_msg_;
    s.net_msgs = *std::max_element(net_.begin(), net_.end());
    s.nic_msgs = *std::max_element(nic_.begin(), nic_.end());
    s.intra_msgs = *std::max_element(intra_.begin(), intra_.end());
    s.rank_blocks = *std::max_element(blocks_.begin(), blocks_.end());
    s.intra_blocks = *std::max_element(intra_blocks_.begin(), intra_blocks_.end());
    s.extra_hops = loads_.mean_extra_hops();
    return s;
  }

  const Topology& t_;
  const MessagePattern& pat_;
  LinkLoads loads_;
  std::vector<double> net_, intra_, blocks_, intra_blocks_;  // per rank, this step
  std::vector<double> nic_;                                  // network messages per unit, this step
  std::vector<ModelMessage> msgs_;
  bool network_ = false;
  double max_msg_ = 0;
  bool product_ = false;    // every round a product on the grid: priced by lines
  bool all_pairs_ = false;  // direct: all rounds at once priced by lines
  bool by_lines_ = false;   // this plan is priced by lines
  int line_ranks_ = 0;      // the ranks of one line per dimension
};

}  // namespace topoa2a::model_detail
