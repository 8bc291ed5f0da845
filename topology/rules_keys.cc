#include "topology/rules_keys.h"

#include <cctype>

#include "coll/algorithms.h"

namespace topoa2a {

const std::vector<std::string>& mpich_alltoall_algorithms() {
  static const std::vector<std::string> names = {"brucks", "pairwise", "pairwise_sendrecv_replace",
                                                 "scattered"};
  return names;
}

namespace rules_detail {
namespace {

constexpr const char* kIntraPrefix = "MPIR_Alltoall_intra_";

struct Fixed {
  const char* key;
  Op op;
  bool flag;
  const char* text;
};
constexpr Fixed kFixed[] = {
    {"comm_type=intra", Op::kCommTypeIntra, false, ""},
    {"comm_type=inter", Op::kCommTypeInter, false, ""},
    {"comm_size=pow2", Op::kCommSizePow2, false, ""},
    {"comm_size=node_comm_size", Op::kCommSizeNode, false, ""},
    {"comm_size=any", Op::kCommSizeAny, false, ""},
    {"avg_msg_size=any", Op::kAvgMsgSizeAny, false, ""},
    {"total_msg_size=any", Op::kTotalMsgSizeAny, false, ""},
    {"count<pow2", Op::kCountLtPow2, false, ""},
    {"count=any", Op::kCountAny, false, ""},
    {"is_multi_threaded=yes", Op::kIsMultiThreaded, true, ""},
    {"is_multi_threaded=no", Op::kIsMultiThreaded, false, ""},
    {"is_sendbuf_inplace=yes", Op::kIsSendbufInplace, true, ""},
    {"is_sendbuf_inplace=no", Op::kIsSendbufInplace, false, ""},
    {"is_commutative=yes", Op::kIsCommutative, true, ""},
    {"is_commutative=no", Op::kIsCommutative, false, ""},
    {"is_op_built_in=yes", Op::kIsOpBuiltIn, true, ""},
    {"is_op_built_in=no", Op::kIsOpBuiltIn, false, ""},
    {"is_block_regular=yes", Op::kIsBlockRegular, true, ""},
    {"is_block_regular=no", Op::kIsBlockRegular, false, ""},
    {"is_node_consecutive=yes", Op::kIsNodeConsecutive, true, ""},
    {"is_node_consecutive=no", Op::kIsNodeConsecutive, false, ""},
    {"comm_hierarchy=parent", Op::kCommHierarchy, false, "parent"},
    {"comm_hierarchy=node_roots", Op::kCommHierarchy, false, "node_roots"},
    {"comm_hierarchy=node", Op::kCommHierarchy, false, "node"},
    {"comm_hierarchy=flat", Op::kCommHierarchy, false, "flat"},
    {"comm_hierarchy=any", Op::kCommHierarchy, false, "any"},
};

struct Compare {
  const char* prefix;
  Op op;
};
// Longest prefixes first ("<=" before "<").
constexpr Compare kCompare[] = {
    {"comm_size<=", Op::kCommSizeLe},
    {"comm_size<", Op::kCommSizeLt},
    {"avg_msg_size<=", Op::kAvgMsgSizeLe},
    {"avg_msg_size<", Op::kAvgMsgSizeLt},
    {"total_msg_size<=", Op::kTotalMsgSizeLe},
    {"total_msg_size<", Op::kTotalMsgSizeLt},
    {"count<=", Op::kCountLe},
    {"comm_avg_ppn<=", Op::kCommAvgPpnLe},
};

const char* kCollectives[] = {"allgather",
                              "allgatherv",
                              "allreduce",
                              "alltoall",
                              "alltoallv",
                              "alltoallw",
                              "barrier",
                              "bcast",
                              "exscan",
                              "gather",
                              "gatherv",
                              "iallgather",
                              "iallgatherv",
                              "iallreduce",
                              "ialltoall",
                              "ialltoallv",
                              "ialltoallw",
                              "ibarrier",
                              "ibcast",
                              "iexscan",
                              "igather",
                              "igatherv",
                              "ineighbor_allgather",
                              "ineighbor_allgatherv",
                              "ineighbor_alltoall",
                              "ineighbor_alltoallv",
                              "ineighbor_alltoallw",
                              "ireduce",
                              "ireduce_scatter",
                              "ireduce_scatter_block",
                              "iscan",
                              "iscatter",
                              "iscatterv",
                              "neighbor_allgather",
                              "neighbor_allgatherv",
                              "neighbor_alltoall",
                              "neighbor_alltoallv",
                              "neighbor_alltoallw",
                              "reduce",
                              "reduce_scatter",
                              "reduce_scatter_block",
                              "scan",
                              "scatter",
                              "scatterv"};

constexpr const char* kKeyGrammar =
    "expected collective=NAME, comm_type=intra|inter, comm_size<=N, "
    "comm_size<N, comm_size=pow2|node_comm_size|any, avg_msg_size<=N, "
    "avg_msg_size<N, avg_msg_size=any, total_msg_size<=N|<N|=any, count<=N, "
    "count<pow2, count=any, is_multi_threaded=, is_sendbuf_inplace=, "
    "is_commutative=, is_op_built_in=, is_block_regular=, is_node_consecutive= "
    "(yes|no), comm_avg_ppn<=N, comm_hierarchy=parent|node_roots|node|flat|any, "
    "algorithm=NAME or composition=NAME";

}  // namespace

bool read_key(const std::string& raw, RuleNode* node, std::string* msg, int* column_offset) {
  std::string k;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) k.push_back(c);
  node->key = k;
  // Offsets count from the opening quote (1: the key's first character).
  auto fail = [&](int offset, const std::string& m) {
    *column_offset = offset;
    *msg = m;
    return false;
  };
  for (const char* prefix : {"algorithm=", "composition="}) {
    const std::string p = prefix;
    if (k.rfind(p, 0) == 0) {
      node->op = Op::kLeaf;
      node->composition = p == "composition=";
      node->text = k.substr(p.size());
      if (node->text.empty())
        return fail(1 + static_cast<int>(p.size()), "expected a name after '" + p + "'");
      return true;
    }
  }
  for (const Fixed& f : kFixed) {
    if (k == f.key) {
      node->op = f.op;
      node->flag = f.flag;
      node->text = f.text;
      return true;
    }
  }
  const std::string coll = "collective=";
  if (k.rfind(coll, 0) == 0) {
    node->op = Op::kCollective;
    node->text = k.substr(coll.size());
    for (const char* c : kCollectives)
      if (node->text == c) return true;
    return fail(1 + static_cast<int>(coll.size()),
                "unknown collective '" + node->text + "' (e.g. alltoall, alltoallv, bcast)");
  }
  for (const Compare& c : kCompare) {
    const std::string p = c.prefix;
    if (k.rfind(p, 0) != 0) continue;
    const std::string num = k.substr(p.size());
    long long v = 0;
    bool ok = !num.empty() && num.size() <= 18;
    for (char ch : num) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) ok = false;
      if (ok) v = v * 10 + (ch - '0');
    }
    if (!ok)
      return fail(1 + static_cast<int>(raw.find_first_of('<') + 1 + (p.back() == '=' ? 1 : 0)),
                  "expected a non-negative integer after '" + p + "', got '" + num + "'");
    node->op = c.op;
    node->value = v;
    return true;
  }
  return fail(0, "unknown key '" + k + "'; " + kKeyGrammar);
}

bool is_any(Op op) {
  return op == Op::kCommSizeAny || op == Op::kAvgMsgSizeAny || op == Op::kTotalMsgSizeAny ||
         op == Op::kCountAny;
}

bool may_be_last(Op op) {
  switch (op) {
    case Op::kIsMultiThreaded:
    case Op::kCommTypeIntra:
    case Op::kCommTypeInter:
    case Op::kCommHierarchy:
    case Op::kIsNodeConsecutive:
    case Op::kIsSendbufInplace:
    case Op::kIsBlockRegular:
    case Op::kIsCommutative:
    case Op::kIsOpBuiltIn:
    case Op::kCollective:
      return true;
    default:
      return is_any(op);
  }
}

const char* fallback_hint(Op op) {
  switch (op) {
    case Op::kAvgMsgSizeLe:
    case Op::kAvgMsgSizeLt:
      return "avg_msg_size=any";
    case Op::kTotalMsgSizeLe:
    case Op::kTotalMsgSizeLt:
      return "total_msg_size=any";
    case Op::kCountLe:
    case Op::kCountLtPow2:
      return "count=any";
    default:
      return "comm_size=any";
  }
}

std::string valid_alltoall_names() {
  std::string out = algorithm_names() + ", topo_auto";
  for (const std::string& n : mpich_alltoall_algorithms()) out += ", " + n;
  return out;
}

bool known_alltoall_leaf(const std::string& name) {
  const std::string prefix = kIntraPrefix;
  if (name.rfind(prefix, 0) == 0) {
    const std::string s = name.substr(prefix.size());
    if (find_algorithm(s) || s == "topo_auto") return true;
    for (const std::string& n : mpich_alltoall_algorithms())
      if (s == n) return true;
    return false;
  }
  return name == "MPIR_Alltoall_inter_pairwise_exchange" || name == "MPIR_Alltoall_allcomm_nb" ||
         name == "MPIDI_Alltoall_intra_composition_alpha";
}

}  // namespace rules_detail
}  // namespace topoa2a
