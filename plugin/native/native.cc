// The native front door: libtopoa2a_native.so, loaded by a patched MPICH
// (patches/) through MPIR_CVAR_COLL_PLUGIN. It registers topoa2a's
// algorithms with MPICH's own CVAR and JSON selection, builds each
// communicator's state (topology, cost model) when MPICH commits it, and
// runs the schedules over MPICH's internal transport. Thin: selection,
// per-communicator state, topology and the executor are shared with the
// preload front door.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "coll/exec.h"
#include "plugin/native/native_comm.h"
#include "plugin/native/native_pvars.h"
#include "plugin/native/native_sched.h"
#include "plugin/native/native_transport.h"
#include "plugin/stats.h"
#include "topology/cost_file.h"

namespace topoa2a::native {
namespace {

bool is_rank0() {
  const char* r = std::getenv("PMI_RANK");
  return !r || std::atoi(r) == 0;
}

// ---- communicators ---------------------------------------------------------

int comm_create_impl(MPICH_Coll_plugin_comm* comm, void** state) {
  *state = nullptr;
  const int size = globals().host->comm_size(comm), rank = globals().host->comm_rank(comm);
  if (!globals().world) {
    // The first communicator MPICH commits is MPI_COMM_WORLD: gather each
    // process's host name and binding once (collective, during MPI_Init).
    globals().world = std::make_unique<WorldFacts>();
    const int err = gather_world_facts(*globals().host, comm, globals().world.get());
    if (err != MPI_SUCCESS) return err;
    globals().world_rank = rank;
  }
  auto c = std::unique_ptr<NativeComm>(new (std::nothrow)
                                           NativeComm(comm, size, rank, globals().next_id++));
  if (!c) return MPI_ERR_NO_MEM;
  const int err = c->detect({}, {});
  if (err != MPI_SUCCESS) return err;
  *state = c.release();
  return MPI_SUCCESS;
}

int comm_free(MPICH_Coll_plugin_comm*, void* state) {
  delete static_cast<NativeComm*>(state);
  return MPI_SUCCESS;
}

int finalize() {
  if (globals().config.stats) stats_dump(globals().world_rank);
  globals().world.reset();
  return MPI_SUCCESS;
}

// ---- algorithms ------------------------------------------------------------

int run_impl(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state,
             void* ctx) {
  auto& s = *static_cast<NativeComm*>(state);
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  if (!d.algo || !d.cannot_run.empty() || !call.refused.empty()) return MPI_ERR_INTERN;
  NativeTransport transport(*globals().host, comm);
  RunStats rs;
  int err;
  const Plan& plan = s.plan(*d.algo, d.params, d.window);
  if (!call.alltoallv)
    err = run_alltoall(plan, transport, alltoall_args(*a), d.window, &rs);
  else
    err = run_alltoallv(plan, transport, AlltoallvInts(*a, s.size()).args(), d.window, &rs);
  if (err != MPI_SUCCESS) return err;
  stats_add(*s.stats(), op_name(call.alltoallv), d.algo->name, rs.rounds, rs.bytes_sent);
  report(call.alltoallv ? "MPI_Alltoallv" : "MPI_Alltoall", d, s,
         call.alltoallv ? rs.bytes_sent : call.bytes);
  return MPI_SUCCESS;
}

// The C boundary: no C++ exception reaches MPICH.
int comm_create(MPICH_Coll_plugin_comm* comm, void** state) {
  return c_status([&] { return comm_create_impl(comm, state); });
}

MPICH_Coll_plugin_verdict check(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm*,
                                void* state, void* ctx, char* why, int why_len) {
  return check_call(a, state, ctx, CallKind::kBlocking, why, why_len);
}

int run(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state, void* ctx) {
  return c_status([&] { return run_impl(a, comm, state, ctx); });
}

int register_all(const MPICH_Coll_plugin_host* host) {
  int err = for_each_name([&](bool alltoallv, const char* name, const Algorithm* a) {
    MPICH_Coll_plugin_algorithm alg{};
    alg.coll = alltoallv ? MPICH_COLL_PLUGIN_ALLTOALLV : MPICH_COLL_PLUGIN_ALLTOALL;
    alg.name = name;
    alg.check = check;
    alg.run = run;
    alg.ctx = const_cast<Algorithm*>(a);
    return host->register_algorithm(&alg);
  });
  // Nonblocking and persistent calls: hosts of ABI 4 and later.
  if (err == MPI_SUCCESS && host->abi_version >= 4) err = register_sched_algorithms(*host);
  if (err == MPI_SUCCESS) err = host->set_comm_callbacks(comm_create, comm_free);
  if (err == MPI_SUCCESS) err = host->set_finalize(finalize);
  // MPI_T variables: all of them on hosts of ABI 3 and later; the
  // per-process counters only on ABI 2 (register_counter); none on ABI 1.
  if (err == MPI_SUCCESS)
    err = register_native_pvars(*host, [](void* state) {
      return static_cast<const CommStats*>(static_cast<NativeComm*>(state)->stats().get());
    });
  return err;
}

}  // namespace
}  // namespace topoa2a::native

using namespace topoa2a;
using namespace topoa2a::native;

extern "C" __attribute__((visibility("default"))) int MPICH_Coll_plugin_init(
    const MPICH_Coll_plugin_host* host) {
  // Any host from ABI 1 on: the table only grows (mpich_coll_plugin.h).
  if (!host || host->abi_version < 1) {
    if (is_rank0())
      std::fprintf(stderr,
                   "topoa2a: MPICH's collective plugin ABI is version %d, expected 1 to %d\n",
                   host ? host->abi_version : -1, MPICH_COLL_PLUGIN_ABI_VERSION);
    return MPI_ERR_OTHER;
  }
  std::string error;
  globals().config = Config{};
  if (!load_options(&globals().config, &error)) {
    if (is_rank0()) std::fprintf(stderr, "topoa2a: %s\n", error.c_str());
    return MPI_ERR_OTHER;
  }
  if (globals().config.verbose && is_rank0())  // each process reads the descriptions itself
    std::fprintf(stderr, "topoa2a: costs %s\n",
                 describe_cost(globals().config.descriptions.cost_params,
                               globals().config.descriptions.cost_from)
                     .c_str());
  globals().host = host;
  globals().world.reset();
  globals().next_id = 0;
  return register_all(host);
}
