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

}  // namespace

int run_on_comm(const Algorithm& algo, const Params& params, const AlltoallArgs& args,
                MPI_Comm comm, RunStats* stats, std::string* why) {
  PmpiTransport transport(comm);
  const int p = transport.size(), me = transport.rank();
  Params resolved;
  if (!applicable(algo, params, p, &resolved, why)) return MPI_ERR_OTHER;
  return run_alltoall(make_plan(algo.build(p, me, resolved), p, me), transport, args, stats);
}

int run_v_on_comm(const Algorithm& algo, const Params& params, const AlltoallvArgs& args,
                  MPI_Comm comm, RunStats* stats, std::string* why) {
  PmpiTransport transport(comm);
  const int p = transport.size();
  Params resolved;
  if (!applicable(algo, params, p, &resolved, why)) return MPI_ERR_OTHER;
  return run_alltoallv(algo.build(p, transport.rank(), resolved), transport, args, stats);
}

}  // namespace topoa2a
