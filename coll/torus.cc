// torus: all-to-all on a d-dimensional torus or mesh, one lane per dimension.
//
// Reference: the dimension-by-dimension all-to-all (the seed's mesh
// generalised: a ring all-to-all along each dimension in turn; J. L. Traff
// on d-dimensional torus all-to-all as per-dimension all-to-alls), made to
// keep every dimension busy at once. Ranks are the points of a D_0 x ... x
// D_{d-1} grid (row-major: the last dimension varies fastest). The blocks
// are split into L lanes, L = the number of dimensions with D_k > 1, by
// their displacement: block (s, t) is in lane (sum_k ((t_k - s_k) mod D_k))
// mod L.
// Lane j visits the dimensions in the rotated order j, j+1, ..., j-1: in
// its step along dimension e every block of the lane moves, by a
// bidirectional store-and-forward ring (ring_pass; floor(D_e/2) hops each
// way, the antipodal blocks of an even D_e > 2 split half and half; an odd
// D_e's (D_e-1)/2 each way), to the rank whose coordinate e is the block's
// destination's. The lanes run side by side, so at any time every
// dimension carries about 1/L of the traffic instead of one dimension
// carrying all of it: on a torus the busiest link's load is then that of
// the largest dimension alone, the bisection bound's, where a
// dimension-by-dimension exchange pays (sum D_k / max D_k) times it.
// Every step takes H = max_k floor(D_k / 2) rounds (a shorter dimension's
// passes take the step's first rounds), so the lanes change dimension
// together and no dimension ever carries two lanes: on uneven grids the
// rounds' busiest links then add up to the bisection bound's load (4x8x8:
// 1.03 times it; letting each lane move on after floor(D_e/2) rounds put
// two lanes on one long dimension, 1.34 times).
// The lane function is translation invariant, so every rank does the
// same work.
// Rounds: L * max_k floor(D_k / 2).
// Blocks sent per rank: sum_k (p / D_k) (a_k (a_k+1)/2 + b_k (b_k+1)/2),
// a_k = floor(D_k/2), b_k = floor((D_k-1)/2): each block crosses each
// dimension once, hop by hop.
// Time: the seed's round model, sum over the rounds of t_s + t_w m (the
// round's largest message, about p / (L D_e) times the hops still to go);
// the links of different dimensions work in parallel, so on a torus the
// t_w term is about t_w m p max_k D_k / 8 per link, the bisection bound's.
// Restrictions: the product of the dimensions is p (default: p factored
// into at most three extents as equal as possible).
#include <algorithm>

#include "coll/algorithms.h"
#include "coll/ring_pass.h"

namespace topoa2a {
namespace {

struct Torus {
  std::vector<int> dims;    // all extents, 1s included
  std::vector<int> active;  // the dimensions with extent > 1
  int coord(int rank, int k) const {
    for (int i = static_cast<int>(dims.size()) - 1; i > k; --i) rank /= dims[i];
    return rank % dims[k];
  }
  int rank_of(const std::vector<int>& c) const {
    int r = 0;
    for (size_t k = 0; k < dims.size(); ++k) r = r * dims[k] + c[k];
    return r;
  }
};

// The rounds of every lane's step: the passes along the longest dimension
// (a shorter dimension's passes take its first rounds, then its links
// rest), so the lanes change dimension together and no two share one.
int step_rounds(const Torus& t) {
  int span = 1;
  for (int k : t.active) span = std::max(span, t.dims[k] / 2);
  return span;
}

Torus torus_of(int p, const Params& params) {
  Torus t;
  t.dims = params.dims.empty() ? default_dims(p, 3) : params.dims;
  for (int k = 0; k < static_cast<int>(t.dims.size()); ++k)
    if (t.dims[k] > 1) t.active.push_back(k);
  return t;
}

}  // namespace

std::vector<int> default_dims(int p, int max_dims) {
  // Peel off the prime factors, largest first, onto the smallest extent.
  std::vector<int> primes;
  int n = std::max(p, 1);
  for (int f = 2; static_cast<long long>(f) * f <= n; ++f)
    while (n % f == 0) {
      primes.push_back(f);
      n /= f;
    }
  if (n > 1) primes.push_back(n);
  std::vector<int> dims(static_cast<size_t>(std::max(max_dims, 1)), 1);
  std::sort(primes.rbegin(), primes.rend());
  for (int f : primes) *std::min_element(dims.begin(), dims.end()) *= f;
  std::sort(dims.rbegin(), dims.rend());
  while (dims.size() > 1 && dims.back() == 1) dims.pop_back();
  return dims;
}

std::string torus_check(int p, const Params& params) {
  const Torus t = torus_of(p, params);
  long long prod = 1;
  for (int d : t.dims) {
    if (d <= 0) return "torus dimensions must be positive";
    prod *= d;
    if (prod > p) break;
  }
  if (prod == p) return {};
  std::string text;
  for (int d : t.dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return "torus dimensions " + text + " do not have " + std::to_string(p) + " ranks";
}

Round torus_round(int p, int rank, const Params& params, int k) {
  const Torus t = torus_of(p, params);
  const int nd = static_cast<int>(t.dims.size());
  const int lanes = static_cast<int>(t.active.size());
  Round round;
  std::vector<int> x(nd);
  for (int i = 0; i < nd; ++i) x[i] = t.coord(rank, i);
  const int span = step_rounds(t);
  const int step = k / span;  // every lane's step: its dimension number `step`
  std::vector<bool> done(nd, false);
  for (int lane = 0; lane < lanes; ++lane) {
    // The lane's dimensions in rotated order, one step of `span` rounds
    // each; the dimensions of its earlier steps are done.
    std::fill(done.begin(), done.end(), false);
    for (int s = 0; s < step; ++s) done[t.active[(lane + s) % lanes]] = true;
    const int e = t.active[(lane + step) % lanes];
    const int n = t.dims[e];
    auto member = [&](int i) {
      std::vector<int> c = x;
      c[e] = i;
      return t.rank_of(c);
    };
    // The lane's blocks held by member u of this line that go to member v:
    // their source has x's coordinates where the lane has not been yet, u
    // along e; their destination x's where it has been, v along e. The free
    // coordinates (the source's where the lane has been, the destination's
    // where it has not) are enumerated in a fixed order.
    auto unit = [&](int u, int v, std::vector<Block>* out) {
      std::vector<int> src = x, dst = x, free;
      src[e] = u;
      dst[e] = v;
      for (int i = 0; i < nd; ++i)
        if (i != e && t.dims[i] > 1) free.push_back(i);
      std::vector<int> idx(free.size(), 0);
      for (;;) {
        for (size_t i = 0; i < free.size(); ++i) (done[free[i]] ? src : dst)[free[i]] = idx[i];
        int disp = 0;
        for (int i = 0; i < nd; ++i) disp += mod(dst[i] - src[i], t.dims[i]);
        if (mod(disp, lanes) == lane) out->push_back({t.rank_of(src), t.rank_of(dst)});
        size_t i = free.size();
        while (i > 0 && ++idx[i - 1] == t.dims[free[i - 1]]) idx[--i] = 0;
        if (i == 0) break;
      }
    };
    // On an even line longer than 2 the antipodal unit (n/2 hops either
    // way) is split between the directions: its even-numbered blocks go
    // the positive way, its odd-numbered ones the negative way, so both
    // directions of every link carry the same load (all of it the positive
    // way would load those links (n/2+1)/(n/2) times as much: 1.5x on a
    // ring of 4). Every member of the line enumerates a unit alike, so the
    // sender's and the receiver's halves agree; which half takes the extra
    // block of an odd-sized unit alternates with its origin and lane.
    const bool split = n % 2 == 0 && n > 2;
    auto half = [&](int dir) {
      return [&, dir](int u, int v, std::vector<Block>* out) {
        if (!split || v != mod(u + n / 2, n)) return unit(u, v, out);
        std::vector<Block> all;
        unit(u, v, &all);
        // Odd-sized units give their extra block to alternate directions.
        const size_t first = (static_cast<size_t>(u + lane) + (dir > 0 ? 0 : 1)) % 2;
        for (size_t i = first; i < all.size(); i += 2) out->push_back(all[i]);
      };
    };
    const int kk = k % span + 1;                   // 1-based round of this step's passes
    const int back = split ? n / 2 : (n - 1) / 2;  // hops of the negative pass
    if (kk <= n / 2) ring_pass_round(round, n, x[e], +1, n / 2, kk, member, half(+1));
    if (kk <= back) ring_pass_round(round, n, x[e], -1, back, kk, member, half(-1));
  }
  // A lane's unit can be empty on a line (the lane function leaves some
  // units empty); such transfers go on neither side (the sender's and the
  // receiver's units are the same lists).
  auto empty = [](const Transfer& tr) { return tr.blocks.empty(); };
  round.sends.erase(std::remove_if(round.sends.begin(), round.sends.end(), empty),
                    round.sends.end());
  round.recvs.erase(std::remove_if(round.recvs.begin(), round.recvs.end(), empty),
                    round.recvs.end());
  return round;
}

Schedule torus_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<torus_round, torus_rounds>(p, rank, params);
}

int torus_rounds(int p, const Params& params) {
  const Torus t = torus_of(p, params);
  return t.active.empty() ? 0 : static_cast<int>(t.active.size()) * step_rounds(t);
}

long long torus_blocks_sent(int p, int, const Params& params) {
  const Torus t = torus_of(p, params);
  long long sum = 0;
  for (int k : t.active) {
    const long long a = t.dims[k] / 2, b = (t.dims[k] - 1) / 2;
    sum += (p / t.dims[k]) * (a * (a + 1) / 2 + b * (b + 1) / 2);
  }
  return sum;
}

double torus_time(int p, const Params& params, double ts, double tw, double m) {
  // The seed's round model (a round costs t_s plus its largest message)
  // evaluated on the schedule: every rank's rounds carry the same message
  // sizes (the schedule is translation invariant), so rank 0's are all.
  double time = 0;
  for (int k = 0; k < torus_rounds(p, params); ++k) {
    size_t largest = 0;
    for (const Transfer& t : torus_round(p, 0, params, k).sends)
      largest = std::max(largest, t.blocks.size());
    time += ts + tw * m * static_cast<double>(largest);
  }
  return time;
}

}  // namespace topoa2a
