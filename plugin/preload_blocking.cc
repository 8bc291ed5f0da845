// The preload door's blocking all-to-alls: MPI_Alltoall and MPI_Alltoallv,
// taken when MPIR_CVAR_ALLTOALL[V]_INTRA_ALGORITHM names one of topoa2a's
// algorithms or topo_auto; everything else goes to MPICH untouched (the
// lifecycle: preload.cc).
#include <mpi.h>

#include <cstdio>
#include <string>

#include "coll/exec.h"
#include "coll/pmpi_transport.h"
#include "plugin/comm_state.h"
#include "plugin/config.h"
#include "plugin/front.h"
#include "plugin/preload_impl.h"
#include "plugin/select.h"
#include "plugin/stats.h"

namespace topoa2a {
namespace {

// True when every rank of `comm` passes the same block size and in-place
// flag. Collective over `comm` (the caller's collective call on it orders
// it). *err: the allreduce's error, if any.
bool agree(MPI_Comm comm, long long bytes, bool in_place, int* err) {
  const long long mine = 2 * bytes + (in_place ? 1 : 0);
  long long v[2] = {mine, -mine};
  *err = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG_LONG, MPI_MAX, comm);
  return *err == MPI_SUCCESS && v[0] == mine && v[1] == -mine;
}

}  // namespace
}  // namespace topoa2a

using namespace topoa2a;

#define TOPOA2A_EXPORT __attribute__((visibility("default")))

extern "C" {

TOPOA2A_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm) {
  auto mpich = [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  const Config* cfg = front_config();
  if (!cfg || !cfg->alltoall.active() ||
      !plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) ||
      is_inter(comm))
    return mpich();
  int err = MPI_SUCCESS;
  CommState* state = CommState::get(comm, &err);
  if (!state) return raise(comm, err);
  if (!mpich_accepts(sendbuf, &sendcount, nullptr, 1, sendtype) ||
      !mpich_accepts(recvbuf, &recvcount, nullptr, 1, recvtype))
    return mpich();  // MPICH reports it: same class, message and handler
  MPI_Count type_size = 0;
  if (PMPI_Type_size_c(recvtype, &type_size) != MPI_SUCCESS) return mpich();
  const long long bytes = static_cast<long long>(recvcount) * type_size;
  // topo_auto chooses by the block size: ranks that disagree on it (an
  // erroneous program) would run different algorithms and wait for each
  // other forever. One small allreduce makes sure they agree; when they do
  // not, MPICH's own algorithm runs on every rank and reports the error
  // exactly as without topoa2a.
  if (cfg->alltoall.topo_auto && cfg->auto_agree &&
      !agree(comm, bytes, sendbuf == MPI_IN_PLACE, &err)) {
    if (err != MPI_SUCCESS) return err;  // the user's error handler has seen it
    return mpich();
  }
  const Decision d = decide(cfg->alltoall, *cfg, *state, bytes, sendbuf == MPI_IN_PLACE, recvcount);
  record_choice(*state, "alltoall", d);
  if (!d.algo) {
    // topo_auto preferred one of MPICH's: MPICH runs it, pinned through
    // MPI_T for this call (or MPICH's own selection where that cannot be).
    bool pinned = false;
    err = run_as_mpich(d.mpich, &pinned, mpich);
    if (!d.mpich.empty()) {
      stats_add(*state->stats(), "alltoall", "mpich", 0, 0);
      if (pinned) stats_add(*state->stats(), "alltoall", "mpich:" + d.mpich, 0, 0);
      if (cfg->verbose && state->rank() == 0 && state->first_time("mpich " + std::to_string(bytes)))
        std::fprintf(stderr,
                     "topoa2a: MPI_Alltoall comm=%ld size=%d msg=%lld bytes algorithm=mpich:%s "
                     "(%s; %s)\n",
                     state->id(), state->size(), bytes, d.mpich.c_str(), d.how.c_str(),
                     pinned ? "pinned through MPI_T" : ("not pinned: " + why_not_pinned()).c_str());
    }
    return err;
  }
  std::string why;
  const MPI_Comm shadow = private_comm(d, *state, comm, &why);
  if (shadow == MPI_COMM_NULL)
    return fall_back("MPI_Alltoall", "alltoall", why, *state, comm, mpich);
  PmpiTransport transport(shadow);
  RunStats rs;
  err = run_alltoall(state->plan(*d.algo, d.params, d.window), transport,
                     {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}, d.window, &rs);
  if (err != MPI_SUCCESS) return raise(comm, err);
  stats_add(*state->stats(), "alltoall", d.algo->name, rs.rounds, rs.bytes_sent);
  report("MPI_Alltoall", d, *state, bytes);
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  auto mpich = [&] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  };
  const Config* cfg = front_config();
  if (!cfg || !cfg->alltoallv.active() ||
      !plainly_valid_v(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm))
    return mpich();
  int err = MPI_SUCCESS;
  CommState* state = CommState::get(comm, &err);
  if (!state) return raise(comm, err);
  for (int i = 0; i < state->size(); ++i)
    if (recvcounts[i] < 0 || (sendbuf != MPI_IN_PLACE && sendcounts[i] < 0)) return mpich();
  if (!mpich_accepts(sendbuf, sendcounts, sdispls, state->size(), sendtype) ||
      !mpich_accepts(recvbuf, recvcounts, rdispls, state->size(), recvtype))
    return mpich();
  // Block sizes differ between ranks, so topo_auto cannot agree on a size
  // without communicating: it takes the direct 1-factor exchange.
  Selection sel = cfg->alltoallv;
  if (sel.topo_auto) sel = Selection{"onefactor", &algorithm(AlgorithmId::kOneFactor), false};
  Decision d = decide(sel, *cfg, *state, 0);
  if (cfg->alltoallv.topo_auto) d.how = "topo_auto";
  record_choice(*state, "alltoallv", d);
  if (!d.algo) return mpich();
  std::string why;
  const MPI_Comm shadow = private_comm(d, *state, comm, &why);
  if (shadow == MPI_COMM_NULL)
    return fall_back("MPI_Alltoallv", "alltoallv", why, *state, comm, mpich);
  PmpiTransport transport(shadow);
  RunStats rs;
  err = run_alltoallv(
      state->plan(*d.algo, d.params, d.window), transport,
      {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype}, d.window,
      &rs);
  if (err != MPI_SUCCESS) return raise(comm, err);
  stats_add(*state->stats(), "alltoallv", d.algo->name, rs.rounds, rs.bytes_sent);
  report("MPI_Alltoallv", d, *state, rs.bytes_sent);
  return MPI_SUCCESS;
}

}  // extern "C"
