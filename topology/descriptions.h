// The user's descriptions of the machine (the forced topology, the network
// file, the cost parameters) and how they are applied to a detected
// Topology. Pure C++ (no MPI): each front door gathers the facts its own
// way, then calls apply_user_descriptions.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace topoa2a {

struct UserDescriptions {
  std::string forced;      // MPIR_CVAR_TOPOA2A_TOPOLOGY
  std::string path;        // MPIR_CVAR_TOPOA2A_NETWORK_FILE
  std::string text;        // its contents
  std::string read_error;  // why it could not be read
  std::string cost;        // MPIR_CVAR_TOPOA2A_COST
};

// Reads the three variables and the network file.
UserDescriptions read_user_descriptions();

// Parses the descriptions and configures t (errors into t->errors). When a
// network file names hosts (or `always_names`), calls rank_names() for the
// processor name of every rank of the communicator: callers that need
// communication for it must make the call on every rank alike, which holds
// when every rank sees the same descriptions.
void apply_user_descriptions(Topology* t, const UserDescriptions& d,
                             const std::function<std::vector<std::string>()>& rank_names,
                             bool always_names = false);

}  // namespace topoa2a
