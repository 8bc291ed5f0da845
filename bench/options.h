// Command line of topoa2a-bench: osu_alltoall's options, plus the
// candidate list, CSV path and repetitions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bench {

struct Options {
  std::size_t min_size = 1;             // -m MIN:MAX, bytes per peer
  std::size_t max_size = 1 << 20;       //
  int iterations = -1;                  // -i; -1: 100, or 20 above kLargeMessage
  int warmup = -1;                      // -x; -1: 10, or 2 above kLargeMessage
  bool full = false;                    // -f: min, max and iterations columns
  bool alltoallv = false;               // -a / --alltoallv
  int repetitions = 5;                  // -r
  std::vector<std::string> candidates;  // -c a,b,c; empty: all
  std::string csv;                      // --csv PATH
  bool help = false;
  bool list = false;      // -l: print the default candidates and exit (no MPI)
  bool progress = false;  // --progress: a line on stderr per size done

  int iterations_for(std::size_t size) const;
  int warmup_for(std::size_t size) const;
};

constexpr std::size_t kLargeMessage = 8192;  // as osu_alltoall

// False with a message in *error on a bad command line.
bool parse_options(int argc, char** argv, Options* options, std::string* error);
const char* usage();

}  // namespace bench
