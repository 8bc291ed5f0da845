// The node layout of a communicator for the node-aware schedules
// (coll/schedule.h NodeLayout) from its Topology: the node of each rank and
// the network between the nodes. Pure C++, no MPI.
#pragma once

#include <memory>

#include "coll/schedule.h"
#include "topology/topology.h"

namespace topoa2a {

// Null when the topology has no node of each rank. Network endpoints are
// kept where they are the nodes (or the ranks, with one rank per node);
// otherwise the layout says "switch" (the schedules then pair nodes).
std::shared_ptr<const NodeLayout> node_layout_for(const Topology& t);

}  // namespace topoa2a
