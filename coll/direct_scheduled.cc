// direct_scheduled: a direct exchange in an order computed from the network.
//
// Every block goes once, straight from the source's send buffer to the
// destination's receive buffer, one peer per round: round i is a
// permutation (every rank sends to one rank and receives from one), so the
// messages that a window of W rounds keeps in flight (the executor's
// window) load the links evenly:
// - torus / mesh (dims D_0 x ... x D_{d-1}, row-major): round i is the
//   shift by a vector delta_i (rank x sends to x + delta_i, receives from
//   x - delta_i, coordinatewise mod D_k). The shifts are ordered greedily
//   so that windows of consecutive rounds load each dimension and
//   direction in proportion to its total (routes: shortest way along each
//   dimension, ties the positive way; after Tseng, Lin, Gupta and Panda's
//   torus all-to-all by shift permutations). Measured (network_schedule_
//   test): on 8x8, 4x4x4, 8x8x8 and 16x16 the busiest link of any 8 to 32
//   consecutive rounds carries at most 2.05x its even share, where the
//   plain order j + i puts up to 3-4x on it.
// - dragonfly (dims {G groups, H ranks per group}): round i is the shift
//   by (group offset g, member offset h), ordered g fastest, so consecutive
//   rounds send to different groups and a window spreads over the global
//   links of as many group pairs.
// - switch / fat tree / unknown: the XOR pairing j ^ i when p is a power
//   of two (contention-free under a fat tree's static routing; Prisacari
//   et al., ICS 2013), else the shifts j + i.
// Rounds: p-1. Blocks sent per rank: p-1.
// Time: (p-1)(t_s + t_w m) round by round; with W rounds in flight about
// (p-1)/W (t_s + t_w m * the busiest link's load of a window).
// Restrictions: the torus or dragonfly dimensions multiply to p.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "coll/algorithms.h"

namespace topoa2a {
namespace {

std::vector<int> coords(int rank, const std::vector<int>& dims) {
  std::vector<int> c(dims.size());
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    c[k] = rank % dims[k];
    rank /= dims[k];
  }
  return c;
}

int rank_of(const std::vector<int>& c, const std::vector<int>& dims) {
  int r = 0;
  for (size_t k = 0; k < dims.size(); ++k) r = r * dims[k] + c[k];
  return r;
}

// The greedy shift order of a torus (as linear indices of the shift
// vectors, 1..p-1), computed once per dims and shared.
std::shared_ptr<const std::vector<int>> torus_order(const std::vector<int>& dims) {
  static std::mutex mu;
  static std::map<std::vector<int>, std::shared_ptr<const std::vector<int>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[dims];
  if (slot) return slot;
  int p = 1;
  for (int d : dims) p *= d;
  const int nd = static_cast<int>(dims.size());
  // load[s][2k + dir]: links of dimension k, direction dir, that shift s uses
  std::vector<std::vector<double>> load(static_cast<size_t>(p), std::vector<double>(2 * nd, 0));
  std::vector<double> total(2 * nd, 0);
  for (int s = 1; s < p; ++s) {
    const std::vector<int> c = coords(s, dims);
    for (int k = 0; k < nd; ++k) {
      const int fwd = c[k], back = dims[k] - c[k];
      if (fwd == 0) continue;
      if (fwd <= back)
        load[s][2 * k] = fwd;
      else
        load[s][2 * k + 1] = back;
    }
    for (int i = 0; i < 2 * nd; ++i) total[i] += load[s][i];
  }
  // Greedy: the next shift is the one that least overloads the busiest
  // (dimension, direction) of the windows it would end (the last w-1
  // shifts plus it, for w = 4, 8, 16, 32), each measured against the share
  // of the total a window of w rounds should carry; ties go to the one that
  // keeps the whole prefix most in proportion, then to the lower index.
  constexpr int kWindows[] = {4, 8, 16, 32};
  constexpr int kNumWindows = 4;
  std::vector<double> cum(2 * nd, 0);
  // recent[w][j]: load of the last kWindows[w]-1 chosen shifts
  std::vector<std::vector<double>> recent(kNumWindows, std::vector<double>(2 * nd, 0));
  std::vector<bool> used(static_cast<size_t>(p), false);
  auto order = std::make_shared<std::vector<int>>();
  for (int n = 1; n < p; ++n) {
    int best = -1;
    double best_cost = 0, best_prefix = 0;
    for (int s = 1; s < p; ++s) {
      if (used[s]) continue;
      double cost = 0, prefix = 0;
      for (int w = 0; w < kNumWindows && kWindows[w] <= p - 1; ++w)
        for (int j = 0; j < 2 * nd; ++j)
          if (total[j] > 0)
            cost = std::max(cost, (recent[w][j] + load[s][j]) / (total[j] * kWindows[w] / (p - 1)));
      for (int j = 0; j < 2 * nd; ++j)
        if (total[j] > 0) prefix = std::max(prefix, (cum[j] + load[s][j]) / total[j]);
      if (best < 0 || cost < best_cost - 1e-9 ||
          (cost < best_cost + 1e-9 && prefix < best_prefix - 1e-12)) {
        best = s;
        best_cost = cost;
        best_prefix = prefix;
      }
    }
    used[best] = true;
    order->push_back(best);
    const int len = static_cast<int>(order->size());
    for (int j = 0; j < 2 * nd; ++j) cum[j] += load[best][j];
    for (int w = 0; w < kNumWindows; ++w) {
      for (int j = 0; j < 2 * nd; ++j) recent[w][j] += load[best][j];
      if (len >= kWindows[w])  // the shift that leaves the window
        for (int j = 0; j < 2 * nd; ++j) recent[w][j] -= load[(*order)[len - kWindows[w]]][j];
    }
  }
  slot = order;
  return slot;
}

// The shift vector of round i (i = 0..p-2) as coordinates.
std::vector<int> shift_of(int p, const Params& params, int i) {
  if (params.fabric == Fabric::kTorus) return coords((*torus_order(params.dims))[i], params.dims);
  const int groups = params.dims[0], size = params.dims[1];
  // Dragonfly: i = h * G + g - 1 over (g, h) != (0, 0), g fastest.
  const int n = i + 1;
  (void)p;
  return {n % groups, n / groups % size};
}

}  // namespace

std::string direct_scheduled_check(int p, const Params& params) {
  if (params.fabric == Fabric::kSwitch) return {};
  const char* what = params.fabric == Fabric::kTorus ? "torus" : "dragonfly";
  long long prod = 1;
  for (int d : params.dims) {
    if (d <= 0) return std::string(what) + " dimensions must be positive";
    prod *= d;
    if (prod > p) break;
  }
  if (params.fabric == Fabric::kDragonfly && params.dims.size() != 2)
    return "direct_scheduled on a dragonfly needs {groups, ranks per group}";
  if (prod != p)
    return std::string("direct_scheduled: the ") + what + " dimensions do not have " +
           std::to_string(p) + " ranks";
  return {};
}

Round direct_scheduled_round(int p, int rank, const Params& params, int i) {
  int to, from;
  if (params.fabric == Fabric::kSwitch) {
    to = is_pow2(p) ? rank ^ (i + 1) : mod(rank + i + 1, p);
    from = is_pow2(p) ? to : mod(rank - i - 1, p);
  } else {
    const std::vector<int> me = coords(rank, params.dims), d = shift_of(p, params, i);
    std::vector<int> a = me, b = me;
    for (size_t k = 0; k < d.size(); ++k) {
      a[k] = mod(me[k] + d[k], params.dims[k]);
      b[k] = mod(me[k] - d[k], params.dims[k]);
    }
    to = rank_of(a, params.dims);
    from = rank_of(b, params.dims);
  }
  Round round;
  round.sends.push_back({to, {{rank, to}}});
  round.recvs.push_back({from, {{from, rank}}});
  return round;
}

// Shifts are products: the shifts delta_i on params.dims, j + i on {p}
// (a switch, p not a power of two; j ^ i otherwise, which is no shift).
bool direct_scheduled_product_on(int p, const Params& params, const std::vector<int>& grid) {
  if (params.fabric != Fabric::kSwitch) return grid == params.dims;
  return !is_pow2(p) && grid == std::vector<int>{p};
}

Schedule direct_scheduled_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<direct_scheduled_round, direct_scheduled_rounds>(p, rank, params);
}

int direct_scheduled_rounds(int p, const Params&) { return p > 1 ? p - 1 : 0; }

long long direct_scheduled_blocks_sent(int p, int, const Params&) { return p > 1 ? p - 1 : 0; }

double direct_scheduled_time(int p, const Params& params, double ts, double tw, double m) {
  return direct_scheduled_rounds(p, params) * (ts + tw * m);
}

}  // namespace topoa2a
