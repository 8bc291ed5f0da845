// The search of a rules file (rules.h): MPICH 4.0.2's MPIR_Csel_prune and
// MPIR_Csel_search (src/mpi/coll/src/csel.c) over the parsed tree.
#include <algorithm>

#include "topology/rules.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

using Op = RuleNode::Op;

constexpr const char* kIntraPrefix = "MPIR_Alltoall_intra_";

long long pof2_floor(long long n) {
  long long p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// The conditions MPICH's MPIR_Csel_prune decides when a communicator is
// created (prune_tree in src/mpi/coll/src/csel.c).
bool comm_op(Op op) {
  switch (op) {
    case Op::kCommTypeIntra:
    case Op::kCommTypeInter:
    case Op::kCommSizeLe:
    case Op::kCommSizeLt:
    case Op::kCommSizeNode:
    case Op::kCommSizePow2:
    case Op::kCommSizeAny:
    case Op::kCommHierarchy:
    case Op::kIsNodeConsecutive:
    case Op::kCommAvgPpnLe:
      return true;
    default:
      return false;
  }
}

// `pruning`: the node is decided by MPICH's prune_tree rather than by
// MPIR_Csel_search. The two differ in one place: MPICH 4.0.2's search
// tests comm_size<N as comm_size <= N.
bool holds(const RuleNode& n, const RuleQuery& q, bool pruning) {
  const long long size = q.comm_size;
  const long long avg = static_cast<long long>(q.avg_msg_size);
  const long long total = avg * size;
  switch (n.op) {
    case Op::kLeaf:
      return true;
    case Op::kCollective:
      return n.text == q.collective;
    case Op::kCommTypeIntra:
      return !q.intercomm;
    case Op::kCommTypeInter:
      return q.intercomm;
    case Op::kCommSizeLe:
      return size <= n.value;
    case Op::kCommSizeLt:
      return pruning ? size < n.value : size <= n.value;
    case Op::kCommSizePow2:
      return size > 0 && (size & (size - 1)) == 0;
    case Op::kCommSizeNode:
      return q.node_comm_size > 0 && q.node_comm_size == q.comm_size;
    case Op::kCommSizeAny:
    case Op::kAvgMsgSizeAny:
    case Op::kTotalMsgSizeAny:
    case Op::kCountAny:
      return true;
    case Op::kAvgMsgSizeLe:
      return avg <= n.value;
    case Op::kAvgMsgSizeLt:
      return avg < n.value;
    case Op::kTotalMsgSizeLe:
      return total <= n.value;
    case Op::kTotalMsgSizeLt:
      return total < n.value;
    case Op::kCountLe:
      return q.count >= 0 && q.count <= n.value;
    case Op::kCountLtPow2:
      return q.count >= 0 && q.count < pof2_floor(size);
    case Op::kIsMultiThreaded:
      return q.multi_threaded == n.flag;
    case Op::kIsSendbufInplace:
      return q.inplace == n.flag;
    case Op::kIsCommutative:
    case Op::kIsOpBuiltIn:
    case Op::kIsBlockRegular:
      return false;  // not defined for alltoall
    case Op::kIsNodeConsecutive:
      return q.node_consecutive == n.flag;
    case Op::kCommAvgPpnLe:
      return size <= n.value * q.nodes;
    case Op::kCommHierarchy:
      return n.text == "any" || n.text == q.hierarchy;
  }
  return false;
}

}  // namespace

const RuleNode* match_rules(const Rules& rules, const RuleQuery& query) {
  // MPICH prunes the tree per communicator (the leading communicator
  // conditions at the top and again below each collective=NAME), then
  // searches the rest per call.
  bool pruning = true;
  const std::vector<RuleNode>* level = &rules.top;
  while (level) {
    const std::vector<RuleNode>* next = nullptr;
    for (const RuleNode& n : *level) {
      if (n.op == Op::kLeaf) return &n;
      if (n.op != Op::kCollective && !comm_op(n.op)) pruning = false;
      if (holds(n, query, pruning)) {
        next = &n.children;
        break;
      }
    }
    level = next;
  }
  return nullptr;
}

RuleQuery rule_query_for(const Topology& t) {
  RuleQuery q;
  q.comm_size = t.size;
  q.nodes = std::max(1, t.nodes);
  // MPIR_Comm_create_subcomms: no hierarchy when every rank is alone on its
  // node (including a communicator of one rank); otherwise a parent with a
  // node communicator wherever a node holds more than one of its ranks.
  const bool flat = t.nodes >= t.size;
  q.hierarchy = flat ? "flat" : "parent";
  const int me = t.rank >= 0 && t.rank < t.size ? t.rank : 0;
  int on_my_node = 0;
  if (!flat && me < static_cast<int>(t.node_of_rank.size()))
    for (int n : t.node_of_rank) on_my_node += n == t.node_of_rank[me];
  q.node_comm_size = on_my_node > 1 ? on_my_node : 0;
  // MPII_Comm_is_node_consecutive: parents only; the nodes, numbered by
  // first appearance, in rank order.
  q.node_consecutive =
      !flat && (t.placement == Placement::kBlock || t.placement == Placement::kSingle);
  return q;
}

std::optional<std::string> apply_rules(const Rules& rules, const RuleQuery& query) {
  const RuleNode* leaf = match_rules(rules, query);
  if (!leaf) return std::nullopt;
  if (!leaf->composition && leaf->text.rfind(kIntraPrefix, 0) == 0)
    return leaf->text.substr(std::string(kIntraPrefix).size());
  return leaf->text;
}

std::optional<std::string> apply_rules(const Rules& rules, int comm_size, size_t avg_msg_size) {
  RuleQuery q;
  q.comm_size = comm_size;
  q.avg_msg_size = avg_msg_size;
  return apply_rules(rules, q);
}

}  // namespace topoa2a
