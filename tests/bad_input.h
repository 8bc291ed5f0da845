// Malformed input and the error it must give, for the parsers' tests
// (network file, cost file, bandwidths, JSON rules).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace topoa2a {

struct BadInput {
  const char* text;
  const char* where;  // how the error starts: "FILE:LINE:COLUMN: "
  const char* words;  // somewhere in it
};

// The error names the place and says the words.
inline void expect_error(const BadInput& c, const std::string& err) {
  EXPECT_EQ(err.rfind(c.where, 0), 0u) << "text: " << c.text << "\nerror: " << err;
  EXPECT_NE(err.find(c.words), std::string::npos) << "text: " << c.text << "\nerror: " << err;
}

}  // namespace topoa2a
