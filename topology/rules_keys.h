// The keys of a rules file, as MPICH 4.0.2's csel reads them
// (parse_json_tree and validate_tree in src/mpi/coll/src/csel.c). Internal
// to topology/rules*.cc.
#pragma once

#include <string>

#include "topology/rules.h"

namespace topoa2a {
namespace rules_detail {

using Op = RuleNode::Op;

// Reads one key (as json-c decoded it) into node's op, key (blanks removed,
// as MPICH's MPL_strdup_no_spaces), value, flag, text and composition. A
// malformed key: false, with *msg and *column_offset, the error's column
// relative to the key's opening quote.
bool read_key(const std::string& raw, RuleNode* node, std::string* msg, int* column_offset);

// "=any": must be the last key of its object.
bool is_any(Op op);
// MPICH's validate_tree: these may be the last key of their object (a failed
// test then means "no match"); every other comparison needs a following key.
bool may_be_last(Op op);
// The "=any" key that would follow a comparison of this kind.
const char* fallback_hint(Op op);

// An alltoall leaf's name that MPICH (or topoa2a) knows.
bool known_alltoall_leaf(const std::string& name);
// The NAMEs of MPIR_Alltoall_intra_NAME, for an error message.
std::string valid_alltoall_names();

}  // namespace rules_detail
}  // namespace topoa2a
