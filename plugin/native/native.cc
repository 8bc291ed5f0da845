// The native front door: libtopoa2a_native.so, loaded by a patched MPICH
// (patches/) through MPIR_CVAR_COLL_PLUGIN. It registers topoa2a's
// algorithms with MPICH's own CVAR and JSON selection, builds each
// communicator's state (topology, cost model) when MPICH commits it, and
// runs the schedules over MPICH's internal transport. Thin: selection,
// per-communicator state, topology and the executor are shared with the
// preload front door.
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "coll/exec.h"
#include "plugin/comm_core.h"
#include "plugin/config.h"
#include "plugin/native/mpich_coll_plugin.h"
#include "plugin/native/native_pvars.h"
#include "plugin/native/native_topology.h"
#include "plugin/native/native_transport.h"
#include "plugin/select.h"
#include "plugin/stats.h"
#include "topology/cost_file.h"

namespace topoa2a {
namespace {

const MPICH_Coll_plugin_host* g_host = nullptr;
Config g_config;
std::unique_ptr<WorldFacts> g_world;
int g_world_rank = 0;
long g_next_id = 0;

bool is_rank0() {
  const char* r = std::getenv("PMI_RANK");
  return !r || std::atoi(r) == 0;
}

// The state of one communicator: the shared core, plus what detection used,
// so that a Cartesian topology attached after creation can be added once.
class NativeComm : public CommCore {
 public:
  NativeComm(MPICH_Coll_plugin_comm* comm, int size, int rank, long id)
      : CommCore(size, rank, id), comm_(comm) {}

  // Detects the topology (local: MPICH's node map and the world facts).
  int detect(const std::vector<int>& cart_dims, const std::vector<int>& cart_periods) {
    auto topo = std::make_shared<Topology>(
        native_topology(*g_host, comm_, *g_world, g_config.descriptions, cart_dims, cart_periods));
    if (!topo->errors.empty()) {
      if (rank() == 0)
        for (const auto& e : topo->errors) std::fprintf(stderr, "topoa2a: %s\n", e.c_str());
      return MPI_ERR_OTHER;
    }
    // The costs were parsed at MPI_Init (load_options); the cost model is
    // built on topo_auto's first use.
    set_topology(std::move(topo), g_config.descriptions.cost_params);
    return MPI_SUCCESS;
  }

  // MPI_Cart_create attaches its topology after MPICH commits the
  // communicator: pick it up on the first call.
  void add_cart_once() {
    if (cart_checked_) return;
    cart_checked_ = true;
    int dims[32], periods[32];
    const int nd = g_host->cart_get(comm_, 32, dims, periods);
    if (nd > 0 && nd <= 32) detect({dims, dims + nd}, {periods, periods + nd});
  }

 private:
  MPICH_Coll_plugin_comm* comm_;
  bool cart_checked_ = false;
};

// ---- communicators ---------------------------------------------------------

int comm_create_impl(MPICH_Coll_plugin_comm* comm, void** state) {
  *state = nullptr;
  const int size = g_host->comm_size(comm), rank = g_host->comm_rank(comm);
  if (!g_world) {
    // The first communicator MPICH commits is MPI_COMM_WORLD: gather each
    // process's host name and binding once (collective, during MPI_Init).
    g_world = std::make_unique<WorldFacts>();
    const int err = gather_world_facts(*g_host, comm, g_world.get());
    if (err != MPI_SUCCESS) return err;
    g_world_rank = rank;
  }
  auto c =
      std::unique_ptr<NativeComm>(new (std::nothrow) NativeComm(comm, size, rank, g_next_id++));
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
  if (g_config.stats) stats_dump(g_world_rank);
  g_world.reset();
  return MPI_SUCCESS;
}

// ---- algorithms ------------------------------------------------------------

// The registered name: one of ours (ctx: its Algorithm) or topo_auto (null).
Selection selection_of(void* ctx) {
  Selection s;
  if (ctx) {
    s.ours = static_cast<const Algorithm*>(ctx);
    s.value = s.ours->name;
  } else {
    s.value = "topo_auto";
    s.topo_auto = true;
  }
  return s;
}

struct Call {
  bool alltoallv;
  Decision decision;
  long long bytes = 0;  // per block (alltoall)
  std::string refused;  // a reason the call cannot run at all
};

Call decide_call(const MPICH_Coll_plugin_args* a, NativeComm& s, void* ctx) {
  Call call;
  call.alltoallv = a->sendcounts != nullptr || a->recvcounts != nullptr;
  const bool in_place = a->sendbuf == MPI_IN_PLACE;
  if (!call.alltoallv) {
    MPI_Aint size = 0, extent, lb, textent;
    int contig;
    g_host->type_info(a->recvtype, &size, &extent, &lb, &textent, &contig);
    call.bytes = static_cast<long long>(size) * a->recvcount;
    if (a->recvcount > INT_MAX || (!in_place && a->sendcount > INT_MAX))
      call.refused = "a count above INT_MAX";
    call.decision = decide(selection_of(ctx), g_config, s, call.bytes, in_place,
                           static_cast<long long>(a->recvcount));
    return call;
  }
  for (int i = 0; i < s.size(); ++i)
    if (a->recvcounts[i] > INT_MAX || a->rdispls[i] > INT_MAX ||
        (!in_place && (a->sendcounts[i] > INT_MAX || a->sdispls[i] > INT_MAX)))
      call.refused = "a count or displacement above INT_MAX";
  // Block sizes differ between ranks, so topo_auto cannot agree on a size
  // without communicating: it takes the direct 1-factor exchange.
  Selection sel = selection_of(ctx);
  if (sel.topo_auto) sel = Selection{"onefactor", &algorithm(AlgorithmId::kOneFactor), false};
  call.decision = decide(sel, g_config, s, 0, in_place);
  if (!ctx) call.decision.how = "topo_auto";
  return call;
}

const char* op_name(bool alltoallv) { return alltoallv ? "alltoallv" : "alltoall"; }

MPICH_Coll_plugin_verdict check_impl(const MPICH_Coll_plugin_args* a, void* state, void* ctx,
                                     char* why, int why_len) {
  auto& s = *static_cast<NativeComm*>(state);
  s.add_cart_once();
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  std::string reason = call.refused.empty() ? d.cannot_run : call.refused;
  record_choice(s, op_name(call.alltoallv), d);
  if (d.algo && reason.empty()) return MPICH_COLL_PLUGIN_RUN;
  stats_add(*s.stats(), op_name(call.alltoallv), "mpich", 0, 0);  // MPICH runs this call
  if (!d.algo) {  // topo_auto chose one of MPICH's algorithms
    std::snprintf(why, static_cast<size_t>(why_len), "%s", d.mpich.c_str());
    if (g_config.verbose && s.rank() == 0 && s.first_time("mpich " + std::to_string(call.bytes)))
      std::fprintf(stderr,
                   "topoa2a: MPI_Alltoall comm=%ld size=%d msg=%lld bytes algorithm=mpich:%s "
                   "(%s)\n",
                   s.id(), s.size(), call.bytes, d.mpich.c_str(), d.how.c_str());
    return MPICH_COLL_PLUGIN_USE_MPICH;
  }
  std::snprintf(why, static_cast<size_t>(why_len), "%s", reason.c_str());
  return MPICH_COLL_PLUGIN_CANNOT_RUN;
}

void report(const char* op, const Decision& d, NativeComm& s, long long bytes) {
  if (!g_config.verbose || s.rank() != 0) return;
  const std::string key = std::string(op) + " " + std::to_string(bytes) + " " + d.algo->name;
  if (!s.first_time(key)) return;
  // A forced name came from MPICH's dispatch: its CVAR or its JSON rules.
  const char* how = d.how == "forced" ? "selected by MPICH" : d.how.c_str();
  std::fprintf(stderr, "topoa2a: %s comm=%ld size=%d msg=%lld bytes algorithm=%s (%s, native)\n",
               op, s.id(), s.size(), bytes, d.algo->name, how);
}

std::vector<int> ints(const MPI_Aint* v, int n) {
  std::vector<int> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[i] = static_cast<int>(v[i]);
  return out;
}

int run_impl(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state,
             void* ctx) {
  auto& s = *static_cast<NativeComm*>(state);
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  if (!d.algo || !d.cannot_run.empty() || !call.refused.empty()) return MPI_ERR_INTERN;
  NativeTransport transport(*g_host, comm);
  RunStats rs;
  int err;
  if (!call.alltoallv) {
    err = run_alltoall(s.plan(*d.algo, d.params, d.window), transport,
                       {a->sendbuf, static_cast<int>(a->sendcount), a->sendtype, a->recvbuf,
                        static_cast<int>(a->recvcount), a->recvtype},
                       d.window, &rs);
  } else {
    const int p = s.size();
    const bool in_place = a->sendbuf == MPI_IN_PLACE;
    const std::vector<int> sc = in_place ? std::vector<int>() : ints(a->sendcounts, p);
    const std::vector<int> sd = in_place ? std::vector<int>() : ints(a->sdispls, p);
    const std::vector<int> rc = ints(a->recvcounts, p), rd = ints(a->rdispls, p);
    err = run_alltoallv(s.plan(*d.algo, d.params, d.window), transport,
                        {a->sendbuf, in_place ? nullptr : sc.data(), in_place ? nullptr : sd.data(),
                         a->sendtype, a->recvbuf, rc.data(), rd.data(), a->recvtype},
                        d.window, &rs);
  }
  if (err != MPI_SUCCESS) return err;
  stats_add(*s.stats(), op_name(call.alltoallv), d.algo->name, rs.rounds, rs.bytes_sent);
  report(call.alltoallv ? "MPI_Alltoallv" : "MPI_Alltoall", d, s,
         call.alltoallv ? rs.bytes_sent : call.bytes);
  return MPI_SUCCESS;
}

// The C boundary: no C++ exception reaches MPICH.
int comm_create(MPICH_Coll_plugin_comm* comm, void** state) {
  try {
    return comm_create_impl(comm, state);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

MPICH_Coll_plugin_verdict check(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm*,
                                void* state, void* ctx, char* why, int why_len) {
  try {
    return check_impl(a, state, ctx, why, why_len);
  } catch (...) {
    std::snprintf(why, static_cast<size_t>(why_len), "topoa2a: out of memory deciding");
    return MPICH_COLL_PLUGIN_CANNOT_RUN;
  }
}

int run(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state, void* ctx) {
  try {
    return run_impl(a, comm, state, ctx);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

int register_all(const MPICH_Coll_plugin_host* host) {
  auto add = [&](MPICH_Coll_plugin_coll coll, const char* name, const Algorithm* a) {
    MPICH_Coll_plugin_algorithm alg{};
    alg.coll = coll;
    alg.name = name;
    alg.check = check;
    alg.run = run;
    alg.ctx = const_cast<Algorithm*>(a);
    return host->register_algorithm(&alg);
  };
  int err = MPI_SUCCESS;
  for (const Algorithm& a : algorithms()) {
    if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_ALLTOALL, a.name, &a);
    if (err == MPI_SUCCESS && a.alltoallv) err = add(MPICH_COLL_PLUGIN_ALLTOALLV, a.name, &a);
  }
  if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_ALLTOALL, "topo_auto", nullptr);
  if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_ALLTOALLV, "topo_auto", nullptr);
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
}  // namespace topoa2a

using namespace topoa2a;

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
  g_config = Config{};
  if (!load_options(&g_config, &error)) {
    if (is_rank0()) std::fprintf(stderr, "topoa2a: %s\n", error.c_str());
    return MPI_ERR_OTHER;
  }
  if (g_config.verbose && is_rank0())  // each process reads the descriptions itself
    std::fprintf(
        stderr, "topoa2a: costs %s\n",
        describe_cost(g_config.descriptions.cost_params, g_config.descriptions.cost_from).c_str());
  g_host = host;
  g_world.reset();
  g_next_id = 0;
  return register_all(host);
}
