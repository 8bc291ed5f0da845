// topoa2a-overlap: osu_ialltoall-compatible overlap test of every candidate
// nonblocking all-to-all in one run: topoa2a's algorithms (selected with
// topoa2a_select("ialltoall", ...), libtopoa2a.so preloaded; in the native
// door, on the patched MPICH, through MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM
// written with MPI_T) and MPICH's nonblocking algorithms (that variable
// written through MPI_T, topoa2a handing the call back to MPICH).
//
// Per candidate and message size, as OSU's osu_ialltoall does: the pure
// communication time (MPI_Ialltoall + MPI_Wait), then the same with
// computation of that length between start and wait (no MPI call inside
// it, so only what progresses without MPI's help overlaps); overlap =
// 100 * (1 - (overall - compute) / pure), at least 0. Times are averages
// over the iterations and the ranks, in microseconds. Each size is checked
// once (payloads encode source, destination and element).
//
// Usage: topoa2a-overlap [-m MIN:MAX] [-i ITERS] [-x WARMUP] [-c A,B,...]
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "plugin/mpit.h"

namespace {

using SelectFn = int (*)(const char*, const char*);

// MPICH 4.0.2's values of MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM, for MPI_T.
const std::vector<std::string> kMpichValues = {
    "auto",          "sched_auto",     "sched_brucks",
    "sched_inplace", "sched_pairwise", "sched_permuted_sendrecv",
    "tsp_ring",      "tsp_brucks",     "tsp_scattered"};
// The candidates of MPICH's run by default: all but sched_auto, on which
// stock MPICH 4.0.2 fails an assertion in MPI_Ialltoall (mpir_coll.c line
// 3126) when it is written through MPI_T (-c mpich:sched_auto still tries).
const std::vector<std::string> kMpichCandidates = {
    "auto",     "sched_brucks", "sched_inplace", "sched_pairwise", "sched_permuted_sendrecv",
    "tsp_ring", "tsp_brucks",   "tsp_scattered"};

void compute_for(double us) {
  const double end = MPI_Wtime() + us * 1e-6;
  volatile double x = 1.0;
  while (MPI_Wtime() < end) x = x * 1.0000001;
}

int value(int s, int d, long j) { return static_cast<int>((s * 4096L + d) * 1024 + j % 1024); }

// False when the result is wrong on some rank.
bool check(int n, int p, int me) {
  std::vector<int> sb(static_cast<size_t>(n) * p), rb(sb.size(), -1);
  for (int d = 0; d < p; ++d)
    for (int j = 0; j < n; ++j) sb[static_cast<size_t>(d) * n + j] = value(me, d, j);
  MPI_Request r;
  MPI_Ialltoall(sb.data(), n, MPI_INT, rb.data(), n, MPI_INT, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  int ok = 1, all = 0;
  for (int s = 0; s < p && ok; ++s)
    for (int j = 0; j < n; ++j)
      if (rb[static_cast<size_t>(s) * n + j] != value(s, me, j)) ok = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

double average(double local, int p) {
  double sum = 0;
  MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / p;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  long min_bytes = 4, max_bytes = 65536;
  int iters = 20, warmup = 3;
  std::string list;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "-m") {
      min_bytes = std::atol(v.c_str());
      max_bytes = std::atol(v.substr(v.find(':') + 1).c_str());
    } else if (k == "-i") {
      iters = std::atoi(v.c_str());
    } else if (k == "-x") {
      warmup = std::atoi(v.c_str());
    } else if (k == "-c") {
      list = v;
    }
  }
  auto select = reinterpret_cast<SelectFn>(dlsym(RTLD_DEFAULT, "topoa2a_select"));
  topoa2a::MpiT mpit;
  topoa2a::EnumCvar cvar(mpit, "MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM", kMpichValues);
  // The native door (the patched MPICH, no preload): MPICH's own variable
  // takes topoa2a's values too, and MPI_T lists them.
  const bool native = !select && cvar.ok() && cvar.has("ring");
  std::vector<std::string> candidates;
  if (!list.empty()) {
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      candidates.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  } else {
    if (select || native) {
      for (const topoa2a::Algorithm& a : topoa2a::algorithms())
        if (!native || cvar.has(a.name)) candidates.push_back(a.name);
      candidates.push_back("topo_auto");
    }
    for (const std::string& v : kMpichCandidates) candidates.push_back("mpich:" + v);
  }
  if (me == 0)
    std::printf("# topoa2a-overlap (osu_ialltoall style), %d ranks, %d iterations, %s\n", p, iters,
                select   ? "preload door"
                : native ? "native door"
                         : "MPICH only");
  for (const std::string& c : candidates) {
    const bool mpich = c.rfind("mpich:", 0) == 0;
    const std::string v = mpich ? c.substr(6) : c;
    bool ok = true;
    if (mpich) {
      if (select) ok = select("ialltoall", "auto") == 0;
      ok = ok && cvar.ok() && cvar.has(v) && cvar.write(v);
    } else if (select) {
      ok = select("ialltoall", v.c_str()) == 0;
    } else {
      ok = native && cvar.write(v);
    }
    if (me == 0)
      std::printf("\n# candidate %s%s\n", c.c_str(), ok ? "" : ": cannot select, skipped");
    if (!ok) continue;
    if (me == 0)
      std::printf("%-10s %16s %16s %16s %12s\n", "# Size", "Overall(us)", "Compute(us)",
                  "Pure Comm.(us)", "Overlap(%)");
    for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
      const int n = static_cast<int>(std::max(1L, bytes / static_cast<long>(sizeof(int))));
      if (!check(n, p, me)) {
        if (me == 0) std::printf("%-10ld wrong result\n", bytes);
        continue;
      }
      std::vector<int> sb(static_cast<size_t>(n) * p, me), rb(sb.size());
      MPI_Request r;
      double pure = 0;
      for (int i = 0; i < warmup + iters; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Ialltoall(sb.data(), n, MPI_INT, rb.data(), n, MPI_INT, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (i >= warmup) pure += MPI_Wtime() - t0;
      }
      pure = average(pure / iters * 1e6, p);
      double overall = 0, comp = 0;
      for (int i = 0; i < warmup + iters; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Ialltoall(sb.data(), n, MPI_INT, rb.data(), n, MPI_INT, MPI_COMM_WORLD, &r);
        const double c0 = MPI_Wtime();
        compute_for(pure);
        const double c1 = MPI_Wtime();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (i >= warmup) {
          overall += MPI_Wtime() - t0;
          comp += c1 - c0;
        }
      }
      overall = average(overall / iters * 1e6, p);
      comp = average(comp / iters * 1e6, p);
      const double overlap = pure > 0 ? std::max(0.0, 100.0 * (1.0 - (overall - comp) / pure)) : 0;
      if (me == 0)
        std::printf("%-10ld %16.2f %16.2f %16.2f %12.2f\n", bytes, overall, comp, pure, overlap);
    }
  }
  MPI_Finalize();
  return 0;
}
