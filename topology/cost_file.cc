// The cost file: parsing, writing, and the precedence defaults < file <
// MPIR_CVAR_TOPOA2A_COST.
#include "topology/cost_file.h"

#include <algorithm>
#include <cctype>

#include "topology/line_tokens.h"

namespace topoa2a {
namespace {

using detail::split_line;
using detail::Token;

std::string key_list() {
  std::string out;
  for (const std::string& k : cost_keys()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

bool parse_cost_file(const std::string& text, const std::string& filename, CostParams* inout,
                     std::vector<std::string>* given, std::string* error) {
  CostParams c = *inout;
  std::vector<std::string> keys;
  std::vector<int> key_line;
  int line_no = 0;
  auto err = [&](int column, const std::string& msg) {
    *error = filename + ":" + std::to_string(line_no) + ":" + std::to_string(column) + ": " + msg;
    return false;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_no;
    pos = end + 1;
    const std::vector<Token> tok = split_line(line);
    if (tok.empty()) continue;
    const Token& key = tok[0];
    double* field = cost_field(&c, key.text);
    if (!field)
      return err(key.column, "unknown key '" + key.text + "'; expected one of " + key_list());
    const auto seen = std::find(keys.begin(), keys.end(), key.text);
    if (seen != keys.end())
      return err(key.column, "duplicate key '" + key.text + "' (first at line " +
                                 std::to_string(key_line[seen - keys.begin()]) + ")");
    if (tok.size() < 2)
      return err(key.column + static_cast<int>(key.text.size()),
                 "expected a value after '" + key.text + "' (e.g. '" + key.text + " " +
                     format_cost_value(key.text, *field) + "')");
    std::string why;
    if (!parse_cost_value(tok[1].text, field, &why))
      return err(tok[1].column, why +
                                    "; expected seconds (per byte for tw_*) with an optional unit "
                                    "s, ms, us, ns, ps, e.g. '" +
                                    format_cost_value(key.text, 0.5e-6) + "'");
    if (tok.size() > 2)
      return err(tok[2].column, "expected end of line after the value, got '" + tok[2].text + "'");
    keys.push_back(key.text);
    key_line.push_back(line_no);
  }
  *inout = c;
  if (given) given->insert(given->end(), keys.begin(), keys.end());
  return true;
}

std::string write_cost_file(const CostParams& c, const std::vector<std::string>& keys,
                            const std::string& header) {
  std::string out;
  size_t start = 0;
  while (start < header.size()) {
    const size_t end = std::min(header.find('\n', start), header.size());
    const std::string line = header.substr(start, end - start);
    out += line.empty() ? "#\n" : "# " + line + "\n";
    start = end + 1;
  }
  CostParams copy = c;
  for (const std::string& k : cost_keys()) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) continue;
    out += k + " " + format_cost_value(k, *cost_field(&copy, k)) + "\n";
  }
  return out;
}

bool resolve_cost(const std::string& file_path, const std::string& file_text,
                  const std::string& file_error, const std::string& env, CostParams* out,
                  std::vector<std::string>* from, std::string* error) {
  const std::vector<std::string> names = cost_keys();
  CostParams c;
  std::vector<std::string> src(names.size(), "default");
  auto mark = [&](const std::vector<std::string>& given, const std::string& where) {
    for (const std::string& k : given)
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == k) src[i] = where;
  };
  *out = CostParams{};
  if (from) *from = src;
  if (!file_path.empty()) {
    if (!file_error.empty()) {
      *error = std::string(kEnvCostFile) + "=" + file_path + ": " + file_error;
      return false;
    }
    std::vector<std::string> given;
    std::string why;
    if (!parse_cost_file(file_text, file_path, &c, &given, &why)) {
      *error = std::string(kEnvCostFile) + ": " + why;
      return false;
    }
    mark(given, "file:" + file_path);
  }
  if (!blank(env)) {
    std::vector<std::string> given;
    if (!parse_cost_params(env, &c, error, &given)) return false;
    mark(given, kEnvCost);
  }
  *out = c;
  if (from) *from = src;
  return true;
}

std::string describe_cost(const CostParams& c, const std::vector<std::string>& from) {
  const std::vector<std::string> names = cost_keys();
  CostParams copy = c;
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += names[i] + "=" + format_cost_value(names[i], *cost_field(&copy, names[i])) + " (" +
           (i < from.size() ? from[i] : std::string("default")) + ")";
  }
  return out;
}

}  // namespace topoa2a
