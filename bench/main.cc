// topoa2a-bench: osu_alltoall's latency test for every candidate
// all-to-all algorithm in one run. Candidates are switched at run time
// (topoa2a_select for ours, MPI_T for MPICH's) and interleaved per size,
// so drift hits all alike; each one's result is validated once per size.
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/candidates.h"
#include "bench/options.h"
#include "bench/report.h"
#include "plugin/mpit.h"

namespace bench {
namespace {

// Byte `i` of the block rank `src` sends to rank `dst`.
unsigned char payload(int src, int dst, std::size_t i) {
  std::uint32_t h = static_cast<std::uint32_t>(src) * 0x9E3779B1u ^
                    static_cast<std::uint32_t>(dst) * 0x85EBCA77u ^
                    static_cast<std::uint32_t>(i) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return static_cast<unsigned char>(h);
}

// One rank's buffers for blocks of m bytes.
class Exchange {
 public:
  Exchange(bool alltoallv, int p, int rank, std::size_t m)
      : v_(alltoallv),
        p_(p),
        rank_(rank),
        m_(m),
        send_(m * p),
        recv_(m * p),
        counts_(p, static_cast<int>(m)),
        displs_(p) {
    for (int d = 0; d < p; ++d) {
      displs_[d] = static_cast<int>(m * d);
      for (std::size_t i = 0; i < m; ++i) send_[m * d + i] = payload(rank, d, i);
    }
  }
  int run() {
    if (v_)
      return MPI_Alltoallv(send_.data(), counts_.data(), displs_.data(), MPI_BYTE, recv_.data(),
                           counts_.data(), displs_.data(), MPI_BYTE, MPI_COMM_WORLD);
    return MPI_Alltoall(send_.data(), static_cast<int>(m_), MPI_BYTE, recv_.data(),
                        static_cast<int>(m_), MPI_BYTE, MPI_COMM_WORLD);
  }
  void clear() { std::fill(recv_.begin(), recv_.end(), 0); }
  bool correct() const {
    for (int s = 0; s < p_; ++s)
      for (std::size_t i = 0; i < m_; ++i)
        if (recv_[m_ * s + i] != payload(s, rank_, i)) return false;
    return true;
  }

 private:
  bool v_;
  int p_, rank_;
  std::size_t m_;
  std::vector<unsigned char> send_, recv_;
  std::vector<int> counts_, displs_;
};

bool all(bool local) {
  int in = local ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

std::string error_text(int err) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

// The first call of a candidate at a size: did it run (as itself, not
// MPICH's fallback) and deliver every byte where it belongs?
void validate(Switcher& sw, const Candidate& c, Exchange& x, Point* pt) {
  x.clear();
  const Counts before = sw.counts();
  const int err = x.run();
  pt->ran = Switcher::what_ran(before, sw.counts());
  if (!all(err == MPI_SUCCESS)) {
    pt->status = "n/a";
    pt->note = err == MPI_SUCCESS ? "failed on another rank" : error_text(err);
    return;
  }
  const bool as_itself = c.label == "topo_auto" || !sw.preloaded() ||
                         (c.is_ours() ? pt->ran == c.ours : pt->ran.empty());
  if (!all(as_itself)) {
    pt->status = "n/a";
    pt->note = "ran " + (pt->ran.empty() ? std::string("nothing of topoa2a") : pt->ran) +
               " instead (not applicable here)";
  } else if (!all(x.correct())) {
    pt->status = "invalid";
    pt->note = "wrong result";
  }
  if (!c.is_ours()) pt->ran = c.label;
}

// One repetition: warm-up calls, then timed calls as osu_alltoall times
// them (each call alone, a barrier between calls). Returns this rank's
// total time in seconds.
double time_calls(Exchange& x, int warmup, int iterations) {
  for (int i = 0; i < warmup; ++i) x.run();
  MPI_Barrier(MPI_COMM_WORLD);
  double total = 0;
  for (int i = 0; i < iterations; ++i) {
    const double t0 = MPI_Wtime();
    x.run();
    total += MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return total;
}

double reduce(double v, MPI_Op op) {
  double out = 0;
  MPI_Reduce(&v, &out, 1, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
  return out;
}

// The candidates to run, in order; false on an unknown name.
bool collect_candidates(const Options& o, const Switcher& sw, int rank, Results* r) {
  for (const auto& name : o.candidates.empty() ? default_candidates() : o.candidates) {
    Candidate c;
    if (!make_candidate(name, &c)) {
      if (rank == 0) std::fprintf(stderr, "topoa2a-bench: unknown candidate %s\n", name.c_str());
      return false;
    }
    if (c.is_ours() && !sw.preloaded()) continue;
    r->candidates.push_back(c);
  }
  return !r->candidates.empty();
}

// All candidates at size index s: validated once, then interleaved
// repetitions. mpich_why: why MPICH's CVAR cannot be switched, if so.
void measure_size(const Options& o, Switcher& sw, const std::string& mpich_why, int rank, int p,
                  std::size_t s, Results* r) {
  const std::size_t m = r->sizes[s];
  Exchange x(o.alltoallv, p, rank, m);
  std::vector<Point>& points = r->points[s];
  std::vector<double> seconds(points.size());
  for (std::size_t c = 0; c < points.size(); ++c) {
    const Candidate& cand = r->candidates[c];
    if (!cand.is_ours() && cand.mpich != "auto" && !mpich_why.empty()) {
      points[c].status = "n/a";
      points[c].note = "MPICH's CVAR cannot be switched: " + mpich_why;
    } else if (!sw.select(cand, &points[c].note)) {
      points[c].status = "n/a";
    } else {
      validate(sw, cand, x, &points[c]);
    }
  }
  const int iterations = o.iterations_for(m);
  for (int rep = 0; rep < o.repetitions; ++rep) {
    for (std::size_t c = 0; c < points.size(); ++c) {
      std::string unused;
      if (points[c].status != "ok" || !sw.select(r->candidates[c], &unused)) continue;
      const double t = time_calls(x, o.warmup_for(m), iterations);
      seconds[c] += t;
      points[c].iterations += iterations;
      const double slowest = reduce(t / iterations * 1e6, MPI_MAX);
      if (rank == 0) points[c].reps.push_back(slowest);
    }
  }
  for (std::size_t c = 0; c < points.size(); ++c) {
    Point& pt = points[c];
    if (pt.status != "ok") continue;
    const double mean = seconds[c] / static_cast<double>(pt.iterations) * 1e6;
    pt.osu_avg = reduce(mean, MPI_SUM) / p;
    pt.osu_min = reduce(mean, MPI_MIN);
    pt.osu_max = reduce(mean, MPI_MAX);
  }
}

int run(const Options& o, int rank, int p) {
  MpiT mpit;
  Switcher sw(mpit, o.alltoallv);
  Results r;
  r.op = o.alltoallv ? "alltoallv" : "alltoall";
  r.np = p;
  r.repetitions = o.repetitions;
  if (!collect_candidates(o, sw, rank, &r)) return 2;
  std::string why;
  const bool mpich_switchable = sw.verify_mpich_honours_writes(&why);
  if (rank == 0) {
    if (!sw.preloaded()) std::printf("# libtopoa2a is not preloaded: MPICH's candidates only\n");
    if (mpich_switchable)
      std::printf("# MPICH's algorithm is switched at run time through MPI_T (values: %s)\n",
                  sw.algorithm_cvar().how().c_str());
    else
      std::printf("# MPICH's algorithms cannot be switched at run time: %s\n", why.c_str());
  }
  if (mpich_switchable) why.clear();
  for (std::size_t m = o.min_size; m <= o.max_size; m *= 2) {
    if (m * static_cast<std::size_t>(p) > INT_MAX) {  // counts and displacements are ints
      if (rank == 0) std::printf("# sizes from %zu bytes skipped: over 2 GiB per rank\n", m);
      break;
    }
    r.sizes.push_back(m);
  }
  r.points.assign(r.sizes.size(), std::vector<Point>(r.candidates.size()));
  for (std::size_t s = 0; s < r.sizes.size(); ++s) {
    measure_size(o, sw, why, rank, p, s, &r);
    if (o.progress && rank == 0)
      std::fprintf(stderr, "topoa2a-bench: %zu bytes done (%zu of %zu sizes)\n", r.sizes[s], s + 1,
                   r.sizes.size());
  }

  Candidate mpich_auto;
  make_candidate("mpich:auto", &mpich_auto);
  std::string unused;
  sw.select(mpich_auto, &unused);  // hand the operation back to MPICH's auto
  if (rank != 0) return 0;
  print_osu_table(stdout, r, 0, o.full);
  print_comparison(stdout, r);
  if (!o.csv.empty() && !write_csv(o.csv, r)) {
    std::fprintf(stderr, "topoa2a-bench: cannot write %s\n", o.csv.c_str());
    return 1;
  }
  int invalid = 0;
  for (const auto& row : r.points)
    for (const auto& pt : row)
      if (pt.status == "invalid") ++invalid;
  if (invalid) std::fprintf(stderr, "topoa2a-bench: %d VALIDATION FAILURES\n", invalid);
  return invalid ? 1 : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  bench::Options options;
  std::string error;
  const bool parsed = bench::parse_options(argc, argv, &options, &error);
  if (parsed && options.list) {  // for scripts: no MPI
    for (const auto& name : bench::default_candidates()) std::printf("%s\n", name.c_str());
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = 0;
  if (!parsed || options.help) {
    if (rank == 0)
      std::fprintf(stderr, "%s%s%s", error.c_str(), error.empty() ? "" : "\n", bench::usage());
    rc = parsed ? 0 : 2;
  } else {
    rc = bench::run(options, rank, p);
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
