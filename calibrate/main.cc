// topoa2a-calibrate: measures the cost parameters of the machine it runs on
// (t_s and t_w inside a node and across the network, and the overhead o of
// each further message in flight) and writes a cost file for topo_auto
// (MPIR_CVAR_TOPOA2A_COST_FILE). Run once per machine, like osu_latency,
// with ranks on at least two nodes and two ranks per node:
//   mpiexec -n 4 -ppn 2 topoa2a-calibrate -o machine.cost
// docs/man/topoa2a-calibrate.1 describes the options and the output.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "calibrate/level.h"
#include "topology/cost_file.h"

using namespace topoa2a;

namespace {

const char* kUsage =
    "usage: topoa2a-calibrate [-o FILE] [-m MIN:MAX] [-i ITERS] [-r REPEATS] [-k K] [--quick]\n"
    "  -o FILE     write the cost file to FILE (always printed on standard output)\n"
    "  -m MIN:MAX  message sizes in bytes, each 4x the last (default 8:1048576)\n"
    "  -i ITERS    exchanges per point at small sizes (default 100)\n"
    "  -r REPEATS  independent fits, for the spread (default 5)\n"
    "  -k K        most messages in flight, a power of two >= 2 (default 8)\n"
    "  --quick     -m 64:65536 -i 3 -r 2 -k 4 (a test, not a calibration)\n";

bool parse_size(const char* s, size_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || v == 0 || v > (1ULL << 30) || (*end && *end != ':')) return false;
  *out = static_cast<size_t>(v);
  return true;
}

bool parse_int(const char* s, int lo, int hi, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

// On error returns false with the reason in *why.
bool parse_options(int argc, char** argv, CalibrateOptions* opt, std::string* why) {
  size_t min = 8, max = 1 << 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--quick") {
      opt->quick = true;
      min = 64, max = 65536, opt->iters = 3, opt->repeats = 2, opt->max_flight = 4;
    } else if (a == "-h" || a == "--help") {
      *why = "";
      return false;
    } else if (!has_value) {
      *why = "unknown option or missing value: '" + a + "'";
      return false;
    } else if (a == "-o") {
      opt->output = argv[++i];
    } else if (a == "-m") {
      const char* v = argv[++i];
      const char* colon = std::strchr(v, ':');
      if (!colon || !parse_size(v, &min) || !parse_size(colon + 1, &max) || min > max) {
        *why = std::string("-m ") + v + ": expected MIN:MAX, 1 <= MIN <= MAX <= 1073741824";
        return false;
      }
    } else if (a == "-i" || a == "-r" || a == "-k") {
      int* field = a == "-i" ? &opt->iters : a == "-r" ? &opt->repeats : &opt->max_flight;
      const int hi = a == "-k" ? 64 : 1000000;
      if (!parse_int(argv[++i], a == "-k" ? 2 : 1, hi, field) ||
          (a == "-k" && (*field & (*field - 1)))) {
        *why = a + " " + argv[i] + ": expected " +
               (a == "-k" ? "a power of two, 2..64" : "an integer, 1..1000000");
        return false;
      }
    } else {
      *why = "unknown option '" + a + "'";
      return false;
    }
  }
  opt->sizes = size_ladder(min, max);
  if (opt->sizes.size() < 2) {
    *why = "-m: at least two sizes are needed for a fit (MIN < MAX)";
    return false;
  }
  return true;
}

// The report's lines for one level (also the cost file's header).
std::string describe(const char* title, const Pair& p, const LevelResult& r, const std::string& why,
                     const CalibrateOptions& opt) {
  std::string s = std::string(title);
  if (!r.measured) {
    s += ": not measured: " + (why.empty() ? std::string("no repetition could be fitted") : why) +
         "\n";
    return s;
  }
  s += " (ranks " + std::to_string(p.a) + " and " + std::to_string(p.b) + "):\n";
  s += "  t_s " + format_spread(r.ts, 1e-6, "us") + "\n";
  s += "  t_w " + format_spread(r.tw, 1e-9, "ns/B");
  char buf[200];
  std::snprintf(buf, sizeof buf, " = %.3g GB/s\n", r.tw.median > 0 ? 1e-9 / r.tw.median : 0.0);
  s += buf;
  s += "  o   " + format_spread(r.o, 1e-6, "us") + " per further message in flight\n";
  if (r.tw_flight.n > 0 && r.tw_flight.median > 0) {
    std::snprintf(buf, sizeof buf, "  %d in flight: t_w ", opt.max_flight);
    s += buf + format_spread(r.tw_flight, 1e-9, "ns/B");
    std::snprintf(buf, sizeof buf, ", %.2fx the bandwidth of one message\n",
                  r.tw.median / r.tw_flight.median);
    s += buf;
  }
  if (r.pairs > 0 && r.tw_pairs.n > 0 && r.tw_pairs.median > 0) {
    std::snprintf(buf, sizeof buf, "  %d pairs at once: t_w per pair ", r.pairs);
    s += buf + format_spread(r.tw_pairs, 1e-9, "ns/B");
    std::snprintf(buf, sizeof buf, ", together %.2fx the bandwidth of one pair\n",
                  r.pairs * r.tw.median / r.tw_pairs.median);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  fit: worst relative rms residual %.1f%%\n", 100 * r.rms);
  s += buf;
  for (const std::string& n : r.notes) s += "  note: " + n + "\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CalibrateOptions opt;
  std::string why;
  if (!parse_options(argc, argv, &opt, &why)) {
    if (rank == 0) std::fprintf(stderr, "%s%s%s", why.c_str(), why.empty() ? "" : "\n", kUsage);
    MPI_Finalize();
    return why.empty() ? 0 : 2;
  }
  const Levels lv = find_levels(MPI_COMM_WORLD);
  LevelResult intra, inter;
  if (!lv.intra.empty()) intra = measure_level(MPI_COMM_WORLD, lv.intra[0], {}, opt);
  if (!lv.inter.empty()) inter = measure_level(MPI_COMM_WORLD, lv.inter[0], lv.inter_n, opt);
  int status = intra.failed || inter.failed ? 1 : 0;
  if (rank == 0) {
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
    char line[400];
    std::snprintf(line, sizeof line,
                  "topoa2a-calibrate on %s, %s: %d ranks on %d node(s)\n"
                  "sizes %zu..%zu B (%zu), %d iterations, %d repetitions, up to %d in flight%s\n",
                  host, date, size, lv.nodes, opt.sizes.front(), opt.sizes.back(), opt.sizes.size(),
                  opt.iters, opt.repeats, opt.max_flight,
                  opt.quick ? " (--quick: a test, not a calibration)" : "");
    std::string report = line;
    report +=
        describe("same node", lv.intra.empty() ? Pair{} : lv.intra[0], intra, lv.intra_why, opt);
    report +=
        describe("network", lv.inter.empty() ? Pair{} : lv.inter[0], inter, lv.inter_why, opt);
    CostParams c;
    std::vector<std::string> keys;
    if (intra.measured) {
      c.ts_intra = intra.ts.median, c.tw_intra = link_tw(intra.tw, intra.tw_flight);
      keys.insert(keys.end(), {"ts_intra", "tw_intra"});
    }
    if (inter.measured) {
      c.ts_inter = inter.ts.median, c.tw_inter = link_tw(inter.tw, inter.tw_flight);
      c.o = inter.o.median;
      keys.insert(keys.end(), {"ts_inter", "tw_inter", "o"});
    }
    report += "written: the medians of the measured levels (t_w: one message's, or " +
              std::to_string(opt.max_flight) + " in flight's where slower); ts_hop is not measured";
    report += inter.measured ? "" : "; the network's keys keep their defaults";
    report += "\n";
    std::printf("%s\n", report.c_str());
    if (intra.failed || inter.failed)
      std::fprintf(stderr, "topoa2a-calibrate: an MPI call failed\n");
    if (keys.empty()) {
      std::fprintf(stderr, "topoa2a-calibrate: nothing could be measured (%d rank%s)\n", size,
                   size == 1 ? "" : "s");
      status = 1;
    }
    const std::string file = write_cost_file(c, keys, report);
    std::printf("%s", file.c_str());
    if (status == 0 && !opt.output.empty()) {
      FILE* f = std::fopen(opt.output.c_str(), "w");
      const bool ok = f && std::fputs(file.c_str(), f) >= 0;
      if (f && std::fclose(f) != 0) status = 1;
      if (!ok || status) {
        std::fprintf(stderr, "topoa2a-calibrate: cannot write %s: %s\n", opt.output.c_str(),
                     std::strerror(errno));
        status = 1;
      }
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
