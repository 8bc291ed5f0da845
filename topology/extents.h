// The numbers and extents of the network file and the forced topology
// string (topology/network_file.cc, forced_topology.cc): strict decimal
// parsing with range checks. Internal to topology/.
#pragma once

#include <string>
#include <vector>

namespace topoa2a::detail {

// Parse a non-negative decimal integer filling all of `text`, at most
// INT_MAX (in 64 bits: no overflow, no wrap-around).
bool parse_int(const std::string& text, int* out);

// Non-empty and decimal digits only.
bool all_digits(const std::string& s);

// Parse "A" or "AxBxC": positive extents of at most 2^20 whose product is
// at most INT_MAX / 2. On failure *bad is the offset of the offending part
// within `text`; *why says what is out of range and what is valid, or is
// empty when the text is not of that form.
bool parse_dims(const std::string& text, std::vector<int>* dims, size_t* bad, std::string* why);

}  // namespace topoa2a::detail
