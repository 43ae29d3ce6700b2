// Text assembly for the emitters. Templates use $name$ placeholders (braces
// are left alone, which keeps C++ templates readable); an unknown or unused
// placeholder is a bug in an emitter and throws.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opgen {

using Vars = std::map<std::string, std::string>;

// Replaces every $name$ in `tmpl` with vars.at(name); "$$" is a literal '$'.
std::string substitute(std::string_view tmpl, const Vars& vars);

class Printer {
 public:
  // Appends the substituted template, indenting each non-empty line by the
  // current indentation.
  void emit(std::string_view tmpl, const Vars& vars = {});
  void line(std::string_view text = "");

  class Indent {
   public:
    explicit Indent(Printer& p, size_t n) : p_(p), n_(n) { p_.indent_ += n_; }
    ~Indent() { p_.indent_ -= n_; }
    Indent(const Indent&) = delete;
    Indent& operator=(const Indent&) = delete;

   private:
    Printer& p_;
    size_t n_;
  };
  Indent indent(size_t n = 2) { return Indent(*this, n); }

  const std::string& str() const { return out_; }

 private:
  std::string out_;
  size_t indent_ = 0;
  bool at_line_start_ = true;
};

// A C++ string literal for `s`, escaped.
std::string cpp_string_literal(std::string_view s);
// A Python string literal for `s`, escaped (double quotes).
std::string python_string_literal(std::string_view s);

}  // namespace opgen
