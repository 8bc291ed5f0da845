#include "topology/json.h"

#include <cstdio>
#include <cstdlib>

namespace topoa2a {
namespace json {

const char* to_string(Type t) {
  switch (t) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "boolean";
    case Type::kNumber:
      return "number";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 200;

class Parser {
 public:
  Parser(const std::string& text, const std::string& filename) : s_(text), file_(filename) {}

  bool document(Value* out, std::string* error) {
    error_ = error;
    if (!skip()) return false;
    if (pos_ >= s_.size()) return fail("expected a JSON value, got end of file");
    if (!value(out, 0)) return false;
    if (!skip()) return false;
    if (pos_ < s_.size()) return fail("expected end of file after the top-level value");
    return true;
  }

 private:
  bool fail(const std::string& msg) { return fail_at(line_, col(), msg); }
  bool fail_at(int line, int column, const std::string& msg) {
    *error_ = file_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + msg;
    return false;
  }
  int col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  // Skip blanks and comments.
  bool skip() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance();
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*') {
        const int l = line_, cc = col();
        advance();
        advance();
        while (pos_ + 1 < s_.size() && !(s_[pos_] == '*' && s_[pos_ + 1] == '/')) advance();
        if (pos_ + 1 >= s_.size()) return fail_at(l, cc, "unterminated /* comment");
        advance();
        advance();
      } else {
        break;
      }
    }
    return true;
  }

  std::string describe_here() const {
    if (pos_ >= s_.size()) return "end of file";
    const char c = s_[pos_];
    if (static_cast<unsigned char>(c) < 0x20) return "a control character";
    return std::string("'") + c + "'";
  }

  bool value(Value* v, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth));
    v->line = line_;
    v->column = col();
    if (pos_ >= s_.size()) return fail("expected a JSON value, got end of file");
    const char c = s_[pos_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v->type = Type::kString;
      return string(&v->string);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    if (literal("true")) {
      v->type = Type::kBool;
      v->boolean = true;
      return true;
    }
    if (literal("false")) {
      v->type = Type::kBool;
      return true;
    }
    if (literal("null")) {
      v->type = Type::kNull;
      return true;
    }
    return fail("expected a JSON value (object, array, string, number, true, false, null), got " +
                describe_here());
  }

  bool literal(const char* word) {
    size_t n = 0;
    while (word[n]) ++n;
    if (s_.compare(pos_, n, word) != 0) return false;
    for (size_t i = 0; i < n; ++i) advance();
    return true;
  }

  bool object(Value* v, int depth) {
    v->type = Type::kObject;
    advance();  // {
    if (!skip()) return false;
    if (pos_ < s_.size() && s_[pos_] == '}') {
      advance();
      return true;
    }
    while (true) {
      if (pos_ >= s_.size() || s_[pos_] != '"')
        return fail("expected a string key in double quotes, got " + describe_here());
      Member m;
      m.line = line_;
      m.column = col();
      if (!string(&m.key)) return false;
      if (!skip()) return false;
      if (pos_ >= s_.size() || s_[pos_] != ':')
        return fail("expected ':' after the key, got " + describe_here());
      advance();
      if (!skip()) return false;
      m.value = std::make_unique<Value>();
      if (!value(m.value.get(), depth + 1)) return false;
      v->members.push_back(std::move(m));
      if (!skip()) return false;
      if (pos_ < s_.size() && s_[pos_] == ',') {
        advance();
        if (!skip()) return false;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        advance();
        return true;
      }
      return fail("expected ',' or '}' in the object, got " + describe_here());
    }
  }

  bool array(Value* v, int depth) {
    v->type = Type::kArray;
    advance();  // [
    if (!skip()) return false;
    if (pos_ < s_.size() && s_[pos_] == ']') {
      advance();
      return true;
    }
    while (true) {
      Value item;
      if (!value(&item, depth + 1)) return false;
      v->items.push_back(std::move(item));
      if (!skip()) return false;
      if (pos_ < s_.size() && s_[pos_] == ',') {
        advance();
        if (!skip()) return false;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        advance();
        return true;
      }
      return fail("expected ',' or ']' in the array, got " + describe_here());
    }
  }

  static void put_utf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool hex4(unsigned* out) {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      if (pos_ >= s_.size()) return fail("expected 4 hex digits after \\u, got end of file");
      const char c = s_[pos_];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return fail("expected 4 hex digits after \\u, got " + describe_here());
      v = v * 16 + d;
      advance();
    }
    *out = v;
    return true;
  }

  bool string(std::string* out) {
    const int l = line_, c0 = col();
    advance();  // "
    out->clear();
    while (true) {
      if (pos_ >= s_.size()) return fail_at(l, c0, "unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("expected '\"' to close the string, got " + describe_here());
      if (c != '\\') {
        out->push_back(c);
        advance();
        continue;
      }
      advance();
      if (pos_ >= s_.size()) return fail_at(l, c0, "unterminated string");
      const char e = s_[pos_];
      const char* simple = "\"\\/bfnrt";
      const char* repl = "\"\\/\b\f\n\r\t";
      bool done = false;
      for (int i = 0; simple[i]; ++i) {
        if (e == simple[i]) {
          out->push_back(repl[i]);
          advance();
          done = true;
          break;
        }
      }
      if (done) continue;
      if (e != 'u') return fail("expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      advance();
      unsigned cp = 0;
      if (!hex4(&cp)) return false;
      if (cp >= 0xD800 && cp < 0xDC00 && pos_ + 1 < s_.size() && s_[pos_] == '\\' &&
          s_[pos_ + 1] == 'u') {
        advance();
        advance();
        unsigned lo = 0;
        if (!hex4(&lo)) return false;
        if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      put_utf8(cp, out);
    }
  }

  bool number(Value* v) {
    const size_t start = pos_;
    auto digits = [&]() {
      size_t n = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        advance();
        ++n;
      }
      return n;
    };
    if (s_[pos_] == '-') advance();
    if (pos_ < s_.size() && s_[pos_] == '0') {
      advance();
    } else if (digits() == 0) {
      return fail("expected a digit, got " + describe_here());
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      advance();
      if (digits() == 0) return fail("expected a digit after '.', got " + describe_here());
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      advance();
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) advance();
      if (digits() == 0) return fail("expected a digit in the exponent, got " + describe_here());
    }
    v->type = Type::kNumber;
    v->number = std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr);
    return true;
  }

  const std::string& s_;
  const std::string& file_;
  std::string* error_ = nullptr;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

bool parse(const std::string& text, const std::string& filename, Value* out, std::string* error) {
  Value v;
  Parser p(text, filename);
  if (!p.document(&v, error)) return false;
  *out = std::move(v);
  return true;
}

namespace {

void write_string(const std::string& s, std::string* out) {
  out->push_back('"');
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out->append(buf);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

// Iterative over the nesting would be no shorter: depth is bounded by the
// parser's kMaxDepth.
void write_value(const Value& v, std::string* out) {
  switch (v.type) {
    case Type::kNull:
      out->append("null");
      return;
    case Type::kBool:
      out->append(v.boolean ? "true" : "false");
      return;
    case Type::kNumber: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.number);
      out->append(buf);
      return;
    }
    case Type::kString:
      write_string(v.string, out);
      return;
    case Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out->push_back(',');
        write_value(v.items[i], out);
      }
      out->push_back(']');
      return;
    case Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out->push_back(',');
        write_string(v.members[i].key, out);
        out->push_back(':');
        write_value(*v.members[i].value, out);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

std::string write(const Value& v) {
  std::string out;
  write_value(v, &out);
  return out;
}

}  // namespace json
}  // namespace topoa2a
