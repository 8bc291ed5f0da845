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

// The t_w written for a level: an all-to-all loads a link with many messages
// at once, so its cost per byte is the rate the link keeps up under load.
// That is one message's t_w, or the t_w with K messages in flight where that
// is slower (TCP over a token-bucket link: one message 51 ns/B, 8 in flight
// 85 ns/B, the link's rate). Where K in flight are faster (shared memory,
// several copies at once) one message's t_w stays: a round of one message
// per pair gets no more. `flight` with n == 0: not measured.
double link_tw(const Spread& one, const Spread& flight);

// "0.42us (0.40-0.47, 5 runs)" with v scaled by 1/scale and `unit` appended.
std::string format_spread(const Spread& s, double scale, const char* unit);

// The message sizes from min to max (both included), each 4 times the
// previous. Empty when min is 0 or min > max.
std::vector<size_t> size_ladder(size_t min, size_t max);

}  // namespace topoa2a
