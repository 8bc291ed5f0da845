#include "topology/cost_model.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "coll/algorithms.h"

namespace topoa2a {

// ---------------------------------------------------------------------------
// Cost parameters

namespace {

struct CostKey {
  const char* name;
  double CostParams::*field;
  const char* unit;  // for printing
  double scale;
};
constexpr CostKey kCostKeys[] = {
    {"ts_intra", &CostParams::ts_intra, "us", 1e-6},
    {"tw_intra", &CostParams::tw_intra, "ns", 1e-9},
    {"ts_inter", &CostParams::ts_inter, "us", 1e-6},
    {"tw_inter", &CostParams::tw_inter, "ns", 1e-9},
    {"ts_hop", &CostParams::ts_hop, "us", 1e-6},
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

bool parse_cost_params(const std::string& text, CostParams* inout, std::string* error) {
  static const char* kHelp =
      "expected key=value[,key=value...] with keys ts_intra, tw_intra, ts_inter, tw_inter, "
      "ts_hop and "
      "values in seconds (per byte for tw) with an optional unit s, ms, us, ns, ps, e.g. "
      "'ts_inter=1.5us,tw_inter=0.08ns'";
  CostParams c = *inout;
  auto err = [&](const std::string& msg) {
    *error = std::string(kEnvCost) + "='" + text + "': " + msg + "; " + kHelp;
    return false;
  };
  if (trim(text).empty()) return err("empty value");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(text.substr(pos, end - pos));
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return err("'" + item + "' has no '='");
    const std::string key = trim(item.substr(0, eq));
    const std::string value = trim(item.substr(eq + 1));
    const CostKey* k = nullptr;
    for (const CostKey& ck : kCostKeys)
      if (key == ck.name) k = &ck;
    if (!k) return err("unknown key '" + key + "'");
    const char* begin = value.c_str();
    char* rest = nullptr;
    errno = 0;
    double v = std::strtod(begin, &rest);
    if (rest == begin || errno != 0 || !std::isfinite(v) || v < 0)
      return err("'" + value + "' is not a non-negative number");
    std::string unit = rest;
    if (unit.size() >= 2 &&
        (unit.substr(unit.size() - 2) == "/B" || unit.substr(unit.size() - 2) == "/b"))
      unit.resize(unit.size() - 2);
    double scale = 1;
    if (unit.empty() || unit == "s")
      scale = 1;
    else if (unit == "ms")
      scale = 1e-3;
    else if (unit == "us")
      scale = 1e-6;
    else if (unit == "ns")
      scale = 1e-9;
    else if (unit == "ps")
      scale = 1e-12;
    else
      return err("unknown unit '" + unit + "' in '" + value + "'");
    c.*(k->field) = v * scale;
    if (end == text.size()) break;
    pos = end + 1;
  }
  *inout = c;
  return true;
}

std::string to_string(const CostParams& c) {
  std::string out;
  for (const CostKey& k : kCostKeys) {
    if (!out.empty()) out += ",";
    out += std::string(k.name) + "=" + fmt_g(c.*(k.field) / k.scale) + k.unit;
  }
  return out;
}

CostParams cost_params_for(const Topology& t, std::string* error) {
  CostParams c;
  if (t.cost_text.find_first_not_of(" \t") == std::string::npos) return c;
  if (!parse_cost_params(t.cost_text, &c, error)) return CostParams{};
  return c;
}

std::string format_seconds(double s) {
  const char* unit = "s";
  double v = s;
  if (s < 1e-6) {
    v = s * 1e9;
    unit = "ns";
  } else if (s < 1e-3) {
    v = s * 1e6;
    unit = "us";
  } else if (s < 1) {
    v = s * 1e3;
    unit = "ms";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, unit);
  return buf;
}

std::string format_bytes(size_t b) {
  if (b >= (size_t{1} << 20) && b % (size_t{1} << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

// ---------------------------------------------------------------------------
// The algorithms the model knows: the table's plus MPICH's brucks, pairwise
// and scattered.

namespace {

constexpr const char* kBrucks = "brucks";
constexpr const char* kPairwise = "pairwise";
constexpr const char* kScattered = "scattered";
// MPICH's scattered posts the messages to (and from) this many peers at a
// time, then waits for them (MPIR_CVAR_ALLTOALL_THROTTLE, default 32).
constexpr int kScatteredBatch = 32;

int ceil_log2(int p) { return p <= 1 ? 0 : ilog2(p); }

int onefactor_pair(int p, int i, int j) {  // mirrors coll/onefactor.cc (the seed's rule)
  if (p % 2 == 1) return mod(i - j, p);
  const int idle = static_cast<int>((1LL * (p / 2) * i) % (p - 1));
  if (j == p - 1) return idle;
  if (j == idle) return p - 1;
  return mod(i - j, p - 1);
}

std::string known_names() {
  return algorithm_names() + ", " + kBrucks + ", " + kPairwise + ", " + kScattered;
}

std::string check(const std::string& name, int p, const Params& params) {
  if (const Algorithm* a = find_algorithm(name)) return a->check(p, params);
  return {};
}

double seed_time(const std::string& name, int p, const Params& params, double ts, double tw,
                 double m) {
  if (const Algorithm* a = find_algorithm(name)) return a->time(p, params, ts, tw, m);
  if (name == kBrucks) return ceil_log2(p) * (ts + tw * m * p / 2.0);
  // scattered priced alone, without a network: one message after another
  // (on a network price() pipelines them).
  if (name == kPairwise || name == kScattered) return (p - 1) * (ts + tw * m);
  return 0;
}

// The communication pattern the model assumes for each algorithm.
enum class Pattern {
  kNone,
  kRing,
  kRingBidir,
  kMesh,
  kHypercube,
  kOneFactor,
  kOneFactorXor,
  kBrucks,
  kPairwise,
  kScattered,
};

Pattern pattern_of(const std::string& name) {
  if (const Algorithm* a = find_algorithm(name)) {
    switch (a->id) {
      case AlgorithmId::kRing:
        return Pattern::kRing;
      case AlgorithmId::kRingBidir:
        return Pattern::kRingBidir;
      case AlgorithmId::kMesh:
        return Pattern::kMesh;
      case AlgorithmId::kHypercube:
        return Pattern::kHypercube;
      case AlgorithmId::kOneFactor:
        return Pattern::kOneFactor;
      case AlgorithmId::kOneFactorXor:
        return Pattern::kOneFactorXor;
      case AlgorithmId::kTorus:  // not priced by this pattern copy (not a candidate)
      case AlgorithmId::kDirectScheduled:
        return Pattern::kNone;
    }
  }
  if (name == kBrucks) return Pattern::kBrucks;
  if (name == kPairwise) return Pattern::kPairwise;
  if (name == kScattered) return Pattern::kScattered;
  return Pattern::kNone;
}

// Batch `round` of MPICH's scattered: peer offsets [first, end), 0 excluded.
std::pair<int, int> scattered_batch(int p, int round) {
  return {std::max(1, round * kScatteredBatch), std::min(p, (round + 1) * kScatteredBatch)};
}

// The peers `rank` sends to in `round` (mirrors the schedules in coll/ and
// MPICH's brucks / pairwise), into *out.
void send_peers(Pattern pat, int p, const Grid& g, int round, int rank, std::vector<int>* out) {
  out->clear();
  if (p <= 1) return;
  switch (pat) {
    case Pattern::kNone:
      break;
    case Pattern::kRing:
      out->push_back((rank + 1) % p);
      break;
    case Pattern::kRingBidir:
      out->push_back((rank + 1) % p);
      if (round < (p - 1) / 2) out->push_back(mod(rank - 1, p));
      break;
    case Pattern::kMesh: {
      const int row = rank / g.cols, col = rank % g.cols;
      if (round < g.cols - 1)
        out->push_back(row * g.cols + (col + 1) % g.cols);
      else
        out->push_back(((row + 1) % g.rows) * g.cols + col);
      break;
    }
    case Pattern::kHypercube:
      out->push_back(rank ^ (1 << round));
      break;
    case Pattern::kOneFactor: {
      const int q = onefactor_pair(p, round, rank);
      if (q != rank) out->push_back(q);
      break;
    }
    case Pattern::kOneFactorXor:
      out->push_back(rank ^ (round + 1));
      break;
    case Pattern::kBrucks:
      out->push_back(static_cast<int>((rank + (1LL << round)) % p));
      break;
    case Pattern::kScattered: {  // batch `round`: to rank - i for its offsets i
      const auto [first, end] = scattered_batch(p, round);
      for (int i = first; i < end; ++i) out->push_back((rank - i + p) % p);
      break;
    }
    case Pattern::kPairwise: {
      const int i = round + 1;
      out->push_back(is_pow2(p) ? (rank ^ i) : (rank + i) % p);
      break;
    }
  }
}

int rounds_of(const std::string& name, int p, const Params& params) {
  if (const Algorithm* a = find_algorithm(name)) return a->rounds(p, params);
  if (name == kBrucks) return ceil_log2(p);
  if (name == kPairwise) return std::max(0, p - 1);
  if (name == kScattered) return p > 1 ? (p + kScatteredBatch - 1) / kScatteredBatch : 0;
  return 0;
}

}  // namespace

std::vector<std::string> default_candidates() {
  std::vector<std::string> out;
  for (const Algorithm& a : algorithms())
    if (pattern_of(a.name) != Pattern::kNone) out.push_back(a.name);
  out.push_back(kBrucks);
  out.push_back(kPairwise);
  out.push_back(kScattered);
  return out;
}

std::vector<int> model_send_peers(const std::string& algorithm, int p, const Params& params,
                                  int round, int rank) {
  std::vector<int> out;
  send_peers(pattern_of(algorithm), p, resolve_params(p, params).grid, round, rank, &out);
  return out;
}

int model_rounds(const std::string& algorithm, int p, const Params& params) {
  return rounds_of(algorithm, p, resolve_params(p, params));
}

// ---------------------------------------------------------------------------
// Round statistics

namespace {

class LinkLoads {
 public:
  explicit LinkLoads(const Topology& t) : t_(t) {
    const Network& n = t.network;
    if (n.direct()) {
      nd_ = static_cast<int>(n.dims.size());
      stride_.assign(nd_, 1);
      for (int d = nd_ - 2; d >= 0; --d) stride_[d] = stride_[d + 1] * n.dims[d + 1];
      slots_ = static_cast<size_t>(n.endpoints()) * nd_ * 2;
    } else {
      const int units = n.rank_level ? t.size : t.nodes;
      slots_ = static_cast<size_t>(units) * 2;  // injection, ejection
      if (n.kind == NetKind::kDragonfly && n.dims.size() == 2) {
        groups_ = n.dims[0];
        bundles_ = slots_;  // then one slot per ordered pair of groups
        slots_ += static_cast<size_t>(groups_) * groups_;
        bundle_share_ = 1.0 / std::max(1, n.global_links);
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
  }

  // Charge a message's route: every link it crosses carries one more
  // message (a dragonfly's global bundle 1/L: its L links share the load).
  void add_message(int src, int dst) {
    const Network& n = t_.network;
    ++messages_;
    if (!n.direct()) {
      bump(2 * static_cast<size_t>(t_.unit_of_rank(src)));
      bump(2 * static_cast<size_t>(t_.unit_of_rank(dst)) + 1);
      if (groups_ > 0) {
        const int gs = n.group_of(n.endpoint_of_rank[src]);
        const int gd = n.group_of(n.endpoint_of_rank[dst]);
        if (gs != gd) bump(bundles_ + static_cast<size_t>(gs) * groups_ + gd, bundle_share_);
        links_ += gs != gd ? 5 : 3;  // host, local (, global, local), host
      } else {
        links_ += n.kind == NetKind::kFatTree ? 4 : 2;  // up (to the spine) and down
      }
      return;
    }
    int cur = n.endpoint_of_rank[src];
    const int to = n.endpoint_of_rank[dst];
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
      links_ += steps;
      for (int s = 0; s < steps; ++s) {
        bump((static_cast<size_t>(cur) * nd_ + d) * 2 + (dir > 0 ? 0 : 1));
        const int next = n.periodic[d] ? mod(c + dir, ext) : c + dir;
        cur += (next - c) * stride_[d];
        c = next;
      }
    }
  }

  double max_load() const { return max_; }
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
  void bump(size_t i, double w = 1) {
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
  double messages_ = 0, links_ = 0;
  std::vector<int> stride_;
  size_t slots_ = 0;
  std::vector<double> load_;
  std::vector<unsigned> stamp_;
  unsigned gen_ = 0;
  double max_ = 0;
};

// Scattered batches priced at least (when it has that many).
constexpr double kMinBatchSamples = 8;
// Link updates per option: O(p log p), so that pricing a communicator of p
// ranks costs each rank O(p log p) work whatever the algorithm (rounds are
// sampled evenly when they would need more).
double link_budget(int p) {
  const double lg = std::max(1, ceil_log2(p));
  return std::max(1 << 14, 64 * p) * lg;
}

// Rounds to evaluate, with the number of rounds each stands for.
std::vector<std::pair<int, double>> round_samples(Pattern pat, int p, const Grid& g, int rounds,
                                                  double cost_per_round) {
  std::vector<std::pair<int, double>> out;
  if (rounds <= 0) return out;
  if (pat == Pattern::kRing) {
    out.push_back({0, rounds});
  } else if (pat == Pattern::kRingBidir) {
    const int both = (p - 1) / 2;  // rounds with a counter-clockwise send
    if (both > 0) out.push_back({0, both});
    if (rounds > both) out.push_back({both, rounds - both});
  } else if (pat == Pattern::kMesh) {
    if (g.cols > 1) out.push_back({0, g.cols - 1});
    if (g.rows > 1) out.push_back({g.cols - 1, g.rows - 1});
  } else {
    // Every round of a log-round algorithm (their rounds differ), and at
    // least 2 log2(p) evenly spread samples of the others.
    const int at_least = std::min(rounds, 2 * std::max(1, ceil_log2(p)));
    const int k = std::max(
        at_least, static_cast<int>(std::clamp(link_budget(p) / std::max(1.0, cost_per_round), 1.0,
                                              static_cast<double>(rounds))));
    for (int i = 0; i < k; ++i) {
      const int r = static_cast<int>((static_cast<long long>(i) * rounds) / k);
      out.push_back({r, static_cast<double>(rounds) / k});
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// CostModel

std::vector<CostModel::Option> CostModel::options_for(const std::string& algorithm) const {
  std::vector<Option> out;
  const int p = topo_.size;
  if (pattern_of(algorithm) == Pattern::kNone) {
    Option o;
    o.algorithm = algorithm;
    o.why_not = "unknown algorithm '" + algorithm + "' (the model knows " + known_names() + ")";
    out.push_back(o);
    return out;
  }
  // Parameter choices.
  std::vector<std::pair<Params, std::string>> choices;
  if (algorithm == "mesh") {
    auto add = [&](Grid g, const std::string& note) {
      if (!g.valid_for(p)) return;
      for (auto& c : choices)
        if (c.first.grid.rows == g.rows && c.first.grid.cols == g.cols) return;
      Params prm;
      prm.grid = g;
      choices.push_back({prm, note});
    };
    const int rpn = topo_.ranks_per_node;
    if (topo_.nodes > 1 && rpn > 0) {
      if (topo_.placement == Placement::kBlock) add(Grid{topo_.nodes, rpn}, "rows=nodes");
      if (topo_.placement == Placement::kRoundRobin) add(Grid{rpn, topo_.nodes}, "cols=nodes");
    }
    if (topo_.proc_topo == ProcTopo::kCart && topo_.cart_dims.size() == 2)
      add(Grid{topo_.cart_dims[0], topo_.cart_dims[1]}, "cart");
    const Network& n = topo_.network;
    if (n.direct() && n.dims.size() == 2 && (n.rank_level || topo_.nodes == p))
      add(Grid{n.dims[0], n.dims[1]}, "network");
    add(default_grid(std::max(1, p)), "default");
    if (choices.empty()) {
      Params prm;
      prm.grid = default_grid(std::max(1, p));
      choices.push_back({prm, "default"});
    }
  } else {
    choices.push_back({Params{}, ""});
  }

  for (auto& [params, note] : choices) {
    Option o;
    o.algorithm = algorithm;
    o.params = params;
    o.note = note;
    const Params resolved = resolve_params(p, params);
    o.why_not = p >= 1 ? check(algorithm, p, resolved) : "empty communicator";
    if (!o.why_not.empty()) {
      out.push_back(o);
      continue;
    }
    o.rounds = rounds_of(algorithm, p, resolved);
    LinkLoads loads(topo_);
    std::vector<int> peers;
    const bool network = topo_.spans_network();
    const Pattern pat = pattern_of(algorithm);
    const int per_round = pat == Pattern::kScattered ? std::min(p - 1, kScatteredBatch) : 1;
    // A scattered batch sends to up to 32 peers: for large p, price an
    // evenly spread sample of its peer offsets, so that at least
    // kMinBatchSamples batches fit the link budget, and scale by the share
    // sampled.
    const double round_cost = double(p) * per_round * loads.hops_estimate();
    const double sampled_cost = pat == Pattern::kScattered
                                    ? std::min(round_cost, link_budget(p) / kMinBatchSamples)
                                    : round_cost;
    const int stride = static_cast<int>(std::max(1.0, std::ceil(round_cost / sampled_cost)));
    for (auto [round, weight] : round_samples(pat, p, resolved.grid, o.rounds, sampled_cost)) {
      bool crosses = false;
      loads.begin_round();
      int sampled = 0;  // scattered: peer offsets priced per rank
      if (network) {
        for (int r = 0; r < p; ++r) {
          send_peers(pat, p, resolved.grid, round, r, &peers);
          if (stride > 1) {
            std::vector<int> every;
            for (size_t i = 0; i < peers.size(); i += static_cast<size_t>(stride))
              every.push_back(peers[i]);
            peers.swap(every);
          }
          sampled = static_cast<int>(peers.size());
          for (int q : peers) {
            if (q == r || topo_.unit_of_rank(q) == topo_.unit_of_rank(r)) continue;
            crosses = true;
            loads.add_message(r, q);
          }
        }
      }
      o.total_weight += weight;
      // A scattered batch holds up to 32 messages of each rank at once: its
      // congestion is per message, the busiest link's load shared out over
      // them (a NIC: C = 1; a ring of 64: the load of the batch's offsets,
      // 1..31 or 32..63, on the busiest link, over the batch's messages).
      const double per = pat == Pattern::kScattered ? std::max(1, sampled) : 1;
      const double congestion = crosses ? std::max(1.0, loads.max_load() / per) : 1.0;
      if (pat == Pattern::kScattered) {
        const auto [first, end] = scattered_batch(p, round);
        o.batches.push_back({weight, end - first, crosses, congestion});
      }
      if (crosses) {
        o.network_weight += weight;
        o.congestion_weight += weight * congestion;
        o.tw_net_weight += weight * std::max(cost_.tw_intra, cost_.tw_inter * congestion);
        o.hop_weight += weight * loads.mean_extra_hops();
      }
    }
    out.push_back(o);
  }
  return out;
}

CostModel::CostModel(const Topology& topo, const CostParams& cost,
                     const std::vector<std::string>& candidates)
    : topo_(topo), cost_(cost), candidates_(candidates) {
  if (topo_.network.endpoint_of_rank.size() != static_cast<size_t>(topo_.size)) {
    // A hand-built topology without endpoints: one per unit.
    topo_.network.endpoint_of_rank.resize(topo_.size);
    for (int r = 0; r < topo_.size; ++r) topo_.network.endpoint_of_rank[r] = topo_.unit_of_rank(r);
    if (topo_.network.has_coords() &&
        topo_.network.endpoints() < (topo_.network.rank_level ? topo_.size : topo_.nodes))
      topo_.network.dims.clear();
  }
  for (const std::string& c : candidates_) options_.push_back(options_for(c));
}

Estimate CostModel::price(const Option& o, size_t m) const {
  Estimate e;
  e.algorithm = o.algorithm;
  e.params = o.params;
  e.params_note = o.note;
  e.rounds = o.rounds;
  if (!o.why_not.empty()) {
    e.why_not = o.why_not;
    return e;
  }
  e.applicable = true;
  const double w = o.total_weight;
  const double net = o.network_weight;
  const double ts_net = std::max(cost_.ts_inter, cost_.ts_intra);
  e.network_fraction = w > 0 ? net / w : 0;
  e.congestion = net > 0 ? o.congestion_weight / net : 0;
  if (w > 0) {
    e.ts_eff = ((w - net) * cost_.ts_intra + net * ts_net) / w;
    e.tw_eff = ((w - net) * cost_.tw_intra + o.tw_net_weight) / w;
  } else {
    e.ts_eff = cost_.ts_intra;
    e.tw_eff = cost_.tw_intra;
  }
  const double md = static_cast<double>(m);
  const int p = topo_.size;
  if (o.algorithm == kScattered && net > 0) {
    // Each batch's messages are in flight together: the NICs move one
    // while the ranks start the next, so after the first, each costs the
    // larger of its start-up and its wire time (per message: the busiest
    // link's load shared out over the batch's messages); the next batch
    // starts when this one is done. Measured so in the emulated cluster
    // and the simulation (bench/EMULATION.md, sim/README.md). A batch
    // inside a node is copies by the CPU: no overlap.
    e.predicted = 0;
    for (const Option::Batch& b : o.batches) {
      if (!b.network) {
        e.predicted += b.weight * b.messages * (cost_.ts_intra + cost_.tw_intra * md);
        continue;
      }
      const double wire = std::max(cost_.tw_intra, cost_.tw_inter * b.congestion) * md;
      e.predicted += b.weight * (ts_net + wire + (b.messages - 1) * std::max(ts_net, wire));
    }
  } else {
    e.predicted = seed_time(o.algorithm, p, resolve_params(p, o.params), e.ts_eff, e.tw_eff, md);
  }
  if (o.algorithm == kBrucks && p > 1)
    e.predicted += 2.0 * p * md * cost_.tw_intra;  // initial and final local rotation
  // Hop latency: each network round waits for its routes beyond the first
  // link (a scattered batch: once, its messages fly together).
  e.extra_hops = o.hop_weight;
  e.predicted += cost_.ts_hop * o.hop_weight;
  return e;
}

namespace {
bool better(const Estimate& a, const Estimate& b) {  // a strictly better than b
  if (!a.applicable) return false;
  if (!b.applicable) return true;
  return a.predicted < b.predicted - 1e-9 * std::max(a.predicted, b.predicted);
}
}  // namespace

Estimate CostModel::estimate(const std::string& algorithm, size_t m) const {
  const std::vector<Option>* opts = nullptr;
  std::vector<Option> local;
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i] == algorithm) opts = &options_[i];
  if (!opts) {
    local = options_for(algorithm);
    opts = &local;
  }
  Estimate best;
  bool first = true;
  for (const Option& o : *opts) {
    Estimate e = price(o, m);
    if (first || better(e, best)) best = e;
    first = false;
  }
  return best;
}

namespace {
std::string label(const Estimate& e) {
  std::string s = e.algorithm;
  if (e.algorithm == "mesh")
    s += " " + std::to_string(e.params.grid.rows) + "x" + std::to_string(e.params.grid.cols) +
         (e.params_note.empty() ? "" : " (" + e.params_note + ")");
  return s;
}
}  // namespace

namespace {
// The order in which candidates break ties: the candidate order, except that
// on a switch-like network (switch, fat_tree, dragonfly, unknown) that the
// communicator spans, the XOR 1-factor goes just before the (i - j) mod
// (p - 1) one. Both price alike (one block per round through each NIC), and
// on a single crossbar both are contention-free; but a fat tree's static
// destination-based routing carries every XOR round without contention
// while the other pairing makes ranks of one leaf share up-links (SimGrid,
// p = 64, 32 KiB blocks: fat tree 0.30 ms against 0.39 ms, dragonfly 0.85
// ms against 0.96 ms; sim/README.md). The seed text says as much.
std::vector<size_t> tie_order(const std::vector<std::string>& candidates, const Topology& t) {
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const NetKind kind = t.network.kind;
  const bool switch_like = kind == NetKind::kSwitch || kind == NetKind::kFatTree ||
                           kind == NetKind::kDragonfly || kind == NetKind::kUnknown;
  if (!switch_like || !t.spans_network()) return order;
  auto at = [&](const char* name) {
    return static_cast<size_t>(std::find(candidates.begin(), candidates.end(), name) -
                               candidates.begin());
  };
  const size_t plain = at("onefactor"), xr = at("onefactor_xor");
  if (plain < xr && xr < candidates.size()) {
    order.erase(order.begin() + xr);
    order.insert(order.begin() + plain, xr);
  }
  return order;
}
}  // namespace

Choice CostModel::choose(size_t m, bool in_place) const {
  Choice c;
  const Estimate* best = nullptr;
  const Estimate* second = nullptr;
  for (const std::string& name : candidates_) {
    c.considered.push_back(estimate(name, m));
    if (in_place && c.considered.back().applicable &&
        (name == "brucks" || name == "pairwise" || name == "scattered")) {
      c.considered.back().applicable = false;
      c.considered.back().why_not = "MPICH's " + name + " does not run in place";
    }
  }
  for (size_t i : tie_order(candidates_, topo_)) {
    const Estimate& e = c.considered[i];
    if (!e.applicable) continue;
    if (!best || better(e, *best)) {
      second = best;
      best = &e;
    } else if (!second || better(e, *second)) {
      second = &e;
    }
  }
  std::ostringstream os;
  os << "m=" << format_bytes(m) << ", p=" << topo_.size << ", " << topo_.nodes << " node(s)";
  if (topo_.ranks_per_node > 0) os << " x " << topo_.ranks_per_node;
  os << " (" << to_string(topo_.placement) << "), network " << describe(topo_.network)
     << (topo_.network.rank_level ? " of ranks" : "") << ": ";
  if (!best) {
    os << "no candidate applies";
    for (const Estimate& e : c.considered) os << "; " << e.algorithm << ": " << e.why_not;
    c.reason = os.str();
    return c;
  }
  c.algorithm = best->algorithm;
  c.params = best->params;
  c.predicted = best->predicted;
  os << "min model time " << label(*best) << " " << format_seconds(best->predicted);
  if (second) os << ", next " << label(*second) << " " << format_seconds(second->predicted);
  c.reason = os.str();
  return c;
}

Choice choose_auto(const Topology& topo, size_t bytes_per_block, const CostParams& cost,
                   const std::vector<std::string>& candidates) {
  return CostModel(topo, cost, candidates).choose(bytes_per_block);
}

std::vector<DecisionRow> decision_table(const Topology& topo, const CostParams& cost,
                                        const std::vector<std::string>& candidates,
                                        size_t min_bytes, size_t max_bytes) {
  std::vector<DecisionRow> rows;
  const CostModel model(topo, cost, candidates);
  for (size_t b = std::max<size_t>(1, min_bytes); b <= max_bytes; b *= 2) {
    rows.push_back({b, model.choose(b)});
    if (b > max_bytes / 2) break;
  }
  return rows;
}

}  // namespace topoa2a
