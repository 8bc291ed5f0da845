// mesh: two-phase all-to-all on an r x c process grid (rank = row*c + col).
//
// Reference: the seed text. Phase 1: along each row, a ring all-to-all
// (ring_pass) among the c ranks of the row, whose unit from column u to
// column v is the group of r blocks bound for column v. Afterwards each rank
// holds everything its row sends to its column. Phase 2: along each column,
// a ring all-to-all among the r ranks, whose unit from row u to row v is the
// group of c blocks bound for (v, col).
// Rounds: (c-1) + (r-1). Blocks sent per rank: r c(c-1)/2 + c r(r-1)/2.
// Time: (r+c-2)(t_s + t_w m p/2); on a square grid (2 t_s + t_w m p)(sqrt(p)-1).
// Local rearrangement: grouping is done by the executor's packing, no extra
// pass. Restrictions: rows*cols = p (default: the factorisation closest to
// square; a prime p degenerates to a 1 x p ring).
#include "coll/algorithms.h"
#include "coll/ring_pass.h"

namespace topoa2a {

std::string mesh_check(int p, const Params& params) {
  const Grid g = resolve_params(p, params).grid;
  if (g.valid_for(p)) return {};
  return "mesh grid " + std::to_string(g.rows) + "x" + std::to_string(g.cols) + " does not have " +
         std::to_string(p) + " ranks";
}

Round mesh_round(int p, int rank, const Params& params, int k) {
  const Grid g = resolve_params(p, params).grid;
  const int r = g.rows, c = g.cols;
  const int row = rank / c, col = rank % c;
  Round round;
  if (k < c - 1) {
    ring_pass_round(
        round, c, col, +1, c - 1, k + 1, [&](int i) { return row * c + i; },
        [&](int u, int v, std::vector<Block>* out) {
          for (int i = 0; i < r; ++i) out->push_back({row * c + u, i * c + v});
        });
  } else {
    ring_pass_round(
        round, r, row, +1, r - 1, k - (c - 1) + 1, [&](int i) { return i * c + col; },
        [&](int u, int v, std::vector<Block>* out) {
          for (int j = 0; j < c; ++j) out->push_back({u * c + j, v * c + col});
        });
  }
  return round;
}

Schedule mesh_build(int p, int rank, const Params& params) {
  return schedule_from_rounds<mesh_round, mesh_rounds>(p, rank, params);
}

int mesh_rounds(int p, const Params& params) {
  const Grid g = resolve_params(p, params).grid;
  return (g.cols - 1) + (g.rows - 1);
}

long long mesh_blocks_sent(int p, int, const Params& params) {
  const Grid g = resolve_params(p, params).grid;
  const long long r = g.rows, c = g.cols;
  return r * c * (c - 1) / 2 + c * r * (r - 1) / 2;
}

double mesh_time(int p, const Params& params, double ts, double tw, double m) {
  const Grid g = resolve_params(p, params).grid;
  return (g.rows + g.cols - 2) * (ts + tw * m * p / 2.0);
}

}  // namespace topoa2a
