// The messages of a candidate as the cost model sees them: for the table's
// algorithms, derived from the per-round generator (Algorithm::round); for
// MPICH's brucks, pairwise and scattered, from their patterns in
// mpich_patterns.cc. Internal to the cost model (tests use it too).
#pragma once

#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "topology/cost_model.h"

namespace topoa2a {

// MPICH's own algorithms, as MPICH 4.0.2 runs them (src/mpi/coll/alltoall/).
struct MpichPattern {
  const char* name;
  int (*rounds)(int p);
  bool forwards;  // a round sends what earlier rounds received (brucks)
  int window;     // messages in flight per rank: 0 = round by round
  void (*sends)(int p, int rank, int k, std::vector<ModelMessage>* out);
  double blocks_per_round;  // per rank, for the sampling budget (< 0: p / 2)
};
const std::vector<MpichPattern>& mpich_patterns();  // brucks, pairwise, scattered
const MpichPattern* find_mpich_pattern(const std::string& name);

// One candidate's messages on p ranks with resolved parameters.
class MessagePattern {
 public:
  // False when neither the table nor MPICH's patterns know `name`.
  bool bind(const std::string& name, int p, const Params& resolved);

  int rounds() const { return rounds_; }
  // A round's sends wait for earlier rounds' receives (store-and-forward):
  // only round by round, no window.
  bool forwards() const { return forwards_; }
  // -1: the model chooses the window; else MPICH's fixed one (0: rounds).
  int fixed_window() const { return fixed_window_; }
  // Blocks one rank sends per round, on average (for the sampling budget).
  double blocks_per_round() const { return blocks_per_round_; }
  // The sends of `rank` in round k (0 <= k < rounds()), into *out.
  void sends(int rank, int k, std::vector<ModelMessage>* out) const;

 private:
  const Algorithm* algo_ = nullptr;
  const MpichPattern* mpich_ = nullptr;
  int p_ = 0;
  Params params_;
  int rounds_ = 0;
  bool forwards_ = false;
  int fixed_window_ = -1;
  double blocks_per_round_ = 1;
};

// "ring, ..., onefactor_xor, brucks, pairwise, scattered".
std::string known_names();

// a is strictly better than b: applicable, and cheaper by more than a
// relative 1e-9 (model_price.cc).
bool estimate_better(const Estimate& a, const Estimate& b);

}  // namespace topoa2a
