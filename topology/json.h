// A small JSON reader (RFC 8259 plus /* */ and // comments, as json-c
// accepts them), enough for MPICH's collective selection files. No external
// dependencies. Object members keep their order and their source position.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topoa2a {
namespace json {

enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

const char* to_string(Type t);  // "null", "boolean", "number", "string", "array", "object"

struct Value;

struct Member {
  std::string key;
  int line = 0, column = 0;  // of the key's opening quote (1-based; column in bytes)
  std::unique_ptr<Value> value;
};

struct Value {
  Type type = Type::kNull;
  int line = 0, column = 0;  // of the value's first character
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> items;     // array
  std::vector<Member> members;  // object, in source order
};

// Parse a whole document. On error returns false and sets *error to
// "FILE:LINE:COL: expected ..." (filename as given).
bool parse(const std::string& text, const std::string& filename, Value* out, std::string* error);

// The value as JSON text (compact; comments and positions are not kept;
// numbers with 17 significant digits).
std::string write(const Value& v);

}  // namespace json
}  // namespace topoa2a
