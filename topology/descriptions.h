// The user's descriptions of the machine (the forced topology, the network
// file, the cost parameters) and how they are applied to a detected
// Topology. Pure C++ (no MPI): each front door reads and parses them once,
// at MPI_Init (load_user_descriptions, so that a malformed value is an error
// there even when nothing would use it), gathers the facts its own way, then
// calls apply_user_descriptions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "topology/cost_model.h"
#include "topology/topology.h"

namespace topoa2a {

struct UserDescriptions {
  // As given.
  std::string forced;      // MPIR_CVAR_TOPOA2A_TOPOLOGY
  std::string path;        // MPIR_CVAR_TOPOA2A_NETWORK_FILE
  std::string text;        // its contents
  std::string read_error;  // why it could not be read
  std::string cost;        // MPIR_CVAR_TOPOA2A_COST
  std::string cost_path;   // MPIR_CVAR_TOPOA2A_COST_FILE
  std::string cost_text;   // its contents
  std::string cost_read_error;
  std::string leaders;     // MPIR_CVAR_TOPOA2A_LEADERS (validated by the front door's config)
  std::string torus_dims;  // MPIR_CVAR_TOPOA2A_TORUS_DIMS (the same)
  std::string mesh_grid;   // MPIR_CVAR_TOPOA2A_MESH_GRID (the same)

  // Parsed (parse_user_descriptions). Detection takes these and parses
  // nothing again.
  bool parsed = false;
  std::optional<NetworkDesc> file_desc;    // the network file, when one is given
  std::optional<NetworkDesc> forced_desc;  // the forced topology, when one is given
  int leaders_k = 0;                       // `leaders` (0: unset or not digits up to 65536)
  std::vector<int> torus_extents;          // `torus_dims` (empty: unset or malformed)
  std::vector<int> mesh_extents;           // `mesh_grid` as {rows, cols} (empty: the same)
  CostParams cost_params;  // the defaults < the cost file < `cost`, key by key (resolve_cost)
  std::vector<std::string> cost_from;  // per key of cost_keys(): where its value came from
};

// Reads the four variables, the network file and the cost file (a regular file of at most
// kMaxInputFileBytes), without parsing.
UserDescriptions read_user_descriptions();

// Parses what `d` holds. On the first problem returns false with one line
// naming the variable, the value and what is valid in *error (d->parsed
// stays false).
bool parse_user_descriptions(UserDescriptions* d, std::string* error);

// read_user_descriptions, then parse_user_descriptions.
bool load_user_descriptions(UserDescriptions* d, std::string* error);

// Configures t from the descriptions (errors into t->errors), parsing them
// first when d.parsed is false. When a network file names hosts (or
// `always_names`), calls rank_names() for the processor name of every rank
// of the communicator: callers that need communication for it must make the
// call on every rank alike, which holds when every rank sees the same
// descriptions.
void apply_user_descriptions(Topology* t, const UserDescriptions& d,
                             const std::function<std::vector<std::string>()>& rank_names,
                             bool always_names = false);

}  // namespace topoa2a
