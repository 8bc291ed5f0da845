// Selection: from what the user asked (a CVAR value) and the call, to the
// algorithm that runs, or the reason it cannot.
#pragma once

#include <string>

#include "coll/algorithms.h"
#include "plugin/config.h"

namespace topoa2a {

class CommCore;

struct Decision {
  const Algorithm* algo = nullptr;  // null: MPICH's own algorithm runs
  std::string mpich;                // topo_auto chose this MPICH algorithm
  Params params;
  // Messages in flight per rank (> 0 once decided for one of ours): the
  // variable's value, else the algorithm's default (CommCore::default_window).
  int window = 0;
  std::string how;         // "forced" or "topo_auto"
  std::string cannot_run;  // why the requested algorithm cannot run
};

// bytes: packed bytes per block (per peer); count: elements per block
// (sendcount, recvcount with MPI_IN_PLACE), -1 when unknown (count<=N rules
// then fail).
Decision decide(const Selection& sel, const Config& config, CommCore& state, long long bytes,
                bool in_place = false, long long count = -1);

// Records on `state`'s statistics topo_auto's choice in `d` for `op` (an
// algorithm's name, "mpich" or "mpich:<name>": CommStats::last_choice);
// nothing when `d` is not topo_auto's.
void record_choice(CommCore& state, const std::string& op, const Decision& d);

}  // namespace topoa2a
