#include "support/printer.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace opgen {

std::string substitute(std::string_view tmpl, const Vars& vars) {
  std::string out;
  std::set<std::string> used;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    size_t start = tmpl.find('$', pos);
    if (start == std::string_view::npos) {
      out.append(tmpl.substr(pos));
      break;
    }
    out.append(tmpl.substr(pos, start - pos));
    size_t end = tmpl.find('$', start + 1);
    if (end == std::string_view::npos) throw std::logic_error("unterminated $placeholder$ in template");
    std::string name(tmpl.substr(start + 1, end - start - 1));
    if (name.empty()) {
      out.push_back('$');
    } else {
      auto it = vars.find(name);
      if (it == vars.end()) throw std::logic_error(fmt::format("template placeholder ${}$ has no value", name));
      out.append(it->second);
      used.insert(name);
    }
    pos = end + 1;
  }
  for (const auto& [name, value] : vars)
    if (!used.count(name)) throw std::logic_error(fmt::format("template value ${}$ is never used", name));
  return out;
}

void Printer::emit(std::string_view tmpl, const Vars& vars) {
  std::string text = vars.empty() ? std::string(tmpl) : substitute(tmpl, vars);
  for (char c : text) {
    if (at_line_start_ && c != '\n') out_.append(indent_, ' ');
    out_.push_back(c);
    at_line_start_ = c == '\n';
  }
}

void Printer::line(std::string_view text) {
  emit(text);
  emit("\n");
}

std::string cpp_string_literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          // Octal escapes stop after three digits in both C++ and Python.
          out += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string python_string_literal(std::string_view s) {
  // Every escape cpp_string_literal emits means the same in Python.
  return cpp_string_literal(s);
}

}  // namespace opgen
