// Reading a scanned source's tokens (source_scan.h): brackets, call
// arguments, string arguments. Shared by the importers of each language.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/source_scan.h"

namespace opgen::import {

using Tokens = std::vector<Token>;
using TokenRange = std::pair<size_t, size_t>;  // [first, second)

// Punctuation or an identifier spelled `text`.
bool is(const Token& t, std::string_view text);
// The index just past the bracket that closes the one at `open`.
size_t matching(const Tokens& tokens, size_t open);
// The arguments of the call whose "(" is at `open`: token ranges split at
// top-level commas; *end is just past its ")".
std::vector<TokenRange> call_arguments(const Tokens& tokens, size_t open, size_t* end);
// The range's tokens as text (strings quoted, words spaced).
std::string text_of(const Tokens& tokens, TokenRange range);
// At `namespace a::b {` (`i` at `namespace`): the namespace it opens ("a::b",
// "" anonymous) and the index of its "{"; nullopt for an alias
// (`namespace fs = ...;`), `using namespace`, or anything else.
std::optional<std::pair<std::string, size_t>> namespace_opened(const Tokens& tokens, size_t i);
// A string argument: adjacent literals joined, or TORCH_SELECTIVE_SCHEMA /
// TORCH_SELECTIVE_NAME around them. nullopt when anything else is in it (a
// macro that builds the string, an f-string).
std::optional<std::string> string_argument(const Tokens& tokens, TokenRange range);

// Python's lines, which its statements are read by (indentation).
// A source's lines, without their newlines (1-based line N is lines[N - 1]).
std::vector<std::string_view> source_lines(std::string_view text);
// The indentation of 1-based `line`; 0 past the end or on a blank line.
size_t indent_of(const std::vector<std::string_view>& lines, int line);
// Whether token i is the first on its line.
bool starts_line(const Tokens& tokens, size_t i);
// An `=` that assigns or names a keyword argument: not part of `==`, `<=`,
// `>=`, `!=` or an augmented assignment (the scanner splits those).
bool plain_equals(const Tokens& tokens, size_t k);

}  // namespace opgen::import
