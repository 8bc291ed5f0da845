// Reading a rules file (rules.h): json-c reads the JSON (json.h), as MPICH
// does; this walks json-c's objects in json_object_object_foreach's order,
// as MPICH's parse_json_tree does, and checks each key (rules_keys.h) and
// MPICH's structural rules, with the index's positions for the errors.
#include "topology/rules.h"

#include <cctype>
#include <unordered_map>

#include "topology/json.h"
#include "topology/rules_keys.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

using namespace rules_detail;

class RuleBuilder {
 public:
  RuleBuilder(const json::Document& doc, const std::string& filename, std::string* error)
      : doc_(doc), file_(filename), error_(error) {}

  // obj is json-c's object, doc_.objects[index] its positions.
  bool object(json_object* obj, int index, std::vector<RuleNode>* out,
              const std::string& collective) {
    const json::Object& o = doc_.objects[index];
    if (o.members.empty())
      return fail(o.pos,
                  "expected at least one rule in this object (an empty object matches nothing)");
    if (!o.repeats.empty())  // json-c (so MPICH) would keep only the last one's value
      return duplicate(o.repeats[0].key, o.repeats[0].pos, o.repeats[0].first.line);
    // Key (blanks removed, as MPICH compares them) -> line of its first
    // occurrence: linear in the number of keys.
    std::unordered_map<std::string, int> first_line;
    first_line.reserve(o.members.size());
    out->reserve(o.members.size());
    size_t i = 0;
    json_object_object_foreach(obj, key, value) {
      const json::Member& m = o.members[i++];  // the same member (json::parse checks)
      RuleNode node;
      node.line = m.key_pos.line;
      node.column = m.key_pos.column;
      std::string msg;
      int offset = 0;
      if (!read_key(key, &node, &msg, &offset))
        return fail({m.key_pos.line, m.key_pos.column + offset}, msg);
      const auto [it, inserted] = first_line.emplace(node.key, node.line);
      if (!inserted) return duplicate(node.key, m.key_pos, it->second);
      if (!json_object_is_type(value, json_type_object))
        return fail(m.value_pos, "expected an object as the value of '" + node.key + "', got " +
                                     json::type_name(value));
      const bool last = i == o.members.size();
      if (node.op == Op::kLeaf) {
        if (!leaf(node, m, o.members.size(), collective)) return false;
      } else {
        if (is_any(node.op) && !last)
          return fail(m.key_pos, "'" + node.key +
                                     "' must be the last key of its object (MPICH requires "
                                     "'=any' rules to have no fallback)");
        if (!may_be_last(node.op) && last)
          return fail(m.key_pos, "'" + node.key +
                                     "' needs a following key to fall back to when it does not "
                                     "hold (e.g. '" +
                                     fallback_hint(node.op) + "'), as MPICH requires");
        const std::string coll = node.op == Op::kCollective ? node.text : collective;
        if (!object(value, m.object, &node.children, coll)) return false;
      }
      out->push_back(std::move(node));
    }
    return true;
  }

 private:
  bool leaf(const RuleNode& node, const json::Member& m, size_t siblings,
            const std::string& collective) {
    if (siblings != 1)
      return fail(m.key_pos, "'" + node.key +
                                 "' must be the only key of its object (MPICH ignores its "
                                 "siblings)");
    const bool alltoall_name =
        node.text.rfind("MPIR_Alltoall_", 0) == 0 || node.text.rfind("MPIDI_Alltoall_", 0) == 0;
    if ((collective == "alltoall" || (collective.empty() && alltoall_name)) &&
        !known_alltoall_leaf(node.text))
      return fail({m.key_pos.line, m.key_pos.column + 1 + static_cast<int>(node.key.find('=')) + 1},
                  "unknown alltoall algorithm '" + node.text +
                      "'; expected MPIR_Alltoall_intra_NAME with NAME one of " +
                      valid_alltoall_names() +
                      " (or MPIR_Alltoall_inter_pairwise_exchange, "
                      "MPIR_Alltoall_allcomm_nb, MPIDI_Alltoall_intra_composition_alpha)");
    return true;
  }

  bool duplicate(const std::string& key, json::Position at, int first_line) {
    std::string k;
    for (char c : key)
      if (!std::isspace(static_cast<unsigned char>(c))) k.push_back(c);
    return fail(at, "duplicate key '" + k + "' (first at line " + std::to_string(first_line) + ")");
  }

  bool fail(json::Position at, const std::string& msg) {
    *error_ = json::where(file_, at) + msg;
    return false;
  }

  const json::Document& doc_;
  const std::string& file_;
  std::string* error_;
};

}  // namespace

bool parse_rules(const std::string& text, const std::string& filename, Rules* out,
                 std::string* error) {
  json::Document doc;
  if (!json::parse(text, filename, &doc, error)) return false;
  if (!json_object_is_type(doc.root.get(), json_type_object)) {
    *error = json::where(filename, doc.root_pos) + "expected an object at the top level, got " +
             json::type_name(doc.root.get());
    return false;
  }
  Rules rules;
  rules.filename = filename;
  RuleBuilder b(doc, filename, error);
  if (!b.object(doc.root.get(), 0, &rules.top, "")) return false;
  *out = std::move(rules);
  return true;
}

bool load_rules_file(const std::string& path, Rules* out, std::string* error) {
  std::string text;
  if (!read_text_file(path, &text, error)) return false;
  return parse_rules(text, path, out, error);
}

}  // namespace topoa2a
