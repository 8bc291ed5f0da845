// The topology-aware cost model behind "topo_auto".
//
// Every candidate's messages come from its schedule: the algorithm table's
// per-round generator (Algorithm::round) gives, for each rank and round,
// the peer and number of blocks of each send; MPICH's brucks, pairwise and
// scattered, which are not in the table, have their patterns in
// mpich_patterns.cc. The model routes the messages of sampled rounds over
// the topology's links (a node's NIC on a switch; a routed link on a ring /
// mesh / torus / hypercube; a dragonfly's bundle of global links) and
// prices each step, a round or a window of messages in flight, as one
// latency plus the busiest link's bytes times t_w (topology/README.md,
// "Cost model", has the formulas). For the table's direct algorithms it
// also chooses the window (messages in flight per rank).
#pragma once

#include <cstddef>
#include <memory>
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
  double o = 0.25e-6;        // per network message, the part of ts_inter that serialises at
                             // the rank when several are in flight (posting, matching)
  double g_nic = 0;          // per network message, the gap at a node's NIC: the messages
                             // the ranks of one node send in one step serialise there by
                             // this much each (LogGP's g; 0: not modelled)
};

// Parse MPIR_CVAR_TOPOA2A_COST: "key=value[,key=value...]" with keys
// ts_intra, tw_intra, ts_inter, tw_inter, ts_hop, o, g_nic; a value is a non-negative number
// with an optional unit: s, ms, us, ns, ps (tw: per byte). Keys not given
// keep their value in *inout. On error returns false and sets *error.
// `given` (optional): the keys it set are appended.
bool parse_cost_params(const std::string& text, CostParams* inout, std::string* error,
                       std::vector<std::string>* given = nullptr);
std::string to_string(const CostParams& c);  // "ts_intra=0.5us,tw_intra=0.1ns,..."
// The cost parameters of a detected topology: the defaults, overridden by
// its cost file (t.cost_file_text), overridden key by key by t.cost_text
// (resolve_cost, topology/cost_file.h). On a malformed value returns the
// defaults and sets *error. `from` (optional): where each key of
// cost_keys() came from ("default", "file:PATH", "MPIR_CVAR_TOPOA2A_COST").
CostParams cost_params_for(const Topology& t, std::string* error,
                           std::vector<std::string>* from = nullptr);

// The keys of CostParams in to_string's order: ts_intra, tw_intra, ...
std::vector<std::string> cost_keys();
// The field of `key` in *c (nullptr for an unknown key).
double* cost_field(CostParams* c, const std::string& key);
// One value of MPIR_CVAR_TOPOA2A_COST or the cost file: a non-negative
// number with an optional unit (s, ms, us, ns, ps; "/B" allowed), in seconds.
bool parse_cost_value(const std::string& value, double* out, std::string* why);
// `v` in the unit to_string prints for `key`: "0.5us", "0.1ns".
std::string format_cost_value(const std::string& key, double v);

// The algorithms the model can price: the table's, then MPICH's "brucks",
// "pairwise" and "scattered".
std::vector<std::string> default_candidates();

// One candidate's price.
struct Estimate {
  std::string algorithm;
  bool applicable = false;
  std::string why_not;            // when not applicable
  Params params;                  // mesh: the grid priced
  std::string params_note;        // e.g. "rows=nodes", "cart", "default"
  double predicted = 0;           // seconds
  int rounds = 0;                 // steps priced: rounds (window 0) or windows
  int window = 0;                 // messages in flight per rank; 0 = round by round
  double ts_eff = 0, tw_eff = 0;  // per step: mean start-up, mean per-byte cost of its busiest
                                  // link per byte of its largest message (diagnostics)
  double network_fraction = 0;    // share of steps that use the network
  double congestion = 0;          // mean over network steps: busiest link / largest message
  double extra_hops = 0;          // links beyond the first, summed over the network steps
};

struct Choice {
  std::string algorithm;  // empty when no candidate applies
  Params params;
  double predicted = 0;  // seconds
  int window = 0;        // messages in flight per rank for the executor; 0 = round by round
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
  // The same with the window fixed: `window` messages in flight per rank (0:
  // round by round), one of the windows the model tries for the algorithm
  // (Estimate::window of its plans; MPICH's algorithms have only their own).
  // Not applicable when the model does not try that window.
  Estimate estimate(const std::string& algorithm, size_t m, int window) const;
  // The windows the model tries for `algorithm` (empty if not a candidate).
  std::vector<int> windows(const std::string& algorithm) const;

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

  // One (algorithm, params) with its step statistics (message-size free).
  struct Step {
    double weight = 0;        // steps this sample stands for
    bool network = false;     // some message crosses the network
    double net_load = 0;      // busiest network link, in blocks
    double max_msg = 0;       // largest message, in blocks
    double net_msgs = 0;      // most network messages of one rank
    double nic_msgs = 0;      // most network messages sent from one node (unit)
    double intra_msgs = 0;    // most in-node messages of one rank
    double rank_blocks = 0;   // most blocks one rank sends
    double intra_blocks = 0;  // most blocks one rank sends inside its node
    double extra_hops = 0;    // mean links beyond the first of the network messages
  };
  struct Plan {
    int window = 0;         // messages in flight per rank (0: round by round)
    bool windowed = false;  // priced as windows (messages in flight) rather than rounds
    int steps = 0;          // rounds or windows
    std::vector<Step> samples;
  };
  struct Option {
    std::string algorithm;
    Params params;
    std::string note;
    std::string why_not;  // not applicable when non-empty
    int rounds = 0;
    std::vector<Plan> plans;          // one per window candidate
    std::vector<int> sampled_rounds;  // the rounds routed for plans[0]
  };
  // The options priced for `algorithm` (empty when it is not a candidate).
  const std::vector<Option>& options(const std::string& algorithm) const;

 private:
  Estimate price(const Option& o, size_t m, int window = -1) const;
  double price_step(const Plan& plan, const Step& s, double m) const;
  std::vector<Option> options_for(const std::string& algorithm) const;

  Topology topo_;
  std::shared_ptr<const NodeLayout> layout_;  // node_layout_for(topo_), built once
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
// The same from a model already built.
std::vector<DecisionRow> decision_table(const CostModel& model, size_t min_bytes = 1,
                                        size_t max_bytes = size_t{16} << 20);

// "12.3 us", "4.56 ms", ... for messages.
std::string format_seconds(double s);
// "64 B", "4 KiB", "16 MiB".
std::string format_bytes(size_t b);

// The messages (peer, blocks) that `rank` sends in round k of `algorithm` as
// the model prices them (from the table's round generator or MPICH's
// pattern); false when the model does not know the name. Exposed for tests.
struct ModelMessage {
  int peer = -1;
  long long blocks = 0;
};
bool model_messages(const std::string& algorithm, int p, const Params& params, int rank, int k,
                    std::vector<ModelMessage>* out);

}  // namespace topoa2a
