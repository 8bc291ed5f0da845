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
// simulated clock) up to that clock plus 4 such spans plus 1 ms. With a
// fixed 1 ms margin, at p = 1024 on 16- and 32-core hosts, the first timed
// call took about 35 us longer than a back-to-back second one for every
// candidate (SMPI's own bruck too), and this margin removes the difference
// (some ranks reached the instant after it had passed). *late: how
// far past the instant this rank arrived (0 when the margin held; the
// driver reports a late start as an error). Timing from there is
// independent of how skewed the ranks left the previous call.
double synchronized_start(MPI_Comm comm, double* late);

}  // namespace sim
