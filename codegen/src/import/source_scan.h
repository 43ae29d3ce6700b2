// `opgen import`, stage 1: the tokens of a project's binding sources. Not a
// C++ or Python parser: enough to find registration calls and read their
// arguments as written (string literals joined as the language joins them,
// comments dropped, the preprocessor conditions around each token kept).
#pragma once

#include <map>
#include <set>
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
  // Every #include, in order, with its delimiters: "\"ops.h\"", "<torch/library.h>" (C++).
  std::vector<std::string> includes;
  // For each of `includes`, the #if conditions it stands under that the scan could not decide, as one #if
  // expression ("defined(WITH_CUDA) && (defined(USE_ROCM))"); "" for none (or too long to carry).
  std::vector<std::string> include_conditions;
  // Macros whose body calls .def( or .impl(: their expansions register ops
  // that only the preprocessor can spell (C++).
  std::vector<std::pair<std::string, int>> registering_macros;  // name, line
  // Every macro a #define names, in whatever branch (C++).
  std::vector<std::string> defined_macros;
  // Where the scan stopped short of a limit the C++ standard sets (nesting
  // of #if past 256 levels): "line N: why", for the report.
  std::vector<std::string> notes;
};

// A build configuration: the macros a build defines (`opgen import --define
// NAME[=VALUE]`, like the compiler's -D; a name alone is 1). With one, the
// #if/#ifdef/#ifndef/#elif/#else conditions are evaluated as the
// preprocessor would (an undefined name is 0; the source's own #define and
// #undef count) and what stands in a branch not taken is dropped. A
// condition it cannot evaluate (a function-like macro, __has_include, a
// name of `unknown`) keeps its text as a guard, as every condition does
// without a configuration.
struct Configuration {
  std::map<std::string, std::string> defines;
  // Names whose definition this run cannot know, unless `defines` gives it:
  // those a header the sources include defines (import does not preprocess
  // headers), the compiler's own (names_the_compiler), and those the source
  // defines or undefines in a branch not surely taken.
  std::set<std::string> unknown;
};

// C and C++: comments, preprocessor lines (#include "...", #if nesting;
// other directives skipped), string literals with prefixes and raw strings.
ScannedSource scan_cpp(const std::string& text, const Configuration* configuration = nullptr);
// Python: comments, strings (prefixes, triple quotes; f-strings marked),
// identifiers, numbers, punctuation. Line continuations are whitespace.
ScannedSource scan_python(const std::string& text);

}  // namespace opgen::import
