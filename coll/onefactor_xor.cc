// onefactor_xor: direct pairwise exchange, rank j meets j XOR i in round i.
//
// Reference: the seed text (the exclusive-or mapping; Thakur and Choudhary
// 1994). Superior to the (i - j) pairing on hypercubes and fat-trees, where
// the XOR pairs of one round use disjoint links.
// Rounds: p-1 (i = 1..p-1). Blocks sent per rank: p-1.
// Time: (p-1)(t_s + t_w m). Restrictions: p a power of two.
#include "coll/algorithms.h"

namespace topoa2a {

std::string onefactor_xor_check(int p, const Params&) {
  if (is_pow2(p)) return {};
  return "onefactor_xor needs a power-of-two number of ranks, not " + std::to_string(p);
}

Round onefactor_xor_round(int p, int rank, const Params&, int k) {
  (void)p;
  const int peer = rank ^ (k + 1);  // round k pairs with rank XOR (k + 1)
  Round round;
  round.sends.push_back({peer, {{rank, peer}}});
  round.recvs.push_back({peer, {{peer, rank}}});
  return round;
}

// On power-of-two extents each dimension is a field of the rank's bits, so
// j XOR i is the product of c_d XOR i_d.
bool onefactor_xor_product_on(int p, const Params&, const std::vector<int>& grid) {
  long long prod = 1;
  for (int e : grid) {
    if (!is_pow2(e)) return false;
    prod *= e;
  }
  return is_pow2(p) && prod == p;
}

Schedule onefactor_xor_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<onefactor_xor_round, onefactor_xor_rounds>(p, rank, params);
}

int onefactor_xor_rounds(int p, const Params&) { return p > 0 ? p - 1 : 0; }

long long onefactor_xor_blocks_sent(int p, int, const Params&) { return p - 1; }

double onefactor_xor_time(int p, const Params&, double ts, double tw, double m) {
  return (p - 1) * (ts + tw * m);
}

}  // namespace topoa2a
