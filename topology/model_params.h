// The parameters worth pricing for one candidate (see topology/README.md):
// what the algorithm takes from the topology as the selection gives it
// (the node layout, the torus grid, the network order); mesh's grids (the
// nodes' grid, the Cartesian communicator's, the network's, the default);
// multileader's leaders per node (MPIR_CVAR_TOPOA2A_LEADERS, else k = 1,
// 2, 4, ... below the largest node's rank count, and every rank). Each
// choice comes with a note for topoa2a-info. Internal to the cost model.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "topology/topology.h"

namespace topoa2a {

std::vector<std::pair<Params, std::string>> param_choices(
    const std::string& algorithm, const Topology& topo,
    const std::shared_ptr<const NodeLayout>& layout);

}  // namespace topoa2a
