#include "import/source_scan.h"

#include <cctype>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "import/pp_condition.h"

namespace opgen::import {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Resolves the common escapes of a C++ or Python string body; others are kept as written.
std::string unescape(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case '\n': break;  // a line continuation inside the literal
      default: out += '\\'; out += c;
    }
  }
  return out;
}

class Scanner {
 public:
  explicit Scanner(const std::string& text, const Configuration* configuration = nullptr) : s_(text) {
    if (configuration) {
      configured_ = true;
      defines_ = configuration->defines;
      unknown_ = configuration->unknown;
    }
  }

  ScannedSource cpp() {
    bool line_start = true;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        line_start = true;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
        continue;
      }
      if (c == '#' && line_start) {
        directive();
        continue;
      }
      line_start = false;
      if (starts("//")) {
        skip_to_line_end();
      } else if (starts("/*")) {
        const size_t end = s_.find("*/", i_ + 2);
        advance_to(end == std::string::npos ? s_.size() : end + 2);
      } else if (ident_start(c)) {
        const size_t start = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        std::string word = s_.substr(start, i_ - start);
        // A string prefix (u8, L, u, U) and raw strings: R"delim(...)delim".
        if (i_ < s_.size() && s_[i_] == '"' && (word == "u8" || word == "L" || word == "u" || word == "U")) {
          cpp_string();
        } else if (i_ < s_.size() && s_[i_] == '"' && !word.empty() && word.back() == 'R' &&
                   (word == "R" || word == "u8R" || word == "LR" || word == "uR" || word == "UR")) {
          cpp_raw_string();
        } else {
          push(Token::Kind::Identifier, word);
        }
      } else if (c == '"') {
        cpp_string();
      } else if (c == '\'') {
        const size_t start = i_++;
        while (i_ < s_.size() && s_[i_] != '\'' && s_[i_] != '\n') i_ += s_[i_] == '\\' ? 2 : 1;
        ++i_;
        push(Token::Kind::Other, s_.substr(start, std::min(i_, s_.size()) - start));
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number();
      } else {
        punct();
      }
    }
    return std::move(out_);
  }

  ScannedSource python() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c)) || (c == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n')) {
        ++i_;
        continue;
      }
      if (c == '#') {
        skip_to_line_end();
      } else if (ident_start(c)) {
        const size_t start = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        std::string word = s_.substr(start, i_ - start);
        std::string lower;
        for (char w : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(w)));
        const bool prefix = lower.size() <= 2 && lower.find_first_not_of("rbuf") == std::string::npos;
        if (prefix && i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
          python_string(lower.find('r') != std::string::npos, lower.find('f') != std::string::npos);
        } else {
          push(Token::Kind::Identifier, word);
        }
      } else if (c == '"' || c == '\'') {
        python_string(false, false);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number();
      } else {
        punct();
      }
    }
    return std::move(out_);
  }

 private:
  bool starts(std::string_view prefix) const { return std::string_view(s_).substr(i_).starts_with(prefix); }

  void advance_to(size_t end) {
    for (; i_ < end && i_ < s_.size(); ++i_)
      if (s_[i_] == '\n') ++line_;
  }

  void skip_to_line_end() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
  }

  void push(Token::Kind kind, std::string text, bool raw = false, bool formatted = false) {
    if (!active()) return;
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.raw_string = raw;
    t.formatted = formatted;
    t.line = line_;
    t.guard = guard_index();
    out_.tokens.push_back(std::move(t));
  }

  // One #if ... #endif chain, at the branch the scanner is in.
  struct Frame {
    std::optional<bool> taking;  // this branch: taken, not taken, or not known (its text becomes a guard)
    bool taken_before = false;   // an earlier branch of the chain was surely taken
    bool unknown_before = false; // an earlier branch's condition could not be decided
    std::string text;            // "#elif X (after #if Y)"
    // This branch's condition as an #if expression ("defined(X) && !(Y)"), and the negation of every branch before
    // it and of its own, for the next #elif or #else; "" past kMaxConditionText (the branch's includes are then
    // copied without it).
    std::string expression;
    std::string none_before;
  };
  static constexpr size_t kMaxConditionText = 4096;
  // "" past kMaxConditionText, or where the text holds what could reach past its own #if line when written out
  // again (a comment opener or closer, a backslash): the include is then copied without it.
  static std::string capped(std::string text) {
    const bool unsafe = text.find("/*") != std::string::npos || text.find("*/") != std::string::npos ||
                        text.find("//") != std::string::npos || text.find('\\') != std::string::npos;
    return text.size() > kMaxConditionText || unsafe ? "" : text;
  }
  // `#ifdef X` -> "defined(X)", `#ifndef X` -> "!defined(X)", `#if E` -> "(E)".
  static std::string if_expression(const std::string& kind, const std::string& rest) {
    if (kind == "ifdef" || kind == "ifndef") return (kind == "ifndef" ? "!defined(" : "defined(") + rest + ")";
    return "(" + rest + ")";
  }
  // The conditions of the branches the scan could not decide, joined: what an #include at hand is compiled
  // under. "" where it stands in none, or where one is too long to carry (then the include is read as plain).
  std::string include_condition() const {
    std::string joined;
    for (const auto& f : frames_) {
      if (f.taking.has_value()) continue;
      if (f.expression.empty() || joined.size() + f.expression.size() > kMaxConditionText) return "";
      joined += (joined.empty() ? "" : " && ") + f.expression;
    }
    return joined;
  }

  // Whether the code at hand is compiled: no enclosing branch surely not taken.
  bool active() const {
    for (const auto& f : frames_)
      if (f.taking == false) return false;
    return true;
  }

  bool surely_active() const {
    for (const auto& f : frames_)
      if (f.taking != true) return false;
    return true;
  }

  // The branch of `frame` whose own condition evaluates to `own`.
  static void enter_branch(Frame& frame, std::optional<bool> own) {
    if (frame.taken_before || own == false) {
      frame.taking = false;
    } else {
      frame.taking = frame.unknown_before || !own ? std::nullopt : std::optional<bool>(true);
    }
    frame.taken_before = frame.taken_before || frame.taking == true;
    frame.unknown_before = frame.unknown_before || !frame.taking.has_value();
  }

  std::optional<bool> condition(const std::string& kind, const std::string& rest) {
    if (!configured_) return std::nullopt;
    if (kind == "ifdef" || kind == "ifndef") {
      size_t end = 0;
      while (end < rest.size() && ident_char(rest[end])) ++end;
      if (end == 0) return std::nullopt;
      const std::string macro = rest.substr(0, end);
      if (!defines_.count(macro) && unknown_.count(macro)) return std::nullopt;
      return (defines_.count(macro) > 0) == (kind == "ifdef");
    }
    return evaluate_condition(rest, defines_, unknown_);
  }

  // The guard of the tokens at hand, computed again only after a directive
  // changed the #if frames: a token costs nothing more however deep they are.
  int guard_index() {
    if (!guard_stale_) return guard_;
    guard_stale_ = false;
    guard_ = compute_guard_index();
    return guard_;
  }

  int compute_guard_index() {
    std::string joined;
    for (const auto& f : frames_)
      if (!f.taking.has_value()) joined += (joined.empty() ? "" : " && ") + f.text;
    if (joined.empty()) return -1;
    for (size_t k = 0; k < out_.guards.size(); ++k)
      if (out_.guards[k] == joined) return static_cast<int>(k);
    out_.guards.push_back(joined);
    return static_cast<int>(out_.guards.size() - 1);
  }

  // One preprocessor line (with its continuations): #include "..." and the
  // #if nesting are kept; the rest is skipped.
  void directive() {
    const int directive_line = line_;
    std::string text;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
        i_ += 2;
        ++line_;
        text += ' ';
        continue;
      }
      if (starts("//")) {
        skip_to_line_end();
        break;
      }
      text += s_[i_++];
    }
    size_t k = 1;
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    size_t end = k;
    while (end < text.size() && ident_char(text[end])) ++end;
    const std::string name = text.substr(k, end - k);
    std::string rest = text.substr(end);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.erase(rest.begin());
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
    guard_stale_ = true;
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      if (frames_.size() >= kMaxIfNesting) {
        // Past what the standard asks of a compiler (Annex B: 256 levels of
        // conditional inclusion): the rest of the file is not read, rather
        // than read at a cost that grows with the square of the depth.
        out_.notes.push_back(fmt::format("line {}: #if nested deeper than {} levels (the C++ standard's limit): the "
                                         "rest of the file is not read", directive_line, kMaxIfNesting));
        i_ = s_.size();
        return;
      }
      Frame frame;
      frame.text = bounded("#" + name + " " + rest);
      frame.expression = capped(if_expression(name, rest));
      frame.none_before = frame.expression.empty() ? "" : "!" + frame.expression;
      if (!active()) {
        frame.taking = false;
        frame.taken_before = true;  // its #elif and #else stay out too
      } else {
        enter_branch(frame, condition(name, rest));
      }
      frames_.push_back(std::move(frame));
      return;
    }
    if ((name == "elif" || name == "else") && !frames_.empty()) {
      Frame frame = std::move(frames_.back());
      frame.text = bounded("#" + name + (rest.empty() ? "" : " " + rest) + " (after " + frame.text + ")");
      const std::string own = name == "else" ? "" : if_expression("if", rest);
      const bool known = !frame.none_before.empty();
      frame.expression = known ? capped(own.empty() ? frame.none_before : frame.none_before + " && " + own) : "";
      frame.none_before = known && !own.empty() ? capped(frame.none_before + " && !" + own) : "";
      frames_.pop_back();
      const bool enclosing = active();
      frames_.push_back(std::move(frame));
      if (enclosing) enter_branch(frames_.back(), name == "else" ? std::optional<bool>(true) : condition("if", rest));
      return;
    }
    if (name == "endif" && !frames_.empty()) {
      frames_.pop_back();
      return;
    }
    if (!active()) return;
    if (name == "include" && rest.size() > 2 && rest.front() == '"') {
      if (const size_t close = rest.find('"', 1); close != std::string::npos) {
        out_.quoted_includes.push_back(rest.substr(1, close - 1));
        out_.includes.push_back(rest.substr(0, close + 1));
        out_.include_conditions.push_back(include_condition());
      }
    } else if (name == "include" && rest.size() > 2 && rest.front() == '<') {
      if (const size_t close = rest.find('>', 1); close != std::string::npos) {
        out_.includes.push_back(rest.substr(0, close + 1));
        out_.include_conditions.push_back(include_condition());
      }
    } else if (name == "define") {
      size_t macro_end = 0;
      while (macro_end < rest.size() && ident_char(rest[macro_end])) ++macro_end;
      const std::string macro = rest.substr(0, macro_end);
      if (rest.find(".def(") != std::string::npos || rest.find(".impl(") != std::string::npos)
        out_.registering_macros.emplace_back(macro, directive_line);
      if (!macro.empty()) out_.defined_macros.push_back(macro);
      if (configured_ && !macro.empty()) {
        std::string value = rest.substr(macro_end);
        if (!value.empty() && value.front() == '(') value.clear();  // a function-like macro: defined, no value
        while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(value.begin());
        maybe_define(macro, std::move(value));
      }
    } else if (name == "undef" && configured_) {
      size_t macro_end = 0;
      while (macro_end < rest.size() && ident_char(rest[macro_end])) ++macro_end;
      maybe_define(rest.substr(0, macro_end), std::nullopt);
    }
  }

  // A #define (a value) or #undef (nullopt) in the branch at hand: in one not
  // surely taken, the macro's definition is not known after it.
  void maybe_define(const std::string& macro, std::optional<std::string> value) {
    if (macro.empty()) return;
    if (!surely_active()) {
      defines_.erase(macro);
      unknown_.insert(macro);
    } else if (value) {
      defines_[macro] = std::move(*value);
      unknown_.erase(macro);
    } else {
      defines_.erase(macro);
      unknown_.erase(macro);
    }
  }

  void cpp_string() {
    const size_t start = ++i_;  // past the opening quote
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\n') i_ += s_[i_] == '\\' ? 2 : 1;
    const size_t end = std::min(i_, s_.size());
    push(Token::Kind::String, unescape(std::string_view(s_).substr(start, end - start)));
    if (i_ < s_.size() && s_[i_] == '"') ++i_;
  }

  // A guard's text, cut to a length a spec's comment can carry (a chain of
  // #elif repeats the conditions before it).
  static std::string bounded(std::string text) {
    constexpr size_t kMaxGuardText = 1000;
    if (text.size() > kMaxGuardText) text = text.substr(0, kMaxGuardText - 3) + "...";
    return text;
  }

  void cpp_raw_string() {
    // The delimiter: at most 16 characters, none of space, parentheses,
    // backslash or a control character ([lex.string]). Anything else is no
    // raw string, and is read as an ordinary one (a search for a long
    // delimiter would cost its length at every position).
    size_t open = i_ + 1;
    while (open < s_.size() && open - i_ - 1 <= 16 && s_[open] != '(' && s_[open] != ')' && s_[open] != '\\' &&
           !std::isspace(static_cast<unsigned char>(s_[open])) && !std::iscntrl(static_cast<unsigned char>(s_[open])))
      ++open;
    if (open >= s_.size() || s_[open] != '(' || open - i_ - 1 > 16) {
      cpp_string();
      return;
    }
    const std::string delim = ")" + s_.substr(i_ + 1, open - i_ - 1) + "\"";
    const size_t close = s_.find(delim, open + 1);
    const size_t end = close == std::string::npos ? s_.size() : close;
    const int line = line_;
    std::string body = s_.substr(open + 1, end - open - 1);
    advance_to(close == std::string::npos ? s_.size() : close + delim.size());
    const int after = line_;
    line_ = line;
    push(Token::Kind::String, std::move(body), true);
    line_ = after;
  }

  void python_string(bool raw, bool formatted) {
    const char quote = s_[i_];
    const bool triple = starts(std::string(3, quote));
    const std::string closing = triple ? std::string(3, quote) : std::string(1, quote);
    i_ += closing.size();
    const size_t start = i_;
    const int line = line_;
    while (i_ < s_.size() && !starts(closing)) {
      if (!triple && s_[i_] == '\n') break;
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        if (s_[i_ + 1] == '\n') ++line_;
        i_ += 2;
        continue;
      }
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    const std::string_view body = std::string_view(s_).substr(start, std::min(i_, s_.size()) - start);
    const int after = line_;
    line_ = line;
    push(Token::Kind::String, raw ? std::string(body) : unescape(body), raw, formatted);
    line_ = after;
    if (starts(closing)) i_ += closing.size();
  }

  void number() {
    const size_t start = i_;
    while (i_ < s_.size() && (ident_char(s_[i_]) || s_[i_] == '.' || s_[i_] == '\'')) ++i_;
    push(Token::Kind::Number, s_.substr(start, i_ - start));
  }

  void punct() {
    for (std::string_view two : {"::", "->", "**"}) {
      if (starts(two)) {
        push(Token::Kind::Punct, std::string(two));
        i_ += 2;
        return;
      }
    }
    push(Token::Kind::Punct, std::string(1, s_[i_++]));
  }

  const std::string& s_;
  size_t i_ = 0;
  int line_ = 1;
  std::vector<Frame> frames_;
  static constexpr size_t kMaxIfNesting = 256;
  int guard_ = -1;
  bool guard_stale_ = true;
  bool configured_ = false;
  std::map<std::string, std::string> defines_;
  std::set<std::string> unknown_;
  ScannedSource out_;
};

}  // namespace

ScannedSource scan_cpp(const std::string& text, const Configuration* configuration) {
  return Scanner(text, configuration).cpp();
}
ScannedSource scan_python(const std::string& text) { return Scanner(text).python(); }

}  // namespace opgen::import
