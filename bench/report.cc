#include "bench/report.h"

#include <algorithm>
#include <fstream>

namespace bench {
namespace {

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string csv_field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  return s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

double Point::median() const {
  const auto v = sorted(reps);
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Point::min() const { return *std::min_element(reps.begin(), reps.end()); }
double Point::max() const { return *std::max_element(reps.begin(), reps.end()); }

int Results::fastest(std::size_t s) const {
  int best = -1;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (points[s][c].ok() &&
        (best < 0 || points[s][c].median() < points[s][static_cast<std::size_t>(best)].median()))
      best = static_cast<int>(c);
  return best;
}

double Results::ratio(std::size_t s, std::size_t c) const {
  for (std::size_t a = 0; a < candidates.size(); ++a)
    if (candidates[a].label == "mpich:auto" && points[s][a].ok() && points[s][c].ok())
      return points[s][c].median() / points[s][a].median();
  return -1;
}

// osu_alltoall's layout: "%-10d" size, "%18.2f" per latency, "%12lu" iterations.
void print_osu_table(std::FILE* out, const Results& r, std::size_t c, bool full) {
  std::fprintf(out, "# OSU MPI All-to-All%s Personalized Exchange Latency Test\n",
               r.op == "alltoallv" ? "v" : "");
  std::fprintf(out, "# topoa2a-bench: candidate %s, %d ranks\n", r.candidates[c].label.c_str(),
               r.np);
  std::fprintf(out, "%-10s%18s", "# Size", "Avg Latency(us)");
  if (full) std::fprintf(out, "%18s%18s%12s", "Min Latency(us)", "Max Latency(us)", "Iterations");
  std::fprintf(out, "\n");
  for (std::size_t s = 0; s < r.sizes.size(); ++s) {
    const Point& p = r.points[s][c];
    if (!p.ok()) {
      std::fprintf(out, "# %zu %s: %s\n", r.sizes[s], p.status.c_str(), p.note.c_str());
      continue;
    }
    std::fprintf(out, "%-10zu%18.2f", r.sizes[s], p.osu_avg);
    if (full) std::fprintf(out, "%18.2f%18.2f%12lld", p.osu_min, p.osu_max, p.iterations);
    std::fprintf(out, "\n");
  }
  std::fflush(out);
}

void print_comparison(std::FILE* out, const Results& r) {
  std::fprintf(out,
               "#\n# Comparison, %s, %d ranks: median over %d interleaved repetitions of the "
               "slowest rank's mean latency (us);\n# (x.xx) = median / mpich:auto's median; "
               "* = fastest; n/a = cannot run here\n",
               r.op.c_str(), r.np, r.repetitions);
  std::fprintf(out, "# %-8s", "Size");
  for (const auto& c : r.candidates) std::fprintf(out, "%18s", c.label.c_str());
  std::fprintf(out, "  fastest\n");
  for (std::size_t s = 0; s < r.sizes.size(); ++s) {
    const int best = r.fastest(s);
    std::fprintf(out, "# %-8zu", r.sizes[s]);
    for (std::size_t c = 0; c < r.candidates.size(); ++c) {
      const Point& p = r.points[s][c];
      char cell[64] = "n/a";
      if (p.status == "invalid") std::snprintf(cell, sizeof cell, "INVALID");
      if (p.ok()) {
        const double q = r.ratio(s, c);
        std::snprintf(cell, sizeof cell, "%s%.2f (%.2f)", static_cast<int>(c) == best ? "*" : "",
                      p.median(), q);
        if (q < 0) std::snprintf(cell, sizeof cell, "%.2f", p.median());
      }
      std::fprintf(out, "%18s", cell);
    }
    std::fprintf(out, "  %s\n",
                 best < 0 ? "-" : r.candidates[static_cast<std::size_t>(best)].label.c_str());
  }
  std::fflush(out);
}

bool write_csv(const std::string& path, const Results& r) {
  std::ofstream out(path);
  out << "op,np,size,candidate,status,ran,median_us,min_us,max_us,ratio_to_mpich_auto,fastest,"
         "osu_avg_us,osu_min_us,osu_max_us,iterations,repetitions,note\n";
  for (std::size_t s = 0; s < r.sizes.size(); ++s) {
    const int best = r.fastest(s);
    const std::string fastest = best < 0 ? "" : r.candidates[static_cast<std::size_t>(best)].label;
    for (std::size_t c = 0; c < r.candidates.size(); ++c) {
      const Point& p = r.points[s][c];
      out << r.op << ',' << r.np << ',' << r.sizes[s] << ',' << r.candidates[c].label << ','
          << p.status << ',' << csv_field(p.ran) << ',';
      if (p.ok()) {
        const double q = r.ratio(s, c);
        out << number(p.median()) << ',' << number(p.min()) << ',' << number(p.max()) << ','
            << (q < 0 ? "" : number(q)) << ',' << fastest << ',' << number(p.osu_avg) << ','
            << number(p.osu_min) << ',' << number(p.osu_max) << ',' << p.iterations;
      } else {
        out << ",,,," << fastest << ",,,,";
      }
      out << ',' << r.repetitions << ',' << csv_field(p.note) << '\n';
    }
  }
  return static_cast<bool>(out);
}

}  // namespace bench
