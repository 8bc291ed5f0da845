// sim_a2a: times topoa2a's all-to-all algorithms, topo_auto's choice and
// MPI_Alltoall under SimGrid SMPI (built with smpicxx, see sim/Makefile).
//
// The algorithms run through coll/run.h (run_on_comm: schedule, plan and the
// PMPI transport, the same code as the plugin). topo_auto's choice is the
// cost model of topology/cost_model.h over a forced topology that mirrors the
// simulated platform (--topology, MPIR_CVAR_TOPOA2A_TOPOLOGY syntax), with
// t_s / t_w given by --cost. MPI_Alltoall runs whatever SMPI algorithm
// --cfg=smpi/alltoall:NAME selected; --mpi-label names it in the output.
// mpich_brucks / mpich_scattered / mpich_pairwise run sim/mpich_algs.h's
// reproductions of MPICH 4.0.2's algorithms; mpich_default runs the one
// MPICH 4.0.2's shipped tuning picks for each size (choice column), as
// topo_auto does when it picks one of MPICH's.
//
// --topology may give a node layout (nodes:NxQ,fat_tree): every rank builds
// that Topology (no communication) and the algorithms run with the
// parameters derived from it (algorithm_params).
//
// Payload: 8-byte words (src << 40 | dst << 20 | index), so a block that
// lands in the wrong place, or a word out of order, is caught by --check.
//
// Output (rank 0, stdout and --csv): one line per (algorithm, size)
//   platform,p,algorithm,bytes,time_s,rounds,choice,model_s,check
// time_s: all ranks start at one simulated instant (synchronized_start);
// the time until the last rank ends, per call (mean over --iters). model_s is the
// seed formula at --cost's ts_inter / tw_inter (ours) or topo_auto's
// predicted time (the cost model, congestion included); choice is what
// topo_auto picked. check: ok, WRONG, error or unchecked.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/run.h"
#include "sim/auto_choice.h"
#include "sim/harness.h"
#include "sim/mpich_algs.h"
#include "sim/options.h"
#include "topology/cost_file.h"
#include "topology/cost_model.h"
#include "topology/node_layout.h"
#include "topology/topology.h"

namespace {

using sim::AutoChoice;
using sim::AutoModel;
using sim::Buffers;
using sim::count_errors;
using sim::fill;
using sim::synchronized_start;

using topoa2a::Algorithm;
using topoa2a::Params;

using sim::cost_or_exit;
using sim::Options;
using sim::parse;
using sim::topology_or_exit;
using sim::usage;

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const Options o = parse(argc, argv);

  // A private duplicate for our traffic, as the plugin does.
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  FILE* csv = nullptr;
  if (me == 0 && !o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "a");
    if (!csv) usage(("cannot open " + o.csv).c_str());
  }
  if (o.explain_p > 0) {
    // The model's price of every candidate, congestion included (one rank
    // does it; nothing is simulated): platform,p,algorithm,bytes,predicted_s,
    // ts_eff,tw_eff,congestion,chosen.
    if (me == 0) {
      const AutoModel m(topology_or_exit(o.explain_p, o), cost_or_exit(o));
      for (long bytes : o.sizes) {
        const topoa2a::Choice c = m.model().choose(static_cast<size_t>(bytes));
        for (const topoa2a::Estimate& e : c.considered)
          if (e.applicable)
            std::printf("%s,%d,%s,%ld,%.6e,%.4g,%.4g,%.3g,%s\n", o.platform.c_str(), o.explain_p,
                        e.algorithm.c_str(), bytes, e.predicted, e.ts_eff, e.tw_eff, e.congestion,
                        e.algorithm == c.algorithm ? "chosen" : "");
      }
    }
    MPI_Finalize();
    return 0;
  }
  const bool want_auto = std::find(o.algs.begin(), o.algs.end(), "topo_auto") != o.algs.end();
  // Only rank 0 builds the model (its cost grows with p); the choice is
  // broadcast, as every rank of the plugin makes the same choice.
  std::unique_ptr<AutoModel> model;
  const topoa2a::Topology topo = topology_or_exit(p, o);
  if (want_auto && me == 0) model = std::make_unique<AutoModel>(topo, cost_or_exit(o));
  const Params base_params = sim::algorithm_params(topo, p);
  const auto layout = topoa2a::node_layout_for(topo);
  if (me == 0 && model)
    std::fprintf(stderr, "sim_a2a: p=%d platform=%s model network: %s, cost %s\n", p,
                 o.platform.c_str(), model->describe().c_str(),
                 topoa2a::to_string(model->cost()).c_str());

  const topoa2a::CostParams seed_cost = cost_or_exit(o);

  if (o.shared) sim::use_shared_scratch();
  int failures = 0;
  for (long m : o.sizes) {
    const long words = m / 8;
    Buffers buf(static_cast<size_t>(m) * p, o.shared);
    for (const std::string& name : o.algs) {
      const bool is_mpich = name.rfind("mpich_", 0) == 0;
      std::string label = name == "mpi" ? o.mpi_label : is_mpich ? "mpich:" + name.substr(6) : name;
      std::string choice;
      std::string mpich;  // the MPICH algorithm to run (reproduction), if any
      double predicted = 0;
      const Algorithm* algo = nullptr;
      Params params = base_params;
      // The schedule's default, as the plugin's forced algorithms, or --window
      // (MPIR_CVAR_TOPOA2A_WINDOW's meaning: messages in flight per rank).
      int window = o.window > 0 ? o.window : -1;
      if (name == "topo_auto") {
        const AutoChoice c =
            sim::broadcast_choice(model.get(), static_cast<size_t>(m), base_params);
        predicted = c.predicted;
        choice = c.algorithm;
        if (c.algorithm == "mesh")
          choice +=
              ":" + std::to_string(c.params.grid.rows) + "x" + std::to_string(c.params.grid.cols);
        if (c.algorithm == "multileader")
          choice += c.params.leaders > 0 ? ":k=" + std::to_string(c.params.leaders) : ":k=q";
        algo = topoa2a::find_algorithm(c.algorithm);
        params = algo ? sim::algorithm_params(*algo, topo, layout, c.params) : c.params;
        window = c.window;
        // Not ours: one of MPICH's (brucks, pairwise, scattered), run as
        // MPICH runs it, as the plugin hands it to MPICH.
        if (!algo) mpich = c.algorithm;
      } else if (name == "mpich_default") {
        mpich = choice = sim::mpich_default_choice(p, m, false);
      } else if (is_mpich) {
        mpich = name.substr(6);
      } else if (name != "mpi") {
        algo = topoa2a::find_algorithm(name);
        if (!algo) usage(("unknown algorithm " + name).c_str());
        params = sim::algorithm_params(*algo, topo, layout, params);
        const std::string why = algo->check(p, params);
        if (!why.empty()) {
          if (me == 0) std::fprintf(stderr, "sim_a2a: %s skipped: %s\n", name.c_str(), why.c_str());
          continue;
        }
        // The seed's formula at the platform's network t_s, t_w.
        predicted =
            algo->time(p, params, seed_cost.ts_inter, seed_cost.tw_inter, static_cast<double>(m));
      }
      if (!mpich.empty() && mpich != "brucks" && mpich != "scattered" && mpich != "pairwise")
        usage(("no reproduction of MPICH's " + mpich).c_str());
      if (o.check) fill(buf, me, p, words);
      topoa2a::RunStats stats;
      const topoa2a::AlltoallArgs args{buf.send, static_cast<int>(words), MPI_UINT64_T,
                                       buf.recv, static_cast<int>(words), MPI_UINT64_T};
      auto once = [&]() {
        int err;
        if (algo) {
          std::string why;
          err = topoa2a::run_on_comm(*algo, params, args, comm, &stats, &why, window);
          if (err != MPI_SUCCESS && me == 0)
            std::fprintf(stderr, "sim_a2a: %s failed: %d %s\n", label.c_str(), err, why.c_str());
        } else if (!mpich.empty()) {
          err = sim::run_mpich(mpich, buf.send, buf.recv, m, comm);
        } else {
          err = MPI_Alltoall(buf.send, static_cast<int>(words), MPI_UINT64_T, buf.recv,
                             static_cast<int>(words), MPI_UINT64_T, MPI_COMM_WORLD);
        }
        return err;
      };
      int err = MPI_SUCCESS;
      for (int i = 0; i < o.warmup && err == MPI_SUCCESS; ++i) err = once();
      long bad = 0;
      if (o.check && err == MPI_SUCCESS) bad = count_errors(buf, me, p, words);
      // From one common start to the last rank's end (per call).
      double late = 0;
      const double t0 = synchronized_start(MPI_COMM_WORLD, &late);
      for (int i = 0; i < o.iters && err == MPI_SUCCESS; ++i) err = once();
      const double mine = (MPI_Wtime() - t0) / o.iters;
      if (o.check && err == MPI_SUCCESS && o.warmup == 0) bad = count_errors(buf, me, p, words);
      double slowest = 0;
      long total_bad = 0;
      int any_err = err != MPI_SUCCESS || late > 0;
      if (late > 0)
        std::fprintf(stderr, "sim_a2a: rank %d started %s %ld B %.3g us late\n", me, label.c_str(),
                     m, late * 1e6);
      MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &any_err, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (me == 0) {
        const char* status = any_err     ? "error"
                             : !o.check  ? "unchecked"
                             : total_bad ? "WRONG"
                                         : "ok";
        if (any_err || total_bad) ++failures;
        const int rounds = o.iters + o.warmup > 0 ? stats.rounds / (o.iters + o.warmup) : 0;
        char line[512];
        std::snprintf(line, sizeof line, "%s,%d,%s,%ld,%.6e,%d,%s,%.6e,%s\n", o.platform.c_str(), p,
                      label.c_str(), m, slowest, rounds, choice.c_str(), predicted, status);
        std::fputs(line, stdout);
        std::fflush(stdout);
        if (csv) std::fputs(line, csv);
        if (total_bad)
          std::fprintf(stderr, "sim_a2a: %s m=%ld: %ld wrong words\n", label.c_str(), m, total_bad);
      }
    }
  }
  if (csv) std::fclose(csv);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return me == 0 && failures ? 1 : 0;
}
