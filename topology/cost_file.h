// The cost file (MPIR_CVAR_TOPOA2A_COST_FILE), as topoa2a-calibrate writes
// it, and the precedence of the cost parameters: the defaults, then the
// file, then MPIR_CVAR_TOPOA2A_COST, key by key. The format is documented in
// topology/README.md ("Cost file").
#pragma once

#include <string>
#include <vector>

#include "topology/cost_model.h"

namespace topoa2a {

// Parse a cost file: one "KEY VALUE" per line (keys and values as in
// MPIR_CVAR_TOPOA2A_COST: ts_intra 0.42us), '#' to the end of the line a
// comment, blank lines ignored, each key at most once. Keys not given keep
// their value in *inout; the keys given are appended to *given (optional).
// `filename` is used in messages only. On error returns false, leaves
// *inout unchanged and sets *error to "FILE:LINE:COLUMN: what was expected".
bool parse_cost_file(const std::string& text, const std::string& filename, CostParams* inout,
                     std::vector<std::string>* given, std::string* error);

// A cost file giving `keys` of `c` (in cost_keys() order), after `header`
// (each of its lines written as a comment).
std::string write_cost_file(const CostParams& c, const std::vector<std::string>& keys,
                            const std::string& header);

// The cost parameters: the defaults, overridden by the cost file (its path,
// text and read error as given; an empty path: no file), overridden key by
// key by MPIR_CVAR_TOPOA2A_COST's value `env` (blank: not given). *from
// (optional): per key of cost_keys(), "default", "file:PATH" or
// "MPIR_CVAR_TOPOA2A_COST". On a problem returns false with one line naming
// the variable in *error (*out then holds the defaults).
bool resolve_cost(const std::string& file_path, const std::string& file_text,
                  const std::string& file_error, const std::string& env, CostParams* out,
                  std::vector<std::string>* from, std::string* error);

// "ts_intra=0.42us (file:cal.cost), ..., ts_hop=0us (default), ...": each
// parameter with where it came from.
std::string describe_cost(const CostParams& c, const std::vector<std::string>& from);

}  // namespace topoa2a
