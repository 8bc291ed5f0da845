// MPICH's tuning files are read with json-c, as MPICH itself reads them
// (src/mpi/coll/src/csel.c: json_tokener_parse, then
// json_object_object_foreach). json-c decides what is valid and what every
// value is; this header adds what json-c does not keep: where each object
// member is in the text, so that errors name a line and column.
//
// json-c's reading, which MPICH shares (json-c 0.16 here; MPICH 4.0.2
// bundles a 0.13.99 snapshot with the same grammar but for \v and \f,
// which it takes as blanks, and a few malformed numbers): non-strict mode, so
// /* */ and // comments, 'single-quoted' strings, trailing commas, raw
// newlines in strings, case-insensitive true/false/null, NaN and Infinity
// are accepted; nesting is limited to JSON_TOKENER_DEFAULT_DEPTH (32)
// levels; an object's members keep their order; a repeated key keeps the
// first one's place with the last one's value.
#pragma once

#include <json-c/json.h>

#include <memory>
#include <string>
#include <vector>

namespace topoa2a {
namespace json {

struct Position {
  int line = 0, column = 0;  // 1-based; the column counts bytes
};

// "FILE:LINE:COL: " for an error message.
std::string where(const std::string& filename, Position p);

// One member of an object, as json-c holds it: for a repeated key, the first
// occurrence's key position and the last occurrence's value.
struct Member {
  std::string key;     // as json-c decodes it
  Position key_pos;    // the key's opening quote
  Position value_pos;  // the value's first character
  int object = -1;     // the value's index in Document::objects, if it is an object
};

struct Repeat {  // a key that occurs again in the same object
  std::string key;
  Position pos, first;  // this occurrence, the first one
};

struct Object {
  Position pos;                 // its '{'
  std::vector<Member> members;  // in json_object_object_foreach's order
  std::vector<Repeat> repeats;  // in source order
};

struct JsonPut {
  void operator()(json_object* o) const { json_object_put(o); }
};
using JsonPtr = std::unique_ptr<json_object, JsonPut>;

// A text json-c accepted: its value, and the key index over its text.
struct Document {
  JsonPtr root;
  Position root_pos;            // the top-level value's first character
  std::vector<Object> objects;  // every object, in the order of its '{'; the root is objects[0]
};

// Parse a whole document with json-c. On error returns false and sets *error
// to "FILE:LINE:COL: ..." (filename as given): the position is where json-c
// stopped (for an unterminated string or comment, where it opened); text
// after the top-level value, which MPICH would ignore, is an error too.
bool parse(const std::string& text, const std::string& filename, Document* out, std::string* error);

// json-c's name of a value's type: "null", "boolean", "number", "string",
// "array", "object".
const char* type_name(const json_object* v);

}  // namespace json
}  // namespace topoa2a
