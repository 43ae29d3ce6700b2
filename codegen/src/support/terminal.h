// Colour on a terminal: diagnostics on stderr are coloured (`error` red,
// `warning` magenta, `note` cyan, the location bold) when stderr is a
// terminal and NO_COLOR (https://no-color.org) is unset or empty.
// FORCE_COLOR, set and not empty, colours even when it is not a terminal.
// Text written anywhere else (the stamp's replayed warnings, captured
// output) stays plain: the colour is added on the way to the terminal.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace opgen {

// Whether stderr gets colour, from the environment and the terminal.
bool stderr_wants_colour();

// One printed diagnostic line with ANSI colour; other lines unchanged.
std::string colourize_line(std::string_view line);

// While alive, routes `stream` through colourize_line, line by line.
class ColourLines {
 public:
  explicit ColourLines(std::ostream& stream);
  ~ColourLines();
  ColourLines(const ColourLines&) = delete;
  ColourLines& operator=(const ColourLines&) = delete;

 private:
  class Buf;
  std::ostream& stream_;
  std::streambuf* original_;
  std::unique_ptr<Buf> buf_;
};

}  // namespace opgen
