#include "coll/run.h"

#include "coll/pmpi_transport.h"

namespace topoa2a {
namespace {

// The parameters resolved for this communicator, or false (with the reason)
// when the algorithm cannot run on it.
bool applicable(const Algorithm& algo, const Params& params, int p, Params* resolved,
                std::string* why) {
  *resolved = resolve_params(p, params);
  const std::string reason = algo.check(p, *resolved);
  if (reason.empty()) return true;
  if (why) *why = reason;
  return false;
}

struct Compiled {
  Plan plan;
  int window;
};

Compiled compile(const Algorithm& algo, const Params& params, int p, int me, int window) {
  const Schedule schedule = algo.build(p, me, params);
  if (window < 0) window = default_window(schedule, me);
  return {make_plan(schedule, p, me, window_depth(schedule, window)), window};
}

}  // namespace

int run_on_comm(const Algorithm& algo, const Params& params, const AlltoallArgs& args,
                MPI_Comm comm, RunStats* stats, std::string* why, int window) {
  PmpiTransport transport(comm);
  const int p = transport.size(), me = transport.rank();
  Params resolved;
  if (!applicable(algo, params, p, &resolved, why)) return MPI_ERR_OTHER;
  const Compiled c = compile(algo, resolved, p, me, window);
  return run_alltoall(c.plan, transport, args, c.window, stats);
}

int run_v_on_comm(const Algorithm& algo, const Params& params, const AlltoallvArgs& args,
                  MPI_Comm comm, RunStats* stats, std::string* why, int window) {
  PmpiTransport transport(comm);
  const int p = transport.size(), me = transport.rank();
  Params resolved;
  if (!applicable(algo, params, p, &resolved, why)) return MPI_ERR_OTHER;
  const Compiled c = compile(algo, resolved, p, me, window);
  return run_alltoallv(c.plan, transport, args, c.window, stats);
}

}  // namespace topoa2a
