// sim_a2a's harness: buffers, payloads that encode (source, destination,
// index), and a common simulated start for all ranks.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace sim {

// Send and receive buffers of `bytes` each: malloc, or SMPI_SHARED_MALLOC
// (one physical copy for all ranks: no payload, no check).
struct Buffers {
  char* send = nullptr;
  char* recv = nullptr;
  size_t bytes = 0;
  bool shared = false;
  Buffers(size_t b, bool sh);
  ~Buffers();
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

// topoa2a's scratch slots from SMPI_SHARED_MALLOC too (with --shared: the
// payload is unchecked anyway), so a p = 256 run at 128 KiB blocks does not
// need 256 ranks' scratch (the torus: about 3p slots each).
void use_shared_scratch();

// 8-byte words src << 40 | dst << 20 | index: fill the send buffer of rank
// `me` (and poison the receive buffer); count the misplaced words received.
void fill(const Buffers& b, int me, int p, long words);
long count_errors(const Buffers& b, int me, int p, long words);

// Every rank of `comm` returns at the same simulated instant, which it
// returns: a barrier, the latest clock over all ranks (allreduce), the
// longest a rank took to leave that allreduce after it (a second
// allreduce), and a simulated sleep (SMPI's nanosleep advances the
// simulated clock) up to that clock plus 4 such spans plus 1 ms. A fixed
// 1 ms margin was not enough at p = 1024 (SMPI's allreduce there leaves
// some ranks more than 1 ms after the latest entry: they started the timed
// call late, which added about 35 us to every candidate's time). *late: how
// far past the instant this rank arrived (0 when the margin held; the
// driver reports a late start as an error). Timing from there is
// independent of how skewed the ranks left the previous call.
double synchronized_start(MPI_Comm comm, double* late);

}  // namespace sim
