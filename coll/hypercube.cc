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
#include "coll/algorithms.h"

namespace topoa2a {

std::string hypercube_check(int p, const Params&) {
  if (is_pow2(p)) return {};
  return "hypercube needs a power-of-two number of ranks, not " + std::to_string(p);
}

Round hypercube_round(int p, int rank, const Params&, int k) {
  const int d = ilog2(p);
  const int bit = 1 << k, low = bit - 1, peer = rank ^ bit;
  // Blocks held before round k, restricted to those crossing bit k: source
  // bits >= k are the holder's, destination bits < k the holder's and bit k
  // the other one. The receiver computes the same list for the sender, so
  // orders agree. Message order: by destination bits k+1, k+2, ... (bit k+1
  // most significant), then by source: what the receiver forwards in each
  // later round is then one contiguous piece of this message, which keeps
  // scratch compact. Generated in that order, O(p/2).
  auto crossing = [&](int holder) {
    std::vector<Block> out;
    out.reserve(static_cast<size_t>(p / 2));
    const int high = d - k - 1;  // destination bits above k
    const int base = (holder & low) | (~holder & bit), src = holder & ~low;
    // rev: the destination bits above k for key = 0, 1, 2, ...: key's
    // lowest bit is destination bit d-1, so count with carries downwards.
    int rev = 0;
    for (int key = 0; key < (1 << high); ++key) {
      for (int lo = 0; lo < bit; ++lo) out.push_back({src | lo, base | rev});
      int m = p >> 1;
      while (m > bit && (rev & m)) {
        rev ^= m;
        m >>= 1;
      }
      if (m > bit) rev |= m;
    }
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
