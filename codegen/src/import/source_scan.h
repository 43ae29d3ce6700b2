// `opgen import`, stage 1: the tokens of a project's binding sources. Not a
// C++ or Python parser: enough to find registration calls and read their
// arguments as written (string literals joined as the language joins them,
// comments dropped, the preprocessor conditions around each token kept).
#pragma once

#include <string>
#include <vector>

namespace opgen::import {

struct Token {
  enum class Kind { Identifier, String, Number, Punct, Other };
  Kind kind = Kind::Other;
  std::string text;   // an identifier, a string's value (escapes resolved), punctuation ("::", "->", "(")
  bool raw_string = false;
  bool formatted = false;  // a Python f-string: its value is not known
  int line = 0;            // 1-based
  int guard = -1;          // index into ScannedSource::guards, -1: none
};

struct ScannedSource {
  std::vector<Token> tokens;
  // The conditions of the #if/#ifdef/#ifndef blocks a token stands in,
  // joined with " && " ("#ifdef HAS_X && #else of #if Y").
  std::vector<std::string> guards;
  std::vector<std::string> quoted_includes;  // #include "..." (C++)
  // Macros whose body calls .def( or .impl(: their expansions register ops
  // that only the preprocessor can spell (C++).
  std::vector<std::pair<std::string, int>> registering_macros;  // name, line
};

// C and C++: comments, preprocessor lines (#include "...", #if nesting;
// other directives skipped), string literals with prefixes and raw strings.
ScannedSource scan_cpp(const std::string& text);
// Python: comments, strings (prefixes, triple quotes; f-strings marked),
// identifiers, numbers, punctuation. Line continuations are whitespace.
ScannedSource scan_python(const std::string& text);

}  // namespace opgen::import
