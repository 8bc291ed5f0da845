#include "topology/json.h"

#include <algorithm>
#include <climits>
#include <unordered_map>

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

// The key index: one pass over text that json-c has read, finding where
// each object member is. It is not a parser (json-c has already decided
// what the text means, and whether it is valid): it knows only what it
// takes to find the keys. Strings (in " or ', with backslash escapes) and
// comments are skipped whole, so that no brace inside them counts; a key is
// the first string after an object's '{' or ','; a member's value starts at
// the next token after its key. Blanks, ':', numbers and literals are
// passed over. Keys are compared as json-c decodes them (json-c itself
// decodes those with an escape), so a repeated key is found as json-c
// merges it.
class Locator {
 public:
  Locator(const std::string& text, size_t end) : s_(text), end_(end) {}

  void run(Document* doc) {
    doc_ = doc;
    size_t i = 0;
    while (i < end_) {
      const char c = s_[i];
      const Position p = pos(i);
      if (c == '\n') {
        line_start_ = i + 1;
        ++line_;
        ++i;
      } else if (c == '/' && i + 1 < end_ && (s_[i + 1] == '*' || s_[i + 1] == '/')) {
        i = skip_comment(i, p);
      } else if (c == '"' || c == '\'') {
        const size_t close = skip_string(i, p);
        if (close < end_) string_token(i, close, p);
        i = close + 1;
      } else {
        if (c == '{' || c == '[') {
          value_at(p, c);
        } else if (c == '}' || c == ']') {
          if (!stack_.empty()) stack_.pop_back();
        } else if (c == ',') {
          if (!stack_.empty()) stack_.back().want_key = true;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != ':') {
          value_at(p, c);  // a number's or literal's first character (the rest: no-ops)
        }
        ++i;
      }
    }
  }

  Position pos(size_t i) const { return {line_, static_cast<int>(i - line_start_) + 1}; }
  // Where the text ended inside a string or a comment: where it opened.
  bool unterminated(Position* at, const char** what) const {
    *at = open_at_;
    *what = open_what_;
    return open_what_ != nullptr;
  }
  bool closed() const { return stack_.empty(); }

 private:
  struct Frame {
    bool object = false;
    int index = -1;                             // in doc_->objects
    bool want_key = false;                      // the next string is a key
    int pending = -1;                           // the member whose value comes next
    std::unordered_map<std::string, int> seen;  // key -> member index
  };

  size_t skip_comment(size_t i, Position p) {
    if (s_[i + 1] == '/') {
      while (i < end_ && s_[i] != '\n') ++i;
      return i;  // the '\n' is counted by run()
    }
    for (i += 2; i + 1 < end_ && !(s_[i] == '*' && s_[i + 1] == '/'); ++i) newline_at(i);
    if (i + 1 < end_) return i + 2;
    open_at_ = p;
    open_what_ = "unterminated /* comment";
    return end_;
  }

  // Returns the closing quote's index (end_ when there is none).
  size_t skip_string(size_t i, Position p) {
    const char quote = s_[i];
    for (++i; i < end_ && s_[i] != quote; ++i) {
      if (s_[i] == '\\' && i + 1 < end_) ++i;
      newline_at(i);  // json-c allows raw newlines in strings
    }
    if (i >= end_) {
      open_at_ = p;
      open_what_ = "unterminated string";
    }
    return i;
  }

  void newline_at(size_t i) {
    if (s_[i] == '\n') {
      ++line_;
      line_start_ = i + 1;
    }
  }

  void string_token(size_t open, size_t close, Position p) {
    if (stack_.empty() || !stack_.back().object || !stack_.back().want_key) {
      value_at(p, '"');
      return;
    }
    Frame& f = stack_.back();
    f.want_key = false;
    Object& o = doc_->objects[f.index];
    std::string key = decode(open, close);
    const auto [it, inserted] = f.seen.emplace(key, static_cast<int>(o.members.size()));
    if (inserted) {
      Member m;
      m.key = std::move(key);
      m.key_pos = p;
      o.members.push_back(std::move(m));
    } else {  // json-c keeps the first's place and takes this one's value
      o.repeats.push_back({std::move(key), p, o.members[it->second].key_pos});
    }
    f.pending = it->second;
  }

  // A key as json-c decodes it; json-c decodes those with an escape.
  std::string decode(size_t open, size_t close) const {
    std::string raw = s_.substr(open + 1, close - open - 1);
    if (raw.find('\\') == std::string::npos) return raw;
    JsonPtr v(json_tokener_parse(s_.substr(open, close - open + 1).c_str()));
    return v ? json_object_get_string(v.get()) : raw;  // a key: up to a \u0000, as json-c's
  }

  // A value starts at p with character c.
  void value_at(Position p, char c) {
    const bool object = c == '{';
    const int index = object ? static_cast<int>(doc_->objects.size()) : -1;
    if (stack_.empty()) {
      if (!root_seen_) doc_->root_pos = p;
      root_seen_ = true;
    } else if (stack_.back().object && stack_.back().pending >= 0) {
      Frame& f = stack_.back();
      Member& m = doc_->objects[f.index].members[f.pending];
      m.value_pos = p;
      m.object = index;
      f.pending = -1;
    }
    if (object) {
      doc_->objects.push_back(Object{p, {}, {}});
      Frame f;
      f.object = true;
      f.index = index;
      f.want_key = true;
      stack_.push_back(std::move(f));
    } else if (c == '[') {
      stack_.push_back(Frame{});
    }
  }

  const std::string& s_;
  const size_t end_;
  Document* doc_ = nullptr;
  std::vector<Frame> stack_;
  bool root_seen_ = false;
  int line_ = 1;
  size_t line_start_ = 0;
  Position open_at_;
  const char* open_what_ = nullptr;
};

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
  Locator loc(text, end);
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
