// Internal to topology/json.cc: the key index over a text json-c has read
// (where each object member is), split out of json.cc to keep the reading
// and its error messages apart from the scanning.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topology/json.h"

namespace topoa2a {
namespace json {
namespace detail {

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

}  // namespace detail
}  // namespace json
}  // namespace topoa2a
