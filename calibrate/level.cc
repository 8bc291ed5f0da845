#include "calibrate/level.h"

#include <algorithm>

namespace topoa2a {
namespace {

int iters_for(const CalibrateOptions& opt, size_t bytes, int count) {
  // At most ~16 MiB per point beyond the small sizes' count.
  const size_t per = std::max<size_t>(1, bytes * static_cast<size_t>(count));
  const size_t cap = (size_t{16} << 20) / per;
  return static_cast<int>(std::max<size_t>(2, std::min<size_t>(opt.iters, cap)));
}

// t(m) = a + m b over the sizes of `opt` with `count` messages in flight on
// each pair of `pairs`; false when an MPI call failed.
bool fit_sizes(MPI_Comm comm, const std::vector<Pair>& pairs, const std::vector<size_t>& sizes,
               int count, const CalibrateOptions& opt, Line* out, double* smallest) {
  std::vector<double> x, y;
  for (size_t m : sizes) {
    const double t = exchange(comm, pairs, m, count, iters_for(opt, m, count));
    if (t < 0) return false;
    x.push_back(static_cast<double>(m));
    y.push_back(t);
  }
  *out = fit_line(x, y);
  *smallest = y.empty() ? 0 : *std::min_element(y.begin(), y.end());
  if (!out->ok) return true;
  if (out->b <= 0) out->b = y.back() / std::max(1.0, x.back());  // bounded from above
  return true;
}

}  // namespace

LevelResult measure_level(MPI_Comm comm, const Pair& pair, const std::vector<Pair>& crowd,
                          const CalibrateOptions& opt) {
  LevelResult r;
  std::vector<double> ts, tw, o, twf, twp;
  std::vector<size_t> large(opt.sizes.begin() + static_cast<long>(opt.sizes.size() / 2),
                            opt.sizes.end());
  if (large.size() < 2) large = opt.sizes;
  bool bounded_ts = false, bounded_o = false, bad_fit = false;
  for (int rep = 0; rep < opt.repeats; ++rep) {
    // One message: t = ts + m tw.
    Line one;
    double smallest = 0;
    if (!fit_sizes(comm, {pair}, opt.sizes, 1, opt, &one, &smallest)) {
      r.failed = true;
      return r;
    }
    if (!one.ok) {
      bad_fit = true;
      continue;
    }
    if (one.a <= 0) {
      one.a = smallest;  // noise pushed the intercept below 0: bound it from above
      bounded_ts = true;
    }
    ts.push_back(one.a);
    tw.push_back(one.b);
    r.rms = std::max(r.rms, one.rms);
    // k tiny messages in flight: t = ts + (k - 1) o.
    std::vector<double> k, tk;
    for (int c = 1; c <= opt.max_flight; c *= 2) {
      const double t = exchange(comm, {pair}, 1, c, iters_for(opt, 1, c));
      if (t < 0) {
        r.failed = true;
        return r;
      }
      k.push_back(c);
      tk.push_back(t);
    }
    const Line ol = fit_line(k, tk);
    if (ol.ok) {
      if (ol.b < 0) bounded_o = true;
      o.push_back(std::max(0.0, ol.b));
    }
    // max_flight large messages in flight: t = ts + (K - 1) o + K m tw_K.
    Line fl;
    if (!fit_sizes(comm, {pair}, large, opt.max_flight, opt, &fl, &smallest)) {
      r.failed = true;
      return r;
    }
    if (fl.ok) twf.push_back(fl.b / opt.max_flight);
    if (!crowd.empty()) {
      Line cl;
      if (!fit_sizes(comm, crowd, large, 1, opt, &cl, &smallest)) {
        r.failed = true;
        return r;
      }
      if (cl.ok) twp.push_back(cl.b);
      r.pairs = static_cast<int>(crowd.size());
    }
  }
  r.measured = !ts.empty();
  r.ts = spread_of(ts);
  r.tw = spread_of(tw);
  r.o = spread_of(o);
  r.tw_flight = spread_of(twf);
  r.tw_pairs = spread_of(twp);
  if (bounded_ts) r.notes.push_back("a fit's t_s came out below 0: bounded by the smallest time");
  if (bounded_o) r.notes.push_back("a fit's o came out below 0: taken as 0");
  if (bad_fit) r.notes.push_back("a repetition could not be fitted (times not positive)");
  return r;
}

}  // namespace topoa2a
