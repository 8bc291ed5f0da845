#include "coll/run.h"

#include "coll/pmpi_transport.h"

namespace topoa2a {

int run_on_comm(const Algorithm& algo, const Params& params, const AlltoallArgs& args,
                MPI_Comm comm, RunStats* stats, std::string* why) {
  PmpiTransport transport(comm);
  const int p = transport.size();
  const Params resolved = resolve_params(p, params);
  std::string reason = algo.check(p, resolved);
  if (!reason.empty()) {
    if (why) *why = reason;
    return MPI_ERR_OTHER;
  }
  const Plan plan = make_plan(algo.build(p, transport.rank(), resolved), p, transport.rank());
  return run_alltoall(plan, transport, args, stats);
}

int run_v_on_comm(const Algorithm& algo, const Params& params, const AlltoallvArgs& args,
                  MPI_Comm comm, RunStats* stats, std::string* why) {
  PmpiTransport transport(comm);
  const int p = transport.size();
  const Params resolved = resolve_params(p, params);
  std::string reason = algo.check(p, resolved);
  if (!reason.empty()) {
    if (why) *why = reason;
    return MPI_ERR_OTHER;
  }
  return run_alltoallv(algo.build(p, transport.rank(), resolved), transport, args, stats);
}

}  // namespace topoa2a
