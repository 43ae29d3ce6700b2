// `opgen import`: the value of a preprocessor condition (`#if` / `#elif`)
// under the macros a build defines. Integer arithmetic, comparisons, the
// logical operators, `defined X` / `defined(X)`; an undefined name is 0, a
// defined one is its value (which must itself be a condition). nullopt for
// what the preprocessor would need more to decide: a function-like macro
// call, __has_include, a value that is not a number, an overflow, a
// division by zero, nesting past 256 levels (the C++ standard's minimum
// limit), or more than 100,000 tokens of work, macro expansions included.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace opgen::import {

std::optional<bool> evaluate_condition(std::string_view condition, const std::map<std::string, std::string>& defines);

// Whether the compiler defines `name` itself, from its target and flags
// (`__AVX2__` from -mavx2, `__aarch64__`, `__CUDACC__`...): a configuration
// may name it (`--define __AVX2__` reads the AVX2 build's branches), but a
// build that defines it by hand, without the flags, gets code for an ISA
// it does not compile for.
bool predefined_by_compiler(std::string_view name);

}  // namespace opgen::import
