// ring_bidir: bidirectional store-and-forward ring all-to-all.
//
// Reference: the seed text's improvement of the ring: half of the blocks go
// clockwise, half counter-clockwise, so each block travels at most
// ceil((p-1)/2) hops. Each round a rank sends to and receives from both
// neighbours at once (two ports, full duplex).
// Rounds: a = ceil((p-1)/2); the clockwise pass carries offsets 1..a, the
// counter-clockwise pass offsets 1..b, b = floor((p-1)/2).
// Blocks sent per rank: a(a+1)/2 + b(b+1)/2 (about p^2/4, half the ring's).
// Time: a t_s + t_w m a(a+1)/2 (the longer direction dominates each round).
// Restrictions: none.
#include "coll/algorithms.h"
#include "coll/ring_pass.h"

namespace topoa2a {
namespace {
int cw_hops(int p) { return p / 2; }         // ceil((p-1)/2)
int ccw_hops(int p) { return (p - 1) / 2; }  // floor((p-1)/2)
}  // namespace

std::string ring_bidir_check(int, const Params&) { return {}; }

Round ring_bidir_round(int p, int rank, const Params&, int k) {
  Round round;
  auto member = [](int i) { return i; };
  auto unit = [](int u, int v, std::vector<Block>* out) { out->push_back({u, v}); };
  if (k < cw_hops(p)) ring_pass_round(round, p, rank, +1, cw_hops(p), k + 1, member, unit);
  if (k < ccw_hops(p)) ring_pass_round(round, p, rank, -1, ccw_hops(p), k + 1, member, unit);
  return round;
}

Schedule ring_bidir_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<ring_bidir_round, ring_bidir_rounds>(p, rank, params);
}

int ring_bidir_rounds(int p, const Params&) { return cw_hops(p); }

long long ring_bidir_blocks_sent(int p, int, const Params&) {
  const long long a = cw_hops(p), b = ccw_hops(p);
  return a * (a + 1) / 2 + b * (b + 1) / 2;
}

double ring_bidir_time(int p, const Params&, double ts, double tw, double m) {
  const double a = cw_hops(p);
  return a * ts + tw * m * a * (a + 1) / 2.0;
}

}  // namespace topoa2a
