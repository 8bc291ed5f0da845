// The candidates of a run and how each one is switched on at run time:
// topoa2a's algorithms through topoa2a_select (found with dlsym in the
// preloaded library), MPICH's through MPI_T writes of MPICH's CVAR.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/control.h"
#include "plugin/mpit.h"

namespace bench {

using topoa2a::EnumCvar;
using topoa2a::MpiT;

struct Candidate {
  std::string label;  // "ring", "topo_auto", "mpich:brucks"
  std::string ours;   // value for topoa2a_select: ours, or "auto" (hand to MPICH)
  std::string mpich;  // value of MPICH's CVAR: MPICH's, or "auto" while ours run
  int window = 0;     // ours, "NAME@W": messages in flight (0: the default)
  bool is_ours() const { return ours != "auto"; }
};

// All of ours (from the algorithm table), topo_auto, then MPICH's brucks,
// pairwise, scattered and auto.
std::vector<std::string> default_candidates();
// False when `name` is neither ours nor "mpich:X" / one of MPICH's values.
bool make_candidate(const std::string& name, Candidate* out);

// Per-process counts of topoa2a's statistics: algorithm -> calls.
using Counts = std::map<std::string, long long>;

class Switcher {
 public:
  Switcher(const MpiT& mpit, bool alltoallv);

  bool preloaded() const { return select_ != nullptr; }
  const EnumCvar& algorithm_cvar() const { return algorithm_; }
  const char* op() const { return alltoallv_ ? "alltoallv" : "alltoall"; }

  // Switch both sides to `c`; false with the reason when it cannot be.
  bool select(const Candidate& c, std::string* why);
  // Does a runtime write of MPICH's CVAR change what MPICH runs? A forced
  // MPICH algorithm that cannot take MPI_IN_PLACE must fail an in-place
  // call when MPIR_CVAR_COLLECTIVE_FALLBACK is "error" (collective).
  bool verify_mpich_honours_writes(std::string* why);

  Counts counts() const;
  // What ran between two snapshots: "ring", "mpich", ... or empty.
  static std::string what_ran(const Counts& before, const Counts& after);

 private:
  using SelectFn = topoa2a_select_fn;
  using StatsFn = int (*)(const char*, const char*, long long*, long long*, long long*);

  bool alltoallv_;
  SelectFn select_ = nullptr;
  topoa2a_set_window_fn set_window_ = nullptr;
  bool window_changed_ = false;
  StatsFn stats_ = nullptr;
  EnumCvar algorithm_;
  EnumCvar fallback_;
};

}  // namespace bench
