#include "topology/rules.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "coll/algorithms.h"
#include "topology/json.h"
#include "topology/topology.h"

namespace topoa2a {

const std::vector<std::string>& mpich_alltoall_algorithms() {
  static const std::vector<std::string> names = {"brucks", "pairwise", "pairwise_sendrecv_replace",
                                                 "scattered"};
  return names;
}

namespace {

using Op = RuleNode::Op;

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

bool is_any(Op op) {
  return op == Op::kCommSizeAny || op == Op::kAvgMsgSizeAny || op == Op::kTotalMsgSizeAny ||
         op == Op::kCountAny;
}

// MPICH's validate_tree: these may be the last key of their object (a
// failed test then means "no match"); every other comparison needs a
// following key to fall back to.
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

std::string valid_alltoall_names() {
  std::string out = algorithm_names() + ", topo_auto";
  for (const std::string& n : mpich_alltoall_algorithms()) out += ", " + n;
  return out;
}

bool known_alltoall_leaf(const std::string& name) {
  if (name.rfind(kIntraPrefix, 0) == 0) {
    const std::string s = name.substr(std::string(kIntraPrefix).size());
    if (find_algorithm(s) || s == "topo_auto") return true;
    for (const std::string& n : mpich_alltoall_algorithms())
      if (s == n) return true;
    return false;
  }
  return name == "MPIR_Alltoall_inter_pairwise_exchange" || name == "MPIR_Alltoall_allcomm_nb" ||
         name == "MPIDI_Alltoall_intra_composition_alpha";
}

class RuleBuilder {
 public:
  RuleBuilder(const std::string& filename, std::string* error) : file_(filename), error_(error) {}

  bool object(const json::Value& obj, std::vector<RuleNode>* out, const std::string& collective) {
    if (obj.members.empty())
      return fail(obj.line, obj.column,
                  "expected at least one rule in this object (an empty object matches nothing)");
    // Key -> line of its first occurrence: linear in the number of keys.
    std::unordered_map<std::string, int> first_line;
    first_line.reserve(obj.members.size());
    out->reserve(obj.members.size());
    for (size_t i = 0; i < obj.members.size(); ++i) {
      const json::Member& m = obj.members[i];
      RuleNode node;
      if (!key(m, &node)) return false;
      const auto [it, inserted] = first_line.emplace(node.key, node.line);
      if (!inserted)
        return fail(
            m.line, m.column,
            "duplicate key '" + node.key + "' (first at line " + std::to_string(it->second) + ")");
      if (m.value->type != json::Type::kObject)
        return fail(m.value->line, m.value->column,
                    std::string("expected an object as the value of '") + node.key + "', got " +
                        json::to_string(m.value->type));
      const bool last = i + 1 == obj.members.size();
      if (node.op == Op::kLeaf) {
        if (obj.members.size() != 1)
          return fail(m.line, m.column,
                      "'" + node.key +
                          "' must be the only key of its object (MPICH ignores its "
                          "siblings)");
        const bool alltoall_name =
            node.text.rfind("MPIR_Alltoall_", 0) == 0 || node.text.rfind("MPIDI_Alltoall_", 0) == 0;
        if ((collective == "alltoall" || (collective.empty() && alltoall_name)) &&
            !known_alltoall_leaf(node.text))
          return fail(m.line, m.column + 1 + static_cast<int>(node.key.find('=')) + 1,
                      "unknown alltoall algorithm '" + node.text +
                          "'; expected MPIR_Alltoall_intra_NAME with NAME one of " +
                          valid_alltoall_names() +
                          " (or MPIR_Alltoall_inter_pairwise_exchange, "
                          "MPIR_Alltoall_allcomm_nb, MPIDI_Alltoall_intra_composition_alpha)");
      } else {
        if (is_any(node.op) && !last)
          return fail(m.line, m.column,
                      "'" + node.key +
                          "' must be the last key of its object (MPICH requires "
                          "'=any' rules to have no fallback)");
        if (!may_be_last(node.op) && last)
          return fail(m.line, m.column,
                      "'" + node.key +
                          "' needs a following key to fall back to when it does not "
                          "hold (e.g. '" +
                          fallback_hint(node.op) + "'), as MPICH requires");
        const std::string coll = node.op == Op::kCollective ? node.text : collective;
        if (!object(*m.value, &node.children, coll)) return false;
      }
      out->push_back(std::move(node));
    }
    return true;
  }

 private:
  static std::string fallback_hint(Op op) {
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

  bool fail(int line, int column, const std::string& msg) {
    *error_ = file_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + msg;
    return false;
  }

  bool key(const json::Member& m, RuleNode* node) {
    // MPICH strips blanks from keys (MPL_strdup_no_spaces).
    std::string k;
    for (char c : m.key)
      if (!std::isspace(static_cast<unsigned char>(c))) k.push_back(c);
    node->key = k;
    node->line = m.line;
    node->column = m.column;
    for (const char* prefix : {"algorithm=", "composition="}) {
      const std::string p = prefix;
      if (k.rfind(p, 0) == 0) {
        node->op = Op::kLeaf;
        node->composition = p == "composition=";
        node->text = k.substr(p.size());
        if (node->text.empty())
          return fail(m.line, m.column + 1 + static_cast<int>(p.size()),
                      "expected a name after '" + p + "'");
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
    if (k.rfind("collective=", 0) == 0) {
      node->op = Op::kCollective;
      node->text = k.substr(std::string("collective=").size());
      for (const char* c : kCollectives)
        if (node->text == c) return true;
      return fail(m.line, m.column + 1 + static_cast<int>(std::string("collective=").size()),
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
        return fail(m.line,
                    m.column + 1 +
                        static_cast<int>(m.key.find_first_of("<") + 1 + (p.back() == '=' ? 1 : 0)),
                    "expected a non-negative integer after '" + p + "', got '" + num + "'");
      node->op = c.op;
      node->value = v;
      return true;
    }
    return fail(m.line, m.column,
                "unknown key '" + k +
                    "'; expected collective=NAME, comm_type=intra|inter, comm_size<=N, "
                    "comm_size<N, comm_size=pow2|node_comm_size|any, avg_msg_size<=N, "
                    "avg_msg_size<N, avg_msg_size=any, total_msg_size<=N|<N|=any, count<=N, "
                    "count<pow2, count=any, is_multi_threaded=, is_sendbuf_inplace=, "
                    "is_commutative=, is_op_built_in=, is_block_regular=, is_node_consecutive= "
                    "(yes|no), comm_avg_ppn<=N, comm_hierarchy=parent|node_roots|node|flat|any, "
                    "algorithm=NAME or composition=NAME");
  }

  const std::string& file_;
  std::string* error_;
};

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

bool parse_rules(const std::string& text, const std::string& filename, Rules* out,
                 std::string* error) {
  json::Value doc;
  if (!json::parse(text, filename, &doc, error)) return false;
  if (doc.type != json::Type::kObject) {
    *error = filename + ":" + std::to_string(doc.line) + ":" + std::to_string(doc.column) +
             ": expected an object at the top level, got " + json::to_string(doc.type);
    return false;
  }
  Rules rules;
  rules.filename = filename;
  RuleBuilder b(filename, error);
  if (!b.object(doc, &rules.top, "")) return false;
  *out = std::move(rules);
  return true;
}

bool load_rules_file(const std::string& path, Rules* out, std::string* error) {
  std::string text;
  if (!read_text_file(path, &text, error)) return false;
  return parse_rules(text, path, out, error);
}

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
