// Results of a run and their three forms: osu_alltoall's table (one
// candidate), the comparison of all candidates, and CSV.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/candidates.h"

namespace bench {

// One candidate at one size.
struct Point {
  std::string status = "ok";  // ok, n/a, invalid
  std::string note;           // why not ok
  std::string ran;            // what topoa2a's statistics saw run ("ring", "mpich", ...)
  std::vector<double> reps;   // us per call, per repetition: the slowest rank's mean
  // As osu_alltoall, over every timed call of all repetitions: each rank's
  // mean, then the average, minimum and maximum over ranks.
  double osu_avg = 0, osu_min = 0, osu_max = 0;
  long long iterations = 0;  // timed calls per rank

  bool ok() const { return status == "ok" && !reps.empty(); }
  double median() const;
  double min() const;
  double max() const;
};

struct Results {
  std::string op;  // "alltoall" or "alltoallv"
  int np = 0;
  int repetitions = 0;
  std::vector<std::size_t> sizes;
  std::vector<Candidate> candidates;
  std::vector<std::vector<Point>> points;  // [size][candidate]

  int fastest(std::size_t size_index) const;  // candidate index, -1 if none ran
  // Median over MPICH auto's median at this size; negative when unknown.
  double ratio(std::size_t size_index, std::size_t candidate) const;
};

void print_osu_table(std::FILE* out, const Results& r, std::size_t candidate, bool full);
// Every line starts with '#', so that OSU parsers skip it.
void print_comparison(std::FILE* out, const Results& r);
bool write_csv(const std::string& path, const Results& r);

}  // namespace bench
