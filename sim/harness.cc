#include "sim/harness.h"

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "coll/exec.h"

namespace sim {

namespace {
uint64_t word(int src, int dst, long idx) {
  return (static_cast<uint64_t>(src) << 40) | (static_cast<uint64_t>(dst) << 20) |
         static_cast<uint64_t>(idx);
}
}  // namespace

void use_shared_scratch() {
  topoa2a::set_scratch_allocator(
      {[](size_t n) { return SMPI_SHARED_MALLOC(n); }, [](void* m) { SMPI_SHARED_FREE(m); }});
}

Buffers::Buffers(size_t b, bool sh) : bytes(b), shared(sh) {
  if (shared) {
    send = static_cast<char*>(SMPI_SHARED_MALLOC(bytes));
    recv = static_cast<char*>(SMPI_SHARED_MALLOC(bytes));
  } else {
    send = static_cast<char*>(std::malloc(bytes));
    recv = static_cast<char*>(std::malloc(bytes));
  }
}

Buffers::~Buffers() {
  if (shared) {
    SMPI_SHARED_FREE(send);
    SMPI_SHARED_FREE(recv);
  } else {
    std::free(send);
    std::free(recv);
  }
}

void fill(const Buffers& b, int me, int p, long words) {
  auto* s = reinterpret_cast<uint64_t*>(b.send);
  for (int d = 0; d < p; ++d)
    for (long i = 0; i < words; ++i) s[static_cast<size_t>(d) * words + i] = word(me, d, i);
  std::memset(b.recv, 0xff, b.bytes);
}

long count_errors(const Buffers& b, int me, int p, long words) {
  const auto* r = reinterpret_cast<const uint64_t*>(b.recv);
  long bad = 0;
  for (int s = 0; s < p; ++s)
    for (long i = 0; i < words; ++i)
      if (r[static_cast<size_t>(s) * words + i] != word(s, me, i)) ++bad;
  return bad;
}

double synchronized_start(MPI_Comm comm, double* late) {
  MPI_Barrier(comm);
  // The latest clock at entry, then how long after it the slowest rank
  // left that allreduce (a second allreduce, the same operation).
  double latest = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
  double span = MPI_Wtime() - latest;
  MPI_Allreduce(MPI_IN_PLACE, &span, 1, MPI_DOUBLE, MPI_MAX, comm);
  const double target = latest + 4 * span + 1e-3;
  const double wait = target - MPI_Wtime();
  *late = wait < 0 ? -wait : 0;
  if (wait > 0) {
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(wait);
    ts.tv_nsec = static_cast<long>((wait - static_cast<double>(ts.tv_sec)) * 1e9);
    nanosleep(&ts, nullptr);
  }
  return target;
}

}  // namespace sim
