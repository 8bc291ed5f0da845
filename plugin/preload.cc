// The preload front door: a PMPI interposer. Loaded with LD_PRELOAD (or
// linked before -lmpi), it takes MPI_Alltoall and MPI_Alltoallv when
// MPIR_CVAR_ALLTOALL[V]_INTRA_ALGORITHM names one of topoa2a's algorithms
// and hands everything else to MPICH untouched. Thin: configuration,
// selection, per-communicator state and the executor live elsewhere.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "coll/exec.h"
#include "coll/pmpi_transport.h"
#include "plugin/comm_state.h"
#include "plugin/config.h"
#include "plugin/front.h"
#include "plugin/mpit.h"
#include "plugin/preload_impl.h"
#include "plugin/select.h"
#include "plugin/stats.h"
#include "topology/cost_file.h"

namespace topoa2a {
namespace {

Config g_config;
bool g_ready = false;
int g_error_class = MPI_ERR_OTHER;

// MPICH's algorithm CVARs, written through MPI_T for the one call in which
// topo_auto chose one of MPICH's algorithms (brucks, pairwise, scattered),
// so that MPICH runs that one rather than its own choice. Only below
// MPI_THREAD_MULTIPLE: the CVAR is process-wide, and two threads pinning
// different algorithms for the same communicator could mismatch ranks.
struct MpichPins {
  MpiT mpit;
  EnumCvar alltoall{mpit, "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", kMpichAlltoallValues};
};
std::unique_ptr<MpichPins> g_pins;
std::string g_pins_off;  // why MPICH's own selection runs instead

// Runs `call` (a PMPI collective) with `cvar` set to `value`, then puts the
// CVAR back. Returns false in *pinned when it could not pin (the call then
// ran with MPICH's own selection).
template <class Call>
int run_pinned(EnumCvar* cvar, const std::string& value, bool* pinned, Call call) {
  *pinned = false;
  if (!cvar || !cvar->ok() || !cvar->has(value)) return call();
  const std::string before = cvar->read();
  if (before.empty() || !cvar->write(value)) return call();
  *pinned = true;
  const int err = call();
  cvar->write(before);
  return err;
}

// A bad variable of ours, reported once MPI is up (report_bad_config).
std::string g_config_error;

// Before MPI_Init: read the variables and make ours acceptable to MPICH. On
// a bad value, record it and clear MPICH's variables that topoa2a reads, so
// that MPICH's MPI_Init succeeds and the error is reported deterministically
// afterwards.
void before_init() {
  std::string error;
  if (load_config(&g_config, &error)) return;
  g_config_error = error;
  clear_mpich_variables();
}

// A bad configuration or description of the machine, once MPI is up (or
// PMPI_Init failed: init_err): rank 0 of MPI_COMM_WORLD prints one line per
// problem and flushes them before any rank leaves (the barrier), then every
// rank ends with exit status 1.
[[noreturn]] void stop_after_init(const std::string& error, int init_err = MPI_SUCCESS) {
  int rank = 0;
  if (init_err == MPI_SUCCESS) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  } else if (const char* r = std::getenv("PMI_RANK")) {
    rank = std::atoi(r);
  }
  if (rank == 0) {
    size_t start = 0;
    while (start <= error.size()) {
      const size_t end = std::min(error.find('\n', start), error.size());
      std::fprintf(stderr, "topoa2a: %s\n", error.substr(start, end - start).c_str());
      start = end + 1;
    }
    std::fflush(stderr);
  }
  if (init_err == MPI_SUCCESS) {
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
  }
  std::exit(1);
}

void after_init();

// Right after PMPI_Init[_thread]: MPICH has read its variables (and the
// tuning file's private copy).
int init_done(int err) {
  remove_private_files(&g_config);
  if (!g_config_error.empty()) stop_after_init(g_config_error, err);
  if (err == MPI_SUCCESS) {
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    g_config.multi_threaded = level == MPI_THREAD_MULTIPLE;
    after_init();
  }
  return err;
}

void after_init() {
  PMPI_Add_error_class(&g_error_class);
  if (g_config.multi_threaded) {  // set by init_done
    g_pins_off = "MPI_THREAD_MULTIPLE: MPICH's own selection";
  } else if (g_config.alltoall.active() || g_config.alltoallv.active()) {
    g_pins = std::make_unique<MpichPins>();
    if (!g_pins->alltoall.ok()) g_pins_off = g_pins->alltoall.error();
  }
  g_ready = true;
  if (front_active()) front_gather_world();
}

}  // namespace

Config& door_config() { return g_config; }

// An MPI error code whose string says why the algorithm cannot run.
int error_code_for(const std::string& why) {
  static std::mutex mu;
  static std::map<std::string, int> codes;
  std::lock_guard<std::mutex> lock(mu);
  auto it = codes.find(why);
  if (it != codes.end()) return it->second;
  int code = g_error_class;
  if (PMPI_Add_error_code(g_error_class, &code) == MPI_SUCCESS) {
    const std::string text = ("topoa2a: " + why).substr(0, MPI_MAX_ERROR_STRING - 1);
    PMPI_Add_error_string(code, text.c_str());
  }
  codes[why] = code;
  return code;
}

// True when every rank of `comm` passes the same block size and in-place
// flag. Collective over `comm` (the caller's collective call on it orders
// it). *err: the allreduce's error, if any.
bool agree(MPI_Comm comm, long long bytes, bool in_place, int* err) {
  const long long mine = 2 * bytes + (in_place ? 1 : 0);
  long long v[2] = {mine, -mine};
  *err = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG_LONG, MPI_MAX, comm);
  return *err == MPI_SUCCESS && v[0] == mine && v[1] == -mine;
}

bool front_active() {
  return g_ready && (g_config.alltoall.active() || g_config.alltoallv.active() ||
                     g_config.ialltoall.active() || g_config.ialltoallv.active());
}

Config* front_config() { return g_ready ? &g_config : nullptr; }

void front_gather_world() {
  static bool gathered = false;
  if (gathered) return;
  gathered = true;
  std::string error;
  if (!CommState::init(g_config.descriptions, &error)) stop_after_init(error);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (g_config.verbose && rank == 0)  // world rank 0's descriptions are everyone's
    std::fprintf(
        stderr, "topoa2a: costs %s\n",
        describe_cost(g_config.descriptions.cost_params, g_config.descriptions.cost_from).c_str());
}

}  // namespace topoa2a

using namespace topoa2a;

#define TOPOA2A_EXPORT __attribute__((visibility("default")))

extern "C" {

TOPOA2A_EXPORT int MPI_Init(int* argc, char*** argv) {
  before_init();
  return init_done(PMPI_Init(argc, argv));
}

TOPOA2A_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  before_init();
  return init_done(PMPI_Init_thread(argc, argv, required, provided));
}

TOPOA2A_EXPORT int MPI_Finalize(void) {
  if (g_ready) {
    if (g_config.stats) {
      int rank = 0;
      PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
      stats_dump(rank);
    }
    CommState::finalize();
    g_pins.reset();
    g_ready = false;
  }
  return PMPI_Finalize();
}

TOPOA2A_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm) {
  auto mpich = [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (!g_ready || !g_config.alltoall.active() ||
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
  if (g_config.alltoall.topo_auto && g_config.auto_agree &&
      !agree(comm, bytes, sendbuf == MPI_IN_PLACE, &err)) {
    if (err != MPI_SUCCESS) return err;  // the user's error handler has seen it
    return mpich();
  }
  const Decision d =
      decide(g_config.alltoall, g_config, *state, bytes, sendbuf == MPI_IN_PLACE, recvcount);
  record_choice(*state, "alltoall", d);
  if (!d.algo) {
    // topo_auto preferred one of MPICH's: MPICH runs it, pinned through
    // MPI_T for this call (or MPICH's own selection where that cannot be).
    bool pinned = false;
    err = run_pinned(g_pins ? &g_pins->alltoall : nullptr, d.mpich, &pinned, mpich);
    if (!d.mpich.empty()) {
      stats_add(*state->stats(), "alltoall", "mpich", 0, 0);
      if (pinned) stats_add(*state->stats(), "alltoall", "mpich:" + d.mpich, 0, 0);
      if (g_config.verbose && state->rank() == 0 &&
          state->first_time("mpich " + std::to_string(bytes)))
        std::fprintf(stderr,
                     "topoa2a: MPI_Alltoall comm=%ld size=%d msg=%lld bytes algorithm=mpich:%s "
                     "(%s; %s)\n",
                     state->id(), state->size(), bytes, d.mpich.c_str(), d.how.c_str(),
                     pinned ? "pinned through MPI_T"
                            : ("not pinned: " +
                               (g_pins_off.empty() ? std::string("no such value") : g_pins_off))
                                  .c_str());
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
  if (!g_ready || !g_config.alltoallv.active() ||
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
  Selection sel = g_config.alltoallv;
  if (sel.topo_auto) sel = Selection{"onefactor", &algorithm(AlgorithmId::kOneFactor), false};
  Decision d = decide(sel, g_config, *state, 0);
  if (g_config.alltoallv.topo_auto) d.how = "topo_auto";
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
