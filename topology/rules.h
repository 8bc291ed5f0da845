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

// What the search is asked about. Defaults describe a blocking MPI_Alltoall
// on an intracommunicator without MPI_IN_PLACE.
struct RuleQuery {
  std::string collective = "alltoall";
  bool intercomm = false;
  int comm_size = 1;
  size_t avg_msg_size = 0;  // bytes per block (sendcount * type size)
  long long count = -1;     // sendcount; < 0: unknown (count conditions fail)
  bool multi_threaded = false;
  bool inplace = false;
  int node_comm_size = 0;  // ranks on this rank's node (0: unknown)
  int nodes = 1;           // nodes the communicator spans
  bool node_consecutive = true;
  std::string hierarchy = "parent";  // parent, node_roots, node, flat
};

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

// MPICH's intra alltoall algorithms that rules may name, besides ours.
const std::vector<std::string>& mpich_alltoall_algorithms();

}  // namespace topoa2a
