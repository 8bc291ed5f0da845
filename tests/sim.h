// Whole-machine simulations of schedules and plans, for the tests. Every
// rank's schedule is built and run round by round against the others.
#pragma once

#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/plan.h"

namespace topoa2a::test {

struct SimReport {
  std::vector<std::string> errors;     // empty: the schedule is correct
  int rounds = 0;                      // rounds of rank 0's schedule
  std::vector<long long> blocks_sent;  // per rank
};

// Moves block labels as the schedules say; checks that senders hold what
// they send, that sends and receives match pairwise (peer and block list,
// in order) and that every block (s, d) ends at d exactly once.
SimReport simulate_schedules(const std::vector<Schedule>& schedules);

// Runs the compiled plans on labelled buffers (send buffer, scratch slots,
// receive buffer) and checks every receive buffer ends with (s, d) at s.
std::vector<std::string> simulate_plans(const std::vector<Plan>& plans,
                                        const std::vector<Schedule>& schedules);

std::vector<Schedule> build_all(const Algorithm& a, int p, const Params& params);

// What expect_correct checks beyond the schedule itself.
struct CorrectOptions {
  bool plans = true;      // compile every rank's plan and run it on labelled buffers
  int scratch_per_p = 3;  // plan scratch at most this many blocks per rank of p
  std::string what;       // extra trace text (the parameters)
};

// GoogleTest checks that the schedule is correct (simulate_schedules), takes
// the table's rounds and per-rank volume, and (options.plans) that its plans
// run on buffers, send what the schedule sends, stay within the scratch
// bound, and use no scratch at all for a direct algorithm.
void expect_correct(const Algorithm& a, int p, const Params& params,
                    const CorrectOptions& options = {});

}  // namespace topoa2a::test
