// What a name must be to become part of the generated code: the rules for
// identifiers, keywords, macros and the Python environment, shared by the
// checks of the library's names (--namespace, --python-package,
// --library-name) and of each op's and argument's name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// Longer names are refused: they become file and directory names (with
// suffixes of up to ~40 characters), which NAME_MAX limits to 255 bytes.
inline constexpr size_t kMaxNameLength = 100;

using model::is_identifier;
bool is_python_keyword(std::string_view name);
// "pkg.module:function", each part a Python identifier.
bool is_python_target(const std::string& target);
bool is_cpp_keyword(std::string_view name);  // keywords and alternative tokens
inline bool is_keyword(std::string_view name) { return is_python_keyword(name) || is_cpp_keyword(name); }

// Why `name`, a valid identifier, cannot be a name in the generated C++: it is
// reserved to the implementation ('__' anywhere, or '_' and an uppercase
// letter), or a macro that GNU C++, the C library, PyTorch or CUDA defines
// (check/macro_names.inc, from scripts/name_tables.py); nullopt when it can.
std::optional<std::string> cpp_name_problem(std::string_view name);
// A name like `name` that cpp_name_problem accepts, to suggest ("__n" -> "n", "EOF" -> "EOF_").
std::string usable_cpp_name(std::string_view name);

// Why `name` cannot be a generated Python package (and the distribution
// `opgen init` names after it): it would shadow a standard-library module,
// or torch, opgen or a distribution they depend on (check/python_names.inc);
// nullopt when it can.
std::optional<std::string> python_package_problem(std::string_view name);

// The library's own names (--namespace, --python-package, --library-name),
// which become C++ and Python identifiers and paths of the output.
void check_library_names(const model::Library& library, Diagnostics& diags);

}  // namespace opgen::check
