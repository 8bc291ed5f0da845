// topoa2a-calibrate's arithmetic (no MPI): a straight line fitted to
// measured times by least squares, and the spread of repeated fits.
#pragma once

#include <string>
#include <vector>

namespace topoa2a {

// y = a + b x fitted by least squares on the relative error (each point
// weighted 1/y^2, so that 8-byte and 1-MiB times count alike). rms: the
// root mean square of the relative residuals. ok is false when fewer than
// two distinct x or a y is not positive and finite.
struct Line {
  bool ok = false;
  double a = 0, b = 0;
  double rms = 0;
};
Line fit_line(const std::vector<double>& x, const std::vector<double>& y);

// The median, smallest and largest of repeated values (all 0 when empty).
struct Spread {
  double median = 0, min = 0, max = 0;
  int n = 0;
};
Spread spread_of(std::vector<double> v);

// "0.42us (0.40-0.47, 5 runs)" with v scaled by 1/scale and `unit` appended.
std::string format_spread(const Spread& s, double scale, const char* unit);

// The message sizes from min to max (both included), each 4 times the
// previous. Empty when min is 0 or min > max.
std::vector<size_t> size_ladder(size_t min, size_t max);

}  // namespace topoa2a
