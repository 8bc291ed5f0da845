// The preload door's nonblocking and persistent all-to-alls: MPI_Ialltoall,
// MPI_Ialltoallv, MPI_Alltoall_init and MPI_Alltoallv_init, taken when
// MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM names one of topoa2a's algorithms
// or topo_auto (the persistent calls follow the nonblocking variable, as in
// MPICH); everything else goes to MPICH untouched. The requests and their
// progress: plugin/nonblocking.h.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "coll/exec.h"
#include "coll/pmpi_transport.h"
#include "plugin/comm_state.h"
#include "plugin/front.h"
#include "plugin/nonblocking.h"
#include "plugin/preload_impl.h"

namespace topoa2a {
namespace {

// MPICH's nonblocking call on a given communicator (the user's on a
// fallback, an operation's private one when MPICH runs inside ours).
using MpichOn = std::function<int(MPI_Comm, MPI_Request*)>;

// Starts topoa2a's run on `state` (its private duplicate exists): decision
// `d` for a forced algorithm, or topo_auto's made once the ranks agree.
// make: the Operation for a decision, over a transport on `slot`.
using MakeOp = std::function<std::unique_ptr<Operation>(const Plan&, const Decision&, Transport&)>;

int start_nb(const char* op_name, const char* stats_op, const Selection& sel, CommState* state,
             MPI_Comm comm, bool agree, long long bytes, bool in_place, long long count,
             const Decision& forced, const MakeOp& make, const MpichOn& mpich,
             MPI_Request* request) {
  const Config& cfg = door_config();
  Launch launch = [=](MPI_Comm slot, bool agreed) {
    Launched l;
    Decision d = forced;
    if (sel.topo_auto && agreed) d = decide(sel, cfg, *state, bytes, in_place, count);
    record_choice(*state, stats_op, d);
    if (!agreed || !d.algo || !d.cannot_run.empty()) {
      l.err = mpich(slot, &l.mpich);  // MPICH's own selection, on the private communicator
      return l;
    }
    auto transport = std::make_unique<PmpiTransport>(slot, /*own_state=*/true);
    l.op = make(state->plan(*d.algo, d.params, d.window), d, *transport);
    l.transport = std::move(transport);
    l.algo = d.algo->name;
    report(op_name, d, *state, bytes);
    return l;
  };
  const int err =
      nb_start(*state, stats_op, agree, 2 * bytes + (in_place ? 1 : 0), std::move(launch), request);
  return err == MPI_SUCCESS ? err : raise(comm, err);
}

// The private communicator for a nonblocking call, or the fallback's
// result in *fallback (returns false then).
bool prepare(const char* op_name, const char* stats_op, const Selection& sel, const Decision& d,
             CommState* state, MPI_Comm comm, const std::function<int()>& user, int* fallback) {
  std::string why;
  MPI_Comm shadow = MPI_COMM_NULL;
  if (sel.topo_auto) {
    why = state->topology_error();
    if (why.empty()) shadow = state->shadow(comm, &why);
  } else {
    shadow = private_comm(d, *state, comm, &why);
  }
  if (shadow != MPI_COMM_NULL) return true;
  *fallback = fall_back(op_name, stats_op, why, *state, comm, user);
  return false;
}

int ialltoall(const char* op_name, const char* stats_op, const AlltoallArgs& a, MPI_Comm comm,
              MPI_Request* request) {
  const MpichOn mpich = [a](MPI_Comm c, MPI_Request* r) {
    return PMPI_Ialltoall(a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype, c,
                          r);
  };
  auto user = [&] { return mpich(comm, request); };
  const Config& cfg = door_config();
  int err = MPI_SUCCESS;
  CommState* state = CommState::get(comm, &err);
  if (!state) return raise(comm, err);
  if (!mpich_accepts(a.sendbuf, &a.sendcount, nullptr, 1, a.sendtype) ||
      !mpich_accepts(a.recvbuf, &a.recvcount, nullptr, 1, a.recvtype))
    return user();  // MPICH reports it: same class, message and handler
  MPI_Count type_size = 0;
  if (PMPI_Type_size_c(a.recvtype, &type_size) != MPI_SUCCESS) return user();
  const long long bytes = static_cast<long long>(a.recvcount) * type_size;
  const bool in_place = a.sendbuf == MPI_IN_PLACE;
  const Selection& sel = cfg.ialltoall;
  Decision d;
  if (!sel.topo_auto) d = decide(sel, cfg, *state, bytes, in_place, a.recvcount);
  if (!prepare(op_name, stats_op, sel, d, state, comm, user, &err)) return err;
  const MakeOp make = [a](const Plan& plan, const Decision& dd, Transport& tr) {
    return start_alltoall(plan, tr, a, dd.window);
  };
  // topo_auto chooses by the block size: ranks that disagree on it would
  // run different algorithms; a nonblocking allreduce on the operation's
  // private communicator checks it first (MPICH's algorithm runs if not).
  return start_nb(op_name, stats_op, sel, state, comm, sel.topo_auto && cfg.auto_agree, bytes,
                  in_place, a.recvcount, d, make, mpich, request);
}

int ialltoallv(const char* op_name, const char* stats_op, const AlltoallvArgs& a, MPI_Comm comm,
               MPI_Request* request) {
  const MpichOn mpich = [a](MPI_Comm c, MPI_Request* r) {
    return PMPI_Ialltoallv(a.sendbuf, a.sendcounts, a.sdispls, a.sendtype, a.recvbuf, a.recvcounts,
                           a.rdispls, a.recvtype, c, r);
  };
  auto user = [&] { return mpich(comm, request); };
  const Config& cfg = door_config();
  int err = MPI_SUCCESS;
  CommState* state = CommState::get(comm, &err);
  if (!state) return raise(comm, err);
  for (int i = 0; i < state->size(); ++i)
    if (a.recvcounts[i] < 0 || (a.sendbuf != MPI_IN_PLACE && a.sendcounts[i] < 0)) return user();
  if (!mpich_accepts(a.sendbuf, a.sendcounts, a.sdispls, state->size(), a.sendtype) ||
      !mpich_accepts(a.recvbuf, a.recvcounts, a.rdispls, state->size(), a.recvtype))
    return user();
  // As for MPI_Alltoallv: block sizes differ between ranks, so topo_auto
  // takes the direct 1-factor exchange.
  Selection sel = cfg.ialltoallv;
  if (sel.topo_auto) sel = Selection{"onefactor", &algorithm(AlgorithmId::kOneFactor), false};
  Decision d = decide(sel, cfg, *state, 0);
  if (cfg.ialltoallv.topo_auto) d.how = "topo_auto";
  if (!d.algo) return user();
  if (!prepare(op_name, stats_op, sel, d, state, comm, user, &err)) return err;
  const MakeOp make = [a](const Plan& plan, const Decision& dd, Transport& tr) {
    return start_alltoallv(plan, tr, a, dd.window);
  };
  return start_nb(op_name, stats_op, sel, state, comm, false, 0, false, -1, d, make, mpich,
                  request);
}

}  // namespace
}  // namespace topoa2a

using namespace topoa2a;

#define TOPOA2A_EXPORT __attribute__((visibility("default")))

extern "C" {

TOPOA2A_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request* request) {
  const Config* cfg = front_config();
  if (!cfg || !cfg->ialltoall.active() || !request ||
      !plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) ||
      is_inter(comm))
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  return ialltoall("MPI_Ialltoall", "ialltoall",
                   {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}, comm, request);
}

TOPOA2A_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request* request) {
  const Config* cfg = front_config();
  if (!cfg || !cfg->ialltoallv.active() || !request ||
      !plainly_valid_v(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm))
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
  return ialltoallv(
      "MPI_Ialltoallv", "ialltoallv",
      {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype}, comm,
      request);
}

// Persistent: each MPI_Start runs what MPI_Ialltoall[v] would, with the
// arguments given here (MPICH builds its persistent collectives from its
// nonblocking schedules the same way).
TOPOA2A_EXPORT int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const Config* cfg = front_config();
  if (!cfg || !cfg->ialltoall.active() || !request ||
      !plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) ||
      is_inter(comm))
    return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request);
  const AlltoallArgs a{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype};
  const int err = persistent_init(
      [a, comm](MPI_Request* run) {
        return ialltoall("MPI_Alltoall_init", "alltoall_init", a, comm, run);
      },
      request);
  return err == MPI_SUCCESS ? err : raise(comm, err);
}

TOPOA2A_EXPORT int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[],
                                      const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request) {
  const Config* cfg = front_config();
  if (!cfg || !cfg->ialltoallv.active() || !request ||
      !plainly_valid_v(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm))
    return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm, info, request);
  const AlltoallvArgs a{sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype};
  const int err = persistent_init(
      [a, comm](MPI_Request* run) {
        return ialltoallv("MPI_Alltoallv_init", "alltoallv_init", a, comm, run);
      },
      request);
  return err == MPI_SUCCESS ? err : raise(comm, err);
}

}  // extern "C"
