// One level (two ranks of a node, or of two nodes) measured and fitted:
// t_s and t_w from one message at several sizes, the overhead o of each
// further message in flight, and whether several messages in flight (or
// several pairs at once) get more bandwidth than one.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "calibrate/fit.h"
#include "calibrate/measure.h"

namespace topoa2a {

struct CalibrateOptions {
  std::vector<size_t> sizes;  // message sizes for the t_s / t_w fit
  int iters = 100;            // exchanges per point at small sizes (fewer for large ones)
  int repeats = 5;            // independent fits, for the spread
  int max_flight = 8;         // most messages in flight (k = 1, 2, 4, ..)
  std::string output;         // cost file path ("" : print only)
  bool quick = false;
};

struct LevelResult {
  bool measured = false;
  bool failed = false;             // an MPI call failed
  Spread ts, tw;                   // one message: start-up (s), per byte (s/B)
  Spread o;                        // each further message in flight (s)
  Spread tw_flight;                // per byte with max_flight messages in flight on the pair
  double rms = 0;                  // worst relative rms residual of the t_s / t_w fits
  std::vector<std::string> notes;  // fits that had to be bounded
  int pairs = 0;                   // pairs at once in `tw_pairs` (0: not measured)
  Spread tw_pairs;                 // per byte per pair, `pairs` pairs at once
};

// Collective over `comm`; every rank returns the same result. `crowd`:
// pairs to run at once for tw_pairs (empty: not measured).
LevelResult measure_level(MPI_Comm comm, const Pair& pair, const std::vector<Pair>& crowd,
                          const CalibrateOptions& opt);

}  // namespace topoa2a
