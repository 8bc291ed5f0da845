// topoa2a-calibrate's measurements (MPI): pairs of ranks exchanging
// messages, one or several in flight, timed on the first rank of each pair.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace topoa2a {

struct Pair {
  int a = -1, b = -1;  // ranks of the communicator
};

// The pairs to measure a level with, found from MPI_COMM_TYPE_SHARED.
struct Levels {
  int nodes = 0;
  int max_ranks_per_node = 0;
  std::vector<Pair> intra;    // one pair on one node; empty when no node has two ranks
  std::vector<Pair> inter;    // one pair on two nodes; empty on one node
  std::vector<Pair> inter_n;  // every rank of one node with one of another (>= 2 pairs), or empty
  std::string intra_why, inter_why;  // why a level cannot be measured
};
// Collective over `comm`.
Levels find_levels(MPI_Comm comm);

// Every pair of `pairs` at once, `iters` times after one warm-up: a sends
// `count` messages of `bytes` to b, all in flight, and b sends them back the
// same way. Returns half the median time of one iteration (one way), the
// slowest pair's, on every rank. Collective over `comm` (ranks outside the pairs
// only join the barrier and the reduction). Returns a negative value if an
// MPI call fails.
double exchange(MPI_Comm comm, const std::vector<Pair>& pairs, size_t bytes, int count, int iters);

}  // namespace topoa2a
