// The node layout of a communicator for the node-aware schedules
// (coll/schedule.h NodeLayout) from its Topology: the node of each rank and
// the network between the nodes. Pure C++, no MPI.
#pragma once

#include <memory>

#include "coll/algorithms.h"
#include "coll/schedule.h"
#include "topology/topology.h"

namespace topoa2a {

// Null when the topology has no node of each rank. Network endpoints are
// kept where they are the nodes (or the ranks, with one rank per node);
// otherwise the layout says "switch" (the schedules then pair nodes).
std::shared_ptr<const NodeLayout> node_layout_for(const Topology& t);

// The communicator's ranks sit on the network's endpoints in rank order,
// one each (a simulation, a forced topology, one rank per node placed in
// order): the grid of the network is then the grid of the ranks. O(p).
bool ranks_are_endpoints(const Topology& t);

// What algorithm `a` takes from the communicator's topology, into *params
// (other fields untouched): mesh the user's grid (MPIR_CVAR_TOPOA2A_MESH_GRID;
// else untouched); torus its grid (the user's, else the Cartesian topology's,
// else the network's where the ranks are its endpoints in order; else the
// default); direct_scheduled the network to order its rounds for; the
// node-aware algorithms `layout` (node_layout_for(t), passed in so that it
// is built once per communicator). Both front doors' selection and the
// cost model call this, so what is priced is what runs.
void topology_params(const Algorithm& a, const Topology& t,
                     const std::shared_ptr<const NodeLayout>& layout, Params* params);

}  // namespace topoa2a
