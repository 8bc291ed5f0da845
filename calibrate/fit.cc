#include "calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace topoa2a {

Line fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  Line l;
  if (x.size() != y.size() || x.size() < 2) return l;
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(y[i] > 0) || !std::isfinite(y[i]) || !std::isfinite(x[i])) return l;
    const double w = 1 / (y[i] * y[i]);
    s += w;
    sx += w * x[i];
    sy += w * y[i];
    sxx += w * x[i] * x[i];
    sxy += w * x[i] * y[i];
  }
  const double det = s * sxx - sx * sx;
  if (!(std::fabs(det) > 1e-12 * s * sxx)) return l;  // one distinct x
  l.b = (s * sxy - sx * sy) / det;
  l.a = (sy - l.b * sx) / s;
  double r2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = (y[i] - (l.a + l.b * x[i])) / y[i];
    r2 += r * r;
  }
  l.rms = std::sqrt(r2 / static_cast<double>(x.size()));
  l.ok = std::isfinite(l.a) && std::isfinite(l.b);
  return l;
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.n = static_cast<int>(n);
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return s;
}

double link_tw(const Spread& one, const Spread& flight) {
  return flight.n > 0 && flight.median > one.median ? flight.median : one.median;
}

std::string format_spread(const Spread& s, double scale, const char* unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.4g%s (%.4g-%.4g, %d run%s)", s.median / scale, unit,
                s.min / scale, s.max / scale, s.n, s.n == 1 ? "" : "s");
  return buf;
}

std::vector<size_t> size_ladder(size_t min, size_t max) {
  std::vector<size_t> out;
  if (min == 0 || min > max) return out;
  for (size_t m = min; m < max; m *= 4) {
    out.push_back(m);
    if (m > max / 4) break;
  }
  if (out.empty() || out.back() != max) out.push_back(max);
  return out;
}

}  // namespace topoa2a
