// onefactor: direct pairwise exchange scheduled by a 1-factorisation of K_p.
//
// Reference: the seed text's 1-factor algorithm. Round i pairs rank j with
// (i - j) mod p (odd p; the rank with 2j = i mod p is idle), or, for even p,
// with (i - j) mod (p-1), where the rank j = idle(i) = (p/2) i mod (p-1)
// pairs with p-1 instead. Every pair meets exactly once; each exchange is
// one block each way, sent straight from the user's buffers.
// Rounds: p-1 (even p), p (odd p; each rank idles in one of them).
// Blocks sent per rank: p-1.
// Time: (p-1)(t_s + t_w m) for even p, p(t_s + t_w m) for odd p.
// Restrictions: none.
#include "coll/algorithms.h"

namespace topoa2a {

namespace {
int onefactor_peer(int p, int i, int j) {
  if (p % 2 == 1) return mod(i - j, p);
  const int idle = static_cast<int>((1LL * (p / 2) * i) % (p - 1));
  if (j == p - 1) return idle;
  if (j == idle) return p - 1;
  return mod(i - j, p - 1);
}
}  // namespace

std::string onefactor_check(int, const Params&) { return {}; }

Round onefactor_round(int p, int rank, const Params&, int i) {
  Round round;
  const int peer = onefactor_peer(p, i, rank);
  if (peer == rank) return round;  // idle this round
  round.sends.push_back({peer, {{rank, peer}}});
  round.recvs.push_back({peer, {{peer, rank}}});
  return round;
}

Schedule onefactor_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<onefactor_round, onefactor_rounds>(p, rank, params);
}

int onefactor_rounds(int p, const Params&) {
  if (p <= 1) return 0;
  return p % 2 == 1 ? p : p - 1;
}

long long onefactor_blocks_sent(int p, int, const Params&) { return p - 1; }

double onefactor_time(int p, const Params& params, double ts, double tw, double m) {
  return onefactor_rounds(p, params) * (ts + tw * m);
}

}  // namespace topoa2a
