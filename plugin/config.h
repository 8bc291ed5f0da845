// The preload front door's configuration, read from the environment once,
// before MPICH's own MPI_Init reads it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "topology/descriptions.h"
#include "topology/rules.h"

namespace topoa2a {

enum class Fallback { kSilent, kPrint, kError };

// What one of MPICH's *_INTRA_ALGORITHM variables asks for.
struct Selection {
  std::string value = "auto";       // as given (lower case)
  const Algorithm* ours = nullptr;  // one of ours
  bool topo_auto = false;           // topoa2a chooses
  bool active() const { return ours != nullptr || topo_auto; }
};

struct Config {
  Selection alltoall;
  Selection alltoallv;
  // MPI_Ialltoall[v] and the persistent MPI_Alltoall[v]_init (preload door):
  // MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM, as in MPICH.
  Selection ialltoall;
  Selection ialltoallv;
  Fallback fallback = Fallback::kSilent;
  bool verbose = false;  // MPIR_CVAR_TOPOA2A_VERBOSE
  bool stats = false;    // MPIR_CVAR_TOPOA2A_STATS
  int leaders = 0;       // MPIR_CVAR_TOPOA2A_LEADERS (multileader), 0: every rank leads
  // MPIR_CVAR_TOPOA2A_MESH_GRID (0x0: default) and _TORUS_DIMS (empty: from
  // the communicator's Cartesian topology, the network, or p's factors): the
  // mesh and torus grids. Validated here (a bad value stops MPI_Init); each
  // communicator's Topology carries them (mesh_grid, torus_dims) and
  // topology_params applies them, so that the cost model prices mesh and
  // torus on the grid the run uses.
  Grid mesh_grid;
  std::vector<int> torus_dims;
  // MPIR_CVAR_TOPOA2A_WINDOW: messages in flight per rank, 0 (unset): the
  // default for the algorithm (see select.h, Decision::window).
  int window = 0;
  // MPIR_CVAR_TOPOA2A_AUTO_AGREE: topo_auto checks that every rank passes
  // the same block size before choosing by it (preload door).
  bool auto_agree = true;
  // MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, when topo_auto is selected:
  // its rules come before the cost model.
  std::shared_ptr<const Rules> rules;
  // MPIR_CVAR_TOPOA2A_TOPOLOGY, _NETWORK_FILE and _COST, read and parsed
  // once (load_options): detection takes the parsed descriptions from here.
  UserDescriptions descriptions;
  // MPI_THREAD_MULTIPLE was provided (is_multi_threaded in the rules file);
  // set by the front door once MPI is initialised.
  bool multi_threaded = false;
  // The private copy of the tuning file handed to MPICH (preload door, when
  // the file names topoa2a's algorithms); remove_private_files() deletes it
  // once MPICH has read it.
  std::string tuning_copy;
};

// MPICH 4.0.2's own values, passed through unchanged.
const std::vector<std::string>& mpich_alltoall_values();
const std::vector<std::string>& mpich_alltoallv_values();
// MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM's (sched_*, tsp_*, auto).
const std::vector<std::string>& mpich_ialltoall_values();
const std::vector<std::string>& mpich_ialltoallv_values();

// The variables of one collective: MPICH's values, and whether topoa2a
// offers only its alltoallv algorithms there.
enum class Coll { kAlltoall, kAlltoallv, kIalltoall, kIalltoallv };
bool parse_selection(const std::string& value, Coll coll, Selection* sel);
std::string valid_values(Coll coll);

// One value of an *_INTRA_ALGORITHM variable: one of MPICH's (passed
// through), one of ours or topo_auto. False, *sel untouched, when the value
// is not valid for the operation.
bool parse_selection(const std::string& value, bool alltoallv, Selection* sel);

// MPIR_CVAR_TOPOA2A_AUTO=1 makes MPICH's "auto" mean topo_auto.
//
// Reads the variables (MPIR_CVAR_X, and MPICH's aliases MPIR_PARAM_X and
// MPICH_X) and rewrites those of ours to "auto" so that MPICH accepts them.
// On a bad value, returns false with a one-line message in *error.
bool load_config(Config* config, std::string* error);

// topoa2a's own variables only (VERBOSE, STATS, MESH_GRID, LEADERS, TOPOLOGY,
// NETWORK_FILE, COST): what the native front door reads, MPICH itself
// handling the algorithm variables there. Every one is checked, used or not.
bool load_options(Config* config, std::string* error);

// Deletes the private files made by load_config (the tuning file's copy):
// call once MPICH's MPI_Init has read them. Also done at exit.
void remove_private_files(Config* config);

// After load_config failed: puts the MPICH variables that topoa2a reads
// (the algorithm variables, MPIR_CVAR_COLLECTIVE_FALLBACK, the tuning file)
// out of MPICH's way, so that MPICH's MPI_Init succeeds and the front door
// can report the error itself.
void clear_mpich_variables();

constexpr int kMaxWindow = 1 << 20;

// Value list for messages, e.g. "auto, brucks, ..., ring, ..., topo_auto".
std::string valid_values(bool alltoallv);

}  // namespace topoa2a
