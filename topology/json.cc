#include "topology/json.h"

#include <algorithm>
#include <climits>

#include "topology/json_locator.h"

namespace topoa2a {
namespace json {

std::string where(const std::string& filename, Position p) {
  return filename + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
}

const char* type_name(const json_object* v) {
  switch (json_object_get_type(v)) {
    case json_type_null:
      return "null";
    case json_type_boolean:
      return "boolean";
    case json_type_double:
    case json_type_int:
      return "number";
    case json_type_string:
      return "string";
    case json_type_array:
      return "array";
    case json_type_object:
      return "object";
  }
  return "?";
}

namespace {

std::string describe(const std::string& text, size_t at) {
  if (at >= text.size()) return "end of file";
  const auto c = static_cast<unsigned char>(text[at]);
  if (c == 0) return "a NUL byte";
  if (c < 0x20) return "a control character";
  return std::string("'") + text[at] + "'";
}

std::string message(json_tokener_error e, const std::string& got) {
  switch (e) {
    case json_tokener_error_depth:
      return "nesting deeper than json-c reads (" + std::to_string(JSON_TOKENER_DEFAULT_DEPTH) +
             " levels, as in MPICH)";
    case json_tokener_error_parse_eof:
      return "unexpected end of file (the JSON value is not complete)";
    case json_tokener_error_parse_unexpected:
      return "expected a JSON value (object, array, string, number, true, false, null), got " + got;
    case json_tokener_error_parse_null:
      return "expected null, got " + got;
    case json_tokener_error_parse_boolean:
      return "expected true or false, got " + got;
    case json_tokener_error_parse_number:
      return "expected a number, got " + got;
    case json_tokener_error_parse_array:
      return "expected ',' or ']' in the array, got " + got;
    case json_tokener_error_parse_object_key_name:
      return "expected a string key in quotes, got " + got;
    case json_tokener_error_parse_object_key_sep:
      return "expected ':' after the key, got " + got;
    case json_tokener_error_parse_object_value_sep:
      return "expected ',' or '}' in the object, got " + got;
    case json_tokener_error_parse_string:
      return "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX), got " + got;
    case json_tokener_error_parse_comment:
      return "expected a comment (/* or //) after '/', got " + got;
    default:
      return std::string("json-c: ") + json_tokener_error_desc(e);
  }
}

struct TokenerFree {
  void operator()(json_tokener* t) const { json_tokener_free(t); }
};

// json-c's object members and the index's agree (they always should: this
// guards the positions in every error message).
bool agrees(json_object* obj, const Document& doc, int index) {
  const Object& o = doc.objects[index];
  if (json_object_object_length(obj) != static_cast<int>(o.members.size())) return false;
  size_t i = 0;
  json_object_object_foreach(obj, key, val) {
    const Member& m = o.members[i++];
    if (m.key != key) return false;
    const bool is_object = json_object_is_type(val, json_type_object);
    if (is_object != (m.object >= 0)) return false;
    if (is_object && !agrees(val, doc, m.object)) return false;
  }
  return true;
}

}  // namespace

bool parse(const std::string& text, const std::string& filename, Document* out,
           std::string* error) {
  if (text.size() >= static_cast<size_t>(INT_MAX)) {
    *error = filename + ": too large for json-c";
    return false;
  }
  // MPICH's json_tokener_parse: default depth, not strict. The length
  // includes the terminating '\0', so json-c knows that the text ends there.
  std::unique_ptr<json_tokener, TokenerFree> tok(json_tokener_new());
  if (!tok) {
    *error = filename + ": out of memory";
    return false;
  }
  Document doc;
  doc.root.reset(json_tokener_parse_ex(tok.get(), text.c_str(), static_cast<int>(text.size()) + 1));
  const json_tokener_error e = json_tokener_get_error(tok.get());
  const size_t end = std::min(json_tokener_get_parse_end(tok.get()), text.size());
  detail::Locator loc(text, end);
  loc.run(&doc);
  Position open;
  const char* what = nullptr;
  // json-c also accepts text that ends in a comment inside the value
  // ("{\"a\": 1 /*" reads as 1): an unterminated comment is an error.
  if ((e == json_tokener_error_parse_eof || e == json_tokener_success) &&
      loc.unterminated(&open, &what)) {
    *error = where(filename, open) + what;
    return false;
  }
  if (e != json_tokener_success) {
    *error = where(filename, loc.pos(end)) + message(e, describe(text, end));
    return false;
  }
  if (end < text.size()) {
    *error = where(filename, loc.pos(end)) +
             "expected end of file after the top-level value, got " + describe(text, end) +
             " (MPICH would ignore the rest)";
    return false;
  }
  if (!loc.closed()) {  // json-c returned an inner value at the end of the text
    *error = where(filename, loc.pos(end)) + message(json_tokener_error_parse_eof, "");
    return false;
  }
  if (json_object_is_type(doc.root.get(), json_type_object) &&
      (doc.objects.empty() || !agrees(doc.root.get(), doc, 0))) {
    *error = filename + ": internal error: json-c's reading and the key index disagree";
    return false;
  }
  *out = std::move(doc);
  return true;
}

}  // namespace json
}  // namespace topoa2a
