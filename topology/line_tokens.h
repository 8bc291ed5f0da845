// The words of one line of a line-oriented input file (the network file, the
// cost file): split at blanks, up to a '#' that starts a comment, each with
// its 1-based column for error messages. Internal to topology/.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace topoa2a::detail {

struct Token {
  std::string text;
  int column;  // 1-based
};

inline std::vector<Token> split_line(const std::string& line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size() && line[i] != '#') {
    if (std::isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < line.size() && line[j] != '#' && !std::isspace(static_cast<unsigned char>(line[j])))
      ++j;
    out.push_back({line.substr(i, j - i), static_cast<int>(i) + 1});
    i = j;
  }
  return out;
}

}  // namespace topoa2a::detail
