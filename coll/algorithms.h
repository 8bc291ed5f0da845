// The one table of topoa2a's all-to-all algorithms.
//
// CVAR value lists, help text, tests and benchmarks are derived from this
// table; nothing else lists the algorithms.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "coll/schedule.h"

namespace topoa2a {

enum class AlgorithmId : int {
  kRing,
  kRingBidir,
  kMesh,
  kHypercube,
  kOneFactor,
  kOneFactorXor,
  kNodeAware,
  kMultiLeader,
  kTorus,
  kDirectScheduled,
  kNodeAwareLog,
};

struct Algorithm {
  AlgorithmId id;
  const char* name;          // CVAR value, e.g. "ring"
  const char* description;   // one line for help text
  const char* restrictions;  // human readable, "none" if none
  bool direct;               // every block goes straight from source to destination
  bool alltoallv;            // also offered for MPI_Alltoallv

  // Empty when the algorithm can run on p ranks with these parameters,
  // otherwise the reason it cannot (used for fallback messages).
  std::string (*check)(int p, const Params& params);
  Schedule (*build)(int p, int rank, const Params& params);

  // The seed's cost model. rounds: communication rounds (idle ones
  // included); blocks_sent: blocks (units of m) that `rank` sends in total;
  // time: the seed's formula in t_s, t_w, m (m in bytes per block).
  int (*rounds)(int p, const Params& params);
  long long (*blocks_sent)(int p, int rank, const Params& params);
  double (*time)(int p, const Params& params, double ts, double tw, double m);

  // Round k (0 <= k < rounds(p, params)) of `rank`'s schedule, costing about
  // the size of that round: the one source of every algorithm's pattern
  // (build() is schedule_from_rounds over it; the cost model samples it).
  Round (*round)(int p, int rank, const Params& params, int k);

  // True where, on `grid` (row-major extents multiplying to p), every
  // round is a product of permutations of each dimension: rank (c_0, ...,
  // c_{n-1}) sends the same blocks as every rank to (pi_0(c_0), ...,
  // pi_{n-1}(c_{n-1})). Shifts are; so is the XOR pairing where every
  // extent is a power of two. On a mesh or torus of that grid with
  // dimension-order routes every line of a dimension then carries the
  // same, so the cost model prices a round from the ranks of one line per
  // dimension, exactly. nullptr: never.
  bool (*product_on)(int p, const Params& params, const std::vector<int>& grid);
};

// The generic build(): rounds 0 .. rounds(p, params)-1 of `round`.
template <Round (*RoundFn)(int, int, const Params&, int), int (*RoundsFn)(int, const Params&)>
Schedule schedule_from_rounds(int p, int rank, const Params& params) {
  Schedule s;
  const int n = RoundsFn(p, params);
  s.rounds.reserve(n > 0 ? static_cast<size_t>(n) : 0);
  for (int k = 0; k < n; ++k) s.rounds.push_back(RoundFn(p, rank, params, k));
  return s;
}

const std::vector<Algorithm>& algorithms();
const Algorithm* find_algorithm(std::string_view name);
const Algorithm& algorithm(AlgorithmId id);

// Comma separated list of the algorithm names, for error messages.
std::string algorithm_names(bool alltoallv_only = false);

// Fill in defaults (the mesh grid) for p ranks.
Params resolve_params(int p, Params params);

// p factored into at most max_dims extents as equal as possible, largest
// first (the torus algorithm's default grid): 64 -> 4x4x4, 12 -> 3x2x2.
std::vector<int> default_dims(int p, int max_dims);

// Per-algorithm entry points, each in its own file.
std::string ring_check(int p, const Params&);
Schedule ring_build(int p, int rank, const Params&);  // schedule_from_rounds
Round ring_round(int p, int rank, const Params&, int k);
int ring_rounds(int p, const Params&);
long long ring_blocks_sent(int p, int rank, const Params&);
double ring_time(int p, const Params&, double ts, double tw, double m);

std::string ring_bidir_check(int p, const Params&);
Schedule ring_bidir_build(int p, int rank, const Params&);  // schedule_from_rounds
Round ring_bidir_round(int p, int rank, const Params&, int k);
int ring_bidir_rounds(int p, const Params&);
long long ring_bidir_blocks_sent(int p, int rank, const Params&);
double ring_bidir_time(int p, const Params&, double ts, double tw, double m);

std::string mesh_check(int p, const Params&);
Schedule mesh_build(int p, int rank, const Params&);  // schedule_from_rounds
Round mesh_round(int p, int rank, const Params&, int k);
int mesh_rounds(int p, const Params&);
long long mesh_blocks_sent(int p, int rank, const Params&);
double mesh_time(int p, const Params&, double ts, double tw, double m);

std::string hypercube_check(int p, const Params&);
Schedule hypercube_build(int p, int rank, const Params&);  // schedule_from_rounds
Round hypercube_round(int p, int rank, const Params&, int k);
int hypercube_rounds(int p, const Params&);
long long hypercube_blocks_sent(int p, int rank, const Params&);
double hypercube_time(int p, const Params&, double ts, double tw, double m);

std::string onefactor_check(int p, const Params&);
Schedule onefactor_build(int p, int rank, const Params&);  // schedule_from_rounds
Round onefactor_round(int p, int rank, const Params&, int k);
int onefactor_rounds(int p, const Params&);
long long onefactor_blocks_sent(int p, int rank, const Params&);
double onefactor_time(int p, const Params&, double ts, double tw, double m);

std::string onefactor_xor_check(int p, const Params&);
Schedule onefactor_xor_build(int p, int rank, const Params&);  // schedule_from_rounds
Round onefactor_xor_round(int p, int rank, const Params&, int k);
bool onefactor_xor_product_on(int p, const Params&, const std::vector<int>& grid);
int onefactor_xor_rounds(int p, const Params&);
long long onefactor_xor_blocks_sent(int p, int rank, const Params&);
double onefactor_xor_time(int p, const Params&, double ts, double tw, double m);

// Node-aware algorithms: their own per-round generators (node_aware_build
// and multileader_build loop over them).
std::string node_aware_check(int p, const Params&);
Round node_aware_round(int p, int rank, const Params&, int k);
Schedule node_aware_build(int p, int rank, const Params&);
int node_aware_rounds(int p, const Params&);
long long node_aware_blocks_sent(int p, int rank, const Params&);
double node_aware_time(int p, const Params&, double ts, double tw, double m);

// node_aware with Bruck exchanges inside the node (coll/node_aware_log.cc).
std::string node_aware_log_check(int p, const Params&);
Round node_aware_log_round(int p, int rank, const Params&, int k);
Schedule node_aware_log_build(int p, int rank, const Params&);
int node_aware_log_rounds(int p, const Params&);
long long node_aware_log_blocks_sent(int p, int rank, const Params&);
double node_aware_log_time(int p, const Params&, double ts, double tw, double m);

std::string multileader_check(int p, const Params&);
Round multileader_round(int p, int rank, const Params&, int k);
Schedule multileader_build(int p, int rank, const Params&);
int multileader_rounds(int p, const Params&);
long long multileader_blocks_sent(int p, int rank, const Params&);
double multileader_time(int p, const Params&, double ts, double tw, double m);

std::string torus_check(int p, const Params&);
Schedule torus_build(int p, int rank, const Params&);
Round torus_round(int p, int rank, const Params&, int k);
int torus_rounds(int p, const Params&);
long long torus_blocks_sent(int p, int rank, const Params&);
double torus_time(int p, const Params&, double ts, double tw, double m);

std::string direct_scheduled_check(int p, const Params&);
Schedule direct_scheduled_build(int p, int rank, const Params&);
Round direct_scheduled_round(int p, int rank, const Params&, int k);
bool direct_scheduled_product_on(int p, const Params&, const std::vector<int>& grid);
int direct_scheduled_rounds(int p, const Params&);
long long direct_scheduled_blocks_sent(int p, int rank, const Params&);
double direct_scheduled_time(int p, const Params&, double ts, double tw, double m);

}  // namespace topoa2a
