// ring: unidirectional store-and-forward ring all-to-all.
//
// Reference: the seed text (Grama et al., Introduction to Parallel
// Computing, 2003). Each rank sends its p-1 blocks to its right neighbour;
// every rank keeps the block addressed to it and forwards the rest.
// Rounds: p-1. Blocks sent per rank: (p-1) + (p-2) + ... + 1 = p(p-1)/2.
// Time: (t_s + t_w m p/2)(p-1). Restrictions: none; neighbour links only.
#include "coll/algorithms.h"
#include "coll/ring_pass.h"

namespace topoa2a {

std::string ring_check(int, const Params&) { return {}; }

Round ring_round(int p, int rank, const Params&, int k) {
  Round round;
  ring_pass_round(
      round, p, rank, +1, p - 1, k + 1, [](int i) { return i; },
      [](int u, int v, std::vector<Block>* out) {
        out->push_back({u, v});
      });
  return round;
}

Schedule ring_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<ring_round, ring_rounds>(p, rank, params);
}

int ring_rounds(int p, const Params&) { return p - 1; }

long long ring_blocks_sent(int p, int, const Params&) { return 1LL * p * (p - 1) / 2; }

double ring_time(int p, const Params&, double ts, double tw, double m) {
  return (ts + tw * m * p / 2.0) * (p - 1);
}

}  // namespace topoa2a
