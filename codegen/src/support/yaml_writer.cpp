#include "support/yaml_writer.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace opgen {

std::string yaml_double_quoted(std::string_view text) {
  YAML::Emitter out;
  out.SetOutputCharset(YAML::EscapeNonAscii);
  out << YAML::DoubleQuoted << std::string(text);
  return out.c_str();
}

std::string yaml_scalar(std::string_view text) {
  // Plain only for a name that every YAML reader takes as that string: not
  // a number, and none of YAML 1.1's booleans and nulls (PyYAML reads `on` as True).
  static constexpr std::array kSpecial = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool name = !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_') &&
                    std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
  if (name && std::find(kSpecial.begin(), kSpecial.end(), lower) == kSpecial.end()) return std::string(text);
  return yaml_double_quoted(text);
}

std::string yaml_comment(std::string_view text) {
  // Printable ASCII stays; everything else, line breaks of either reader and
  // bytes that may not be UTF-8 included, is written as an escape.
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t' || (c >= 0x20 && c < 0x7f))
      out += ch;
    else
      out += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : fmt::format("\\x{:02x}", c);
  }
  return out;
}

}  // namespace opgen
