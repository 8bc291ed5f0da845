// The preload front door: a PMPI interposer, loaded with LD_PRELOAD (or
// linked before -lmpi). This file is its lifecycle: MPI_Init[_thread] reads
// the configuration and MPI_Finalize releases every communicator's state;
// the calls it takes are in preload_blocking.cc and preload_nb.cc.
// Thin: configuration, selection, per-communicator state and the executor
// live elsewhere.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "plugin/comm_state.h"
#include "plugin/config.h"
#include "plugin/front.h"
#include "plugin/mpit.h"
#include "plugin/preload_impl.h"
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

int run_as_mpich(const std::string& value, bool* pinned, const std::function<int()>& call) {
  *pinned = false;
  EnumCvar* cvar = g_pins ? &g_pins->alltoall : nullptr;
  if (!cvar || !cvar->ok() || !cvar->has(value)) return call();
  const std::string before = cvar->read();
  if (before.empty() || !cvar->write(value)) return call();
  *pinned = true;
  const int err = call();
  cvar->write(before);
  return err;
}

std::string why_not_pinned() {
  return g_pins_off.empty() ? std::string("no such value") : g_pins_off;
}

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

}  // extern "C"
