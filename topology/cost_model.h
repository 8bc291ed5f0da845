// The topology-aware cost model behind "topo_auto".
//
// Each candidate is priced with its seed formula (the algorithm table's
// time(p, params, ts, tw, m); MPICH's brucks, pairwise and scattered get
// their standard formulas) evaluated at effective t_s / t_w: the average over the
// algorithm's rounds of the round's cost parameters. A round whose messages
// all stay inside a node costs (ts_intra, tw_intra); a round with a message
// that crosses the network costs (ts_inter, tw_inter * congestion), where
// congestion is the largest number of the round's messages that share one
// link (a node's NIC on a switch; a routed link on a ring / mesh / torus /
// hypercube; a dragonfly's bundle of global links between two groups). Each
// network round also pays ts_hop for every link beyond the first on its
// messages' routes (averaged over the round's messages). The model is
// described in topology/README.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "coll/schedule.h"
#include "topology/topology.h"

namespace topoa2a {

// Seconds per message (ts) and seconds per byte (tw), inside a node and
// across the network. Defaults: see README.md.
struct CostParams {
  double ts_intra = 0.5e-6;  // shared-memory message latency
  double tw_intra = 0.1e-9;  // 10 GB/s per rank inside a node
  double ts_inter = 2.0e-6;  // network message latency
  double tw_inter = 0.1e-9;  // 10 GB/s per link / NIC (100 Gb/s class)
  double ts_hop = 0;         // per link beyond the first on a route (0: not modelled)
};

// Parse MPIR_CVAR_TOPOA2A_COST: "key=value[,key=value...]" with keys
// ts_intra, tw_intra, ts_inter, tw_inter, ts_hop; a value is a non-negative number
// with an optional unit: s, ms, us, ns, ps (tw: per byte). Keys not given
// keep their value in *inout. On error returns false and sets *error.
bool parse_cost_params(const std::string& text, CostParams* inout, std::string* error);
std::string to_string(const CostParams& c);  // "ts_intra=0.5us,tw_intra=0.1ns,..."
// The cost parameters of a detected topology: the defaults overridden by
// t.cost_text. On a malformed value returns the defaults and sets *error.
CostParams cost_params_for(const Topology& t, std::string* error);

// The algorithms the model can price: the table's, then MPICH's "brucks",
// "pairwise" and "scattered".
std::vector<std::string> default_candidates();

// One candidate's price.
struct Estimate {
  std::string algorithm;
  bool applicable = false;
  std::string why_not;      // when not applicable
  Params params;            // mesh: the grid priced
  std::string params_note;  // e.g. "rows=nodes", "cart", "default"
  double predicted = 0;     // seconds
  int rounds = 0;
  double ts_eff = 0, tw_eff = 0;  // the averaged parameters used
  double network_fraction = 0;    // share of rounds that use the network
  double congestion = 0;          // mean congestion of the network rounds
  double extra_hops = 0;          // links beyond the first, summed over the network rounds
};

struct Choice {
  std::string algorithm;  // empty when no candidate applies
  Params params;
  double predicted = 0;  // seconds
  std::string reason;
  std::vector<Estimate> considered;  // every candidate, in candidate order
};

// Precomputes the per-round statistics of each candidate for one topology
// (independent of the message size); then prices any size cheaply.
// Immutable after construction, so it may be shared between threads.
class CostModel {
 public:
  CostModel(const Topology& topo, const CostParams& cost,
            const std::vector<std::string>& candidates = default_candidates());

  // Best price of `algorithm` (over its parameter choices, e.g. mesh grids)
  // for blocks of m bytes. Names outside the constructor's candidates are
  // priced on the fly.
  Estimate estimate(const std::string& algorithm, size_t m) const;

  // The argmin over the constructor's candidates. Ties (relative difference
  // below 1e-9) go to the earlier candidate, except that on a switch-like
  // network (switch, fat_tree, dragonfly, unknown) that the communicator spans,
  // onefactor_xor counts as coming just before onefactor (its pairing is
  // contention-free under a fat tree's static routing). With `in_place`
  // (MPI_IN_PLACE), MPICH's algorithms marked noinplace in its
  // coll_algorithms.txt (brucks, pairwise, scattered) do not apply.
  Choice choose(size_t m, bool in_place = false) const;

  const Topology& topology() const { return topo_; }
  const CostParams& cost() const { return cost_; }

  // One (algorithm, params) with its round statistics (message-size free).
  struct Option {
    std::string algorithm;
    Params params;
    std::string note;
    std::string why_not;  // not applicable when non-empty
    int rounds = 0;
    double network_weight = 0;     // rounds that use the network
    double congestion_weight = 0;  // sum over those rounds of the congestion
    double tw_net_weight = 0;      // sum over those of max(tw_intra, tw_inter * congestion)
    double hop_weight = 0;         // sum over those of the mean links beyond the first
    double total_weight = 0;       // rounds
    // scattered: its batches (rounds stand for MPICH's batches of messages
    // in flight together), priced one by one (see price()).
    struct Batch {
      double weight = 0;      // batches this one stands for
      int messages = 0;       // per rank
      bool network = false;   // some message crosses the network
      double congestion = 1;  // busiest link's load over the messages per rank
    };
    std::vector<Batch> batches;
  };

 private:
  Estimate price(const Option& o, size_t m) const;
  std::vector<Option> options_for(const std::string& algorithm) const;

  Topology topo_;
  CostParams cost_;
  std::vector<std::string> candidates_;
  std::vector<std::vector<Option>> options_;  // per candidate
};

// Convenience: CostModel(topo, cost, candidates).choose(bytes_per_block).
Choice choose_auto(const Topology& topo, size_t bytes_per_block, const CostParams& cost,
                   const std::vector<std::string>& candidates = default_candidates());

struct DecisionRow {
  size_t bytes = 0;  // per block
  Choice choice;
};

// The choice at each power of two from min_bytes to max_bytes (default
// 1 B .. 16 MiB).
std::vector<DecisionRow> decision_table(
    const Topology& topo, const CostParams& cost,
    const std::vector<std::string>& candidates = default_candidates(), size_t min_bytes = 1,
    size_t max_bytes = size_t{16} << 20);

// "12.3 us", "4.56 ms", ... for messages.
std::string format_seconds(double s);
// "64 B", "4 KiB", "16 MiB".
std::string format_bytes(size_t b);

// Internal, exposed for tests: the peers `rank` sends to in `round` of the
// pattern the model assumes for `algorithm` (must mirror the schedules).
std::vector<int> model_send_peers(const std::string& algorithm, int p, const Params& params,
                                  int round, int rank);
int model_rounds(const std::string& algorithm, int p, const Params& params);

}  // namespace topoa2a
