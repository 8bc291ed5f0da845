// Selection rules in MPICH's JSON tuning format
// (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, maint/tuning/coll/*.json),
// read with MPICH 4.0.2's key grammar (src/mpi/coll/src/csel.c) and search
// semantics: the keys of an object are tried in order; the first whose
// condition holds is descended into (no backtracking); a leaf
// "algorithm=NAME" / "composition=NAME" ends the search. Example:
//
//   { "collective=alltoall": { "comm_type=intra": {
//       "avg_msg_size<=256":  { "algorithm=MPIR_Alltoall_intra_brucks": {} },
//       "comm_size=pow2":     { "algorithm=MPIR_Alltoall_intra_hypercube": {} },
//       "comm_size=any":      { "algorithm=MPIR_Alltoall_intra_ring": {} } } } }
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace topoa2a {

struct RuleNode {
  enum class Op {
    kLeaf,               // algorithm=... / composition=...
    kCollective,         // collective=NAME
    kCommTypeIntra,      // comm_type=intra
    kCommTypeInter,      // comm_type=inter
    kCommSizeLe,         // comm_size<=N
    kCommSizeLt,         // comm_size<N
    kCommSizePow2,       // comm_size=pow2
    kCommSizeNode,       // comm_size=node_comm_size
    kCommSizeAny,        // comm_size=any
    kAvgMsgSizeLe,       // avg_msg_size<=N
    kAvgMsgSizeLt,       // avg_msg_size<N
    kAvgMsgSizeAny,      // avg_msg_size=any
    kTotalMsgSizeLe,     // total_msg_size<=N
    kTotalMsgSizeLt,     // total_msg_size<N
    kTotalMsgSizeAny,    // total_msg_size=any
    kCountLe,            // count<=N
    kCountLtPow2,        // count<pow2
    kCountAny,           // count=any
    kIsMultiThreaded,    // is_multi_threaded=yes|no
    kIsSendbufInplace,   // is_sendbuf_inplace=yes|no
    kIsCommutative,      // is_commutative=yes|no
    kIsOpBuiltIn,        // is_op_built_in=yes|no
    kIsBlockRegular,     // is_block_regular=yes|no
    kIsNodeConsecutive,  // is_node_consecutive=yes|no
    kCommAvgPpnLe,       // comm_avg_ppn<=N
    kCommHierarchy,      // comm_hierarchy=parent|node_roots|node|flat|any
  };
  Op op = Op::kLeaf;
  std::string key;  // as written, blanks removed
  int line = 0, column = 0;
  long long value = 0;             // N of the comparisons
  bool flag = false;               // yes/no of the boolean keys
  std::string text;                // collective name, hierarchy kind, or the leaf's NAME
  bool composition = false;        // leaf: composition=... (else algorithm=...)
  std::vector<RuleNode> children;  // the object this key opens (operators)
};

struct Rules {
  std::string filename;
  std::vector<RuleNode> top;  // the top-level object
};

// What the search is asked about, each field as MPICH 4.0.2's csel
// (src/mpi/coll/src/csel.c) reads it. Defaults describe a blocking
// MPI_Alltoall on an intracommunicator without MPI_IN_PLACE; rule_query_for
// fills the communicator's fields from its topology.
struct RuleQuery {
  std::string collective = "alltoall";
  bool intercomm = false;
  int comm_size = 1;
  size_t avg_msg_size = 0;  // bytes per block (sendcount * type size)
  // count<=N, count<pow2: the element count per block (sendcount, recvcount
  // with MPI_IN_PLACE); < 0: unknown, count conditions fail. (MPICH 4.0.2
  // itself defines count only for other collectives: its get_count asserts
  // on an alltoall.)
  long long count = -1;
  bool multi_threaded = false;  // is_multi_threaded: MPI_THREAD_MULTIPLE (MPIR_IS_THREADED)
  bool inplace = false;         // is_sendbuf_inplace
  // comm_size=node_comm_size holds when MPICH made a node communicator for
  // this rank (its node holds more than one of the ranks, in a hierarchical
  // communicator) and it has all comm_size ranks. 0: no node communicator.
  int node_comm_size = 0;
  int nodes = 1;                     // comm_avg_ppn: MPICH's node_count
  bool node_consecutive = true;      // is_node_consecutive (MPII_Comm_is_node_consecutive)
  std::string hierarchy = "parent";  // comm_hierarchy: parent, node_roots, node, flat
};

// The communicator's fields of a query (comm_size, nodes, node_comm_size,
// node_consecutive, hierarchy) from its topology, as MPICH 4.0.2's
// MPIR_Comm_commit derives them for a user's intracommunicator: flat when
// every rank is alone on its node, else parent; node communicator where a
// node holds more than one rank; consecutive when the nodes follow one
// another in rank order (parents only). t.rank picks the calling rank's node
// (rank 0 when t.rank is -1). The other fields keep their defaults.
RuleQuery rule_query_for(const Topology& t);

// Parse a rules file. Unknown keys, malformed values, MPICH's structural
// rules (a comparison needs a following sibling to fall back to; "=any" must
// be the last key of its object; a leaf is alone in its object) and unknown
// alltoall algorithm names are errors "FILE:LINE:COL: ...".
bool parse_rules(const std::string& text, const std::string& filename, Rules* out,
                 std::string* error);
// Read and parse a file.
bool load_rules_file(const std::string& path, Rules* out, std::string* error);

// The leaf the search reaches, or null.
const RuleNode* match_rules(const Rules& rules, const RuleQuery& query);

// The algorithm for an intracommunicator MPI_Alltoall of comm_size ranks and
// avg_msg_size bytes per block: the short name for
// "algorithm=MPIR_Alltoall_intra_NAME" (ring, mesh, ..., topo_auto, brucks,
// pairwise, scattered, pairwise_sendrecv_replace), the full NAME for any
// other leaf (e.g. "MPIDI_Alltoall_intra_composition_alpha"); nullopt when no
// rule matches.
std::optional<std::string> apply_rules(const Rules& rules, int comm_size, size_t avg_msg_size);
std::optional<std::string> apply_rules(const Rules& rules, const RuleQuery& query);

// Stock MPICH 4.0.2 aborts on an algorithm name it does not know, so the
// preload front door hands MPICH a copy of the tuning file in which every
// alltoall leaf "algorithm=MPIR_Alltoall_intra_NAME" that names one of
// topoa2a's algorithms or topo_auto names MPICH's mpich_stand_in(NAME)
// instead; everything else (the other collectives' rules above all) is kept
// as it is. False with *error ("FILE:LINE:COL: ...") when the text is not
// JSON.
struct TuningForMpich {
  std::string text;           // the copy (`text` itself when nothing is replaced)
  int replaced = 0;           // leaves renamed
  int other_collectives = 0;  // collective=NAME keys for NAME other than alltoall
};
bool filter_tuning_for_mpich(const std::string& text, const std::string& filename,
                             TuningForMpich* out, std::string* error);
// MPICH's algorithm standing in for one of ours in that copy: "pairwise"
// for the 1-factor (direct exchange) algorithms, "brucks" for the
// store-and-forward ones, "scattered" for topo_auto; empty for other names.
std::string mpich_stand_in(const std::string& name);

// MPICH's intra alltoall algorithms that rules may name, besides ours.
const std::vector<std::string>& mpich_alltoall_algorithms();

}  // namespace topoa2a
