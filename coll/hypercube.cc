// hypercube: store-and-forward all-to-all on a d-dimensional hypercube.
//
// Reference: the seed text (combine the messages bound for the same
// subcube, then distribute). In round k (k = 0..d-1) rank r exchanges with
// r XOR 2^k every block it holds whose destination differs from r in bit k.
// Before round k, r holds the blocks (s, t) whose source agrees with r
// outside bits 0..k-1 and whose destination agrees with r on bits 0..k-1:
// always p blocks, half of which move.
// Rounds: log2(p). Blocks sent per rank: (p/2) log2(p).
// Time: (t_s + t_w m p/2) log2(p). Restrictions: p a power of two.
#include <algorithm>

#include "coll/algorithms.h"

namespace topoa2a {

std::string hypercube_check(int p, const Params&) {
  if (is_pow2(p)) return {};
  return "hypercube needs a power-of-two number of ranks, not " + std::to_string(p);
}

Round hypercube_round(int p, int rank, const Params&, int k) {
  const int d = ilog2(p);
  const int bit = 1 << k, low = bit - 1, peer = rank ^ bit;
  // Blocks held before round k, restricted to those crossing bit k. The
  // receiver computes the same list for the sender, so orders agree.
  auto crossing = [&](int holder) {
    std::vector<Block> out;
    for (int lo = 0; lo < bit; ++lo) {       // source bits 0..k-1: any
      const int src = (holder & ~low) | lo;  // higher bits: holder's
      for (int hi = 0; hi < p; hi += bit) {  // destination bits >= k: any
        const int dst = (hi & ~low) | (holder & low);
        if ((dst & bit) != (holder & bit)) out.push_back({src, dst});
      }
    }
    // Message order: by destination bits k+1, k+2, ... (lowest bit most
    // significant). What the receiver forwards in each later round is then
    // one contiguous piece of this message, which keeps scratch compact.
    auto key = [&](const Block& b) {
      int key = 0;
      for (int j = k + 1; j < d; ++j) key = (key << 1) | ((b.dst >> j) & 1);
      return key;
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const Block& a, const Block& b) { return key(a) < key(b); });
    return out;
  };
  Round round;
  round.sends.push_back({peer, crossing(rank)});
  round.recvs.push_back({peer, crossing(peer)});
  return round;
}

Schedule hypercube_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<hypercube_round, hypercube_rounds>(p, rank, params);
}

int hypercube_rounds(int p, const Params&) { return ilog2(p); }

long long hypercube_blocks_sent(int p, int, const Params&) { return 1LL * (p / 2) * ilog2(p); }

double hypercube_time(int p, const Params&, double ts, double tw, double m) {
  return (ts + tw * m * p / 2.0) * ilog2(p);
}

}  // namespace topoa2a
