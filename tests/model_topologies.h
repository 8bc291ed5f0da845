// Topologies for the cost model's tests: single-rank nodes on a forced
// network.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "topology/topology.h"

namespace topoa2a {

// `nodes` single-rank nodes on the network of a forced topology string.
inline Topology forced(const char* text, int nodes) {
  Topology t = uniform_topology(nodes, 1);
  NetworkDesc d;
  std::string err;
  EXPECT_TRUE(parse_forced_topology(text, &d, &err)) << err;
  configure_topology(&t, nullptr, "", &d);
  EXPECT_TRUE(t.errors.empty());
  return t;
}

}  // namespace topoa2a
