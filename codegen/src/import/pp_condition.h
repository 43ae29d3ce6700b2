// `opgen import`: the value of a preprocessor condition (`#if` / `#elif`)
// under the macros a build defines. Integer arithmetic, comparisons, the
// logical operators, `defined X` / `defined(X)`; an undefined name is 0, a
// defined one is its value (which must itself be a condition), and a name of
// `unknown` (a macro a header may define, a compiler's version) has a value
// this run does not know: `X || 1` is still 1 and `X && 0` still 0.
// nullopt for what the preprocessor would need more to decide: a value not
// known, a function-like macro call, __has_include, a value that is not a
// number, an overflow, a division by zero, nesting past 256 levels (the C++
// standard's minimum limit), or more than 100,000 tokens of work, macro
// expansions included.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace opgen::import {

std::optional<bool> evaluate_condition(std::string_view condition, const std::map<std::string, std::string>& defines,
                                       const std::set<std::string>& unknown = {});

// Whether the compiler defines `name` itself, from its target and flags
// (`__AVX2__` from -mavx2, `__aarch64__`, `__CUDACC__`...): a configuration
// may name it (`--define __AVX2__` reads the AVX2 build's branches), but a
// build that defines it by hand, without the flags, gets code for an ISA
// it does not compile for.
bool predefined_by_compiler(std::string_view name);

// The macros that say which compiler, and which version of it, compiles the
// file (`__CUDACC_VER_MAJOR__`, `__GNUC__`, `__clang__`, `__cplusplus`...):
// every compiler defines its own, so a configuration that does not give one
// does not say it is undefined. Its value is not known (`unknown` above);
// `--define __CUDACC_VER_MAJOR__=13` decides it. Not among them: what no
// host compilation of a registration defines (`__CUDA_ARCH__`, the device
// pass's) and the target's instruction sets and system, which a build has
// or lacks by its flags.
bool names_the_compiler(std::string_view name);
std::span<const std::string_view> compiler_macros();  // the names it knows

}  // namespace opgen::import
