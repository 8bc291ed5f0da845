// MPICH 4.0.2's alltoall algorithms as message patterns, for the cost model:
// they describe MPICH's code (src/mpi/coll/alltoall/alltoall_intra_*.c), not
// topoa2a's schedules, which the model takes from the algorithm table.
#include <algorithm>

#include "topology/model_pattern.h"

namespace topoa2a {
namespace {

int ceil_log2(int p) { return p <= 1 ? 0 : ilog2(p); }

// brucks: round k sends to rank + 2^k the blocks whose (rotated) index has
// bit k set, and receives as many from rank - 2^k; they are forwarded in
// later rounds.
int brucks_rounds(int p) { return ceil_log2(p); }
void brucks_sends(int p, int rank, int k, std::vector<ModelMessage>* out) {
  const long long bit = 1LL << k;
  // Indices 0..p-1 with bit k set: whole periods of 2^(k+1), then the tail.
  const long long period = 2 * bit, full = p / period, rest = p % period;
  const long long blocks = full * bit + std::max(0LL, rest - bit);
  out->push_back({static_cast<int>((rank + bit) % p), blocks});
}

// pairwise: p-1 rounds of one sendrecv each, to rank XOR i (p a power of
// two) or rank + i (receiving from rank - i).
int pairwise_rounds(int p) { return std::max(0, p - 1); }
void pairwise_sends(int p, int rank, int k, std::vector<ModelMessage>* out) {
  const int i = k + 1;
  out->push_back({is_pow2(p) ? (rank ^ i) : (rank + i) % p, 1});
}

// scattered: the sends to rank - i (and receives from rank + i), i = 0..p-1
// (i = 0: to itself), posted in batches of MPIR_CVAR_ALLTOALL_THROTTLE
// (default 32) and waited for batch by batch. Here one message per "round"
// (round 0 to itself, which the model skips): the window groups them.
constexpr int kScatteredBatch = 32;
int scattered_rounds(int p) { return p > 1 ? p : 0; }
void scattered_sends(int p, int rank, int k, std::vector<ModelMessage>* out) {
  out->push_back({mod(rank - k, p), 1});
}

}  // namespace

const std::vector<MpichPattern>& mpich_patterns() {
  static const std::vector<MpichPattern> table = {
      {"brucks", brucks_rounds, true, 0, brucks_sends, -1},
      {"pairwise", pairwise_rounds, false, 0, pairwise_sends, 1},
      {"scattered", scattered_rounds, false, kScatteredBatch, scattered_sends, 1},
  };
  return table;
}

const MpichPattern* find_mpich_pattern(const std::string& name) {
  for (const MpichPattern& m : mpich_patterns())
    if (name == m.name) return &m;
  return nullptr;
}

}  // namespace topoa2a
