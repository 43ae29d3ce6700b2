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
// Why `path` cannot be spelled in Python as a dotted name (`import a.b`,
// `a.b.C`): a part that is not an identifier, or is a keyword (`class`,
// `None`, `import`), which makes the generated module a SyntaxError; nullopt
// when it can. min_parts: 2 for a class's module.Qualname.
std::optional<std::string> python_path_problem(std::string_view path, size_t min_parts = 1);
// The same for a target, "pkg.module:function": a dotted module path, ':', a function.
std::optional<std::string> python_target_problem(std::string_view target);
inline bool is_python_target(std::string_view target) { return !python_target_problem(target); }
// A note for a target or path that is refused because a part is a keyword
// ("'class' is a Python keyword: ..."); nullopt for any other reason.
std::optional<std::string> python_keyword_note(std::string_view target_or_path);
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

// Whether torch has the dtype `dtype` names; reports it with a did-you-mean when not (E0601).
bool check_known_dtype(const model::Located<std::string>& dtype, Diagnostics& diags);

}  // namespace opgen::check
