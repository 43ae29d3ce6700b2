// Text from outside (a source file's strings and names, a command line)
// that opgen writes into YAML: the specs `opgen import` and `opgen new`
// draft. Every such value goes through yaml-cpp's emitter, and every such
// comment through yaml_comment, so that no text can end a line, open a key
// or read differently in yaml-cpp and in PyYAML (which also breaks lines at
// U+0085, U+2028 and U+2029).
#pragma once

#include <string>
#include <string_view>

namespace opgen {

// A double-quoted scalar holding exactly `text`: escapes for '"', '\\',
// control characters and every non-ASCII character.
std::string yaml_double_quoted(std::string_view text);
// A scalar holding exactly `text`: plain for a name every YAML reader takes
// as that string (a dispatch key, a tag), double-quoted otherwise.
std::string yaml_scalar(std::string_view text);
// `text` made one line of a YAML comment: anything but printable ASCII
// (control characters, U+0085, U+2028, U+2029, any byte past 0x7f) written
// as an escape.
std::string yaml_comment(std::string_view text);

}  // namespace opgen
