#include "check/names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "model/types.h"
#include "support/diagnostic_codes.h"

namespace opgen::check {
namespace {

// Python's keywords: never a name in the generated Python.
constexpr std::array kPythonKeywords = std::to_array<std::string_view>({
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"});

// C++'s keywords and alternative tokens: never a name in the generated C++.
constexpr std::array kCppKeywords = std::to_array<std::string_view>({
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
    "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const",
    "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await", "co_return",
    "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"});

// Generated from the compilers and the Python environment: scripts/name_tables.py.
constexpr std::array kMacroNames = std::to_array<std::string_view>({
#include "check/macro_names.inc"
});
constexpr std::array kPythonNames = std::to_array<std::string_view>({
#include "check/python_names.inc"
});

template <size_t N>
bool contains(const std::array<std::string_view, N>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

}  // namespace

bool is_python_keyword(std::string_view name) {
  return std::find(kPythonKeywords.begin(), kPythonKeywords.end(), name) != kPythonKeywords.end();
}

bool is_cpp_keyword(std::string_view name) {
  return std::find(kCppKeywords.begin(), kCppKeywords.end(), name) != kCppKeywords.end();
}

std::optional<std::string> cpp_name_problem(std::string_view name) {
  if (name.find("__") != std::string_view::npos ||
      (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
    return "C++ reserves it to the implementation ('__' anywhere, or '_' and an uppercase letter)";
  if (contains(kMacroNames, name))
    return "GNU C++, the C library, PyTorch or CUDA defines it as a macro, so the generated C++ would not compile";
  return std::nullopt;
}

std::string usable_cpp_name(std::string_view name) {
  std::string usable;
  for (char c : name)
    if (c != '_' || (!usable.empty() && usable.back() != '_')) usable.push_back(c);
  if (usable.empty()) usable = "x";
  while (cpp_name_problem(usable) || is_keyword(usable)) usable += '_';
  return usable;
}

std::optional<std::string> python_package_problem(std::string_view name) {
  if (!contains(kPythonNames, name)) return std::nullopt;
  return fmt::format("a Python module or distribution of that name is already there (the standard library, torch, "
                     "opgen, or what they depend on): '{}' would shadow it on the path, and a wheel of that name "
                     "would replace it",
                     name);
}

void check_library_names(const model::Library& lib, Diagnostics& diags) {
  // Namespaces PyTorch itself defines with TORCH_LIBRARY: a second definition aborts the load.
  static const std::set<std::string, std::less<>> kTorchNamespaces = {
      "aten", "prim", "prims", "torch", "c10", "cuda", "quantized", "_quantized", "profiler", "inductor",
      "_c10d_functional", "c10d", "symm_mem", "mkldnn", "_test", "fbgemm", "_inductor_test", "higher_order"};
  auto invalid = [&](std::string_view option, std::string_view what, const std::string& name, std::string why) {
    diags.error(Code::InvalidLibraryName, {std::string(option), 0, 0},
                fmt::format("'{}' is not a valid {}: {}", name, what, why));
  };
  const std::string kIdentifier = "use letters, digits and '_', not starting with a digit";
  const std::string kTooLong = fmt::format("it is longer than {} characters, and names files", kMaxNameLength);
  if (!is_identifier(lib.ns)) {
    invalid("--namespace", "namespace", lib.ns, kIdentifier);
  } else if (lib.ns.size() > kMaxNameLength) {
    invalid("--namespace", "namespace", lib.ns, kTooLong);
  } else if (is_keyword(lib.ns)) {
    invalid("--namespace", "namespace", lib.ns, "it is a keyword of C++ or Python");
  } else if (kTorchNamespaces.count(lib.ns) && !lib.fragment) {
    // A library may add ops to it as fragments, as PyTorch allows (E0905's note).
    invalid("--namespace", "namespace", lib.ns,
            "PyTorch defines it, and a second TORCH_LIBRARY block for it fails to load; add the ops to it as "
            "fragments (--fragment; opgen_add_library(... FRAGMENT)), or name the library's own namespace");
  } else if (lib.ns.size() > 4 && lib.ns.starts_with("__") && lib.ns.ends_with("__")) {
    invalid("--namespace", "namespace", lib.ns,
            fmt::format("torch.ops.{} reads an attribute of the torch.ops module itself, not the namespace", lib.ns));
  } else if (contains(kMacroNames, lib.ns)) {
    // The registration macros take the namespace as a C++ token: TORCH_LIBRARY(linux, m) reads TORCH_LIBRARY(1, m).
    invalid("--namespace", "namespace", lib.ns,
            "GNU C++, the C library, PyTorch or CUDA defines it as a macro, and TORCH_LIBRARY takes the namespace "
            "as a C++ token");
  } else if (auto why = cpp_name_problem(lib.cpp_ns())) {
    // A name C++ reserves (`_C`) is registered as written; its generated code lives in another C++ namespace.
    invalid("--namespace", "namespace", lib.ns, fmt::format("its C++ namespace '{}' cannot be used: {}", lib.cpp_ns(), *why));
  }
  if (!is_identifier(lib.python_package)) {
    invalid("--python-package", "Python package", lib.python_package, kIdentifier);
  } else if (lib.python_package.size() > kMaxNameLength) {
    invalid("--python-package", "Python package", lib.python_package, kTooLong);
  } else if (is_python_keyword(lib.python_package) || lib.python_package == "torch") {
    invalid("--python-package", "Python package", lib.python_package, "it is a Python keyword or 'torch'");
  } else if (lib.python_package == "opgen") {
    // The generated test suite imports opgen.testing, which a package of that name would hide.
    invalid("--python-package", "Python package", lib.python_package,
            "it is the opgen tool's own package; name the library's package (--python-package)");
  } else if (auto why = python_package_problem(lib.python_package)) {
    invalid("--python-package", "Python package", lib.python_package, *why);
  }
  const bool plain_file_name =
      !lib.library_name.empty() && lib.library_name[0] != '-' &&
      std::all_of(lib.library_name.begin(), lib.library_name.end(),
                  [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
  if (!plain_file_name)
    invalid("--library-name", "library name", lib.library_name, "use letters, digits, '_' and '-', not starting with '-'");
  else if (lib.library_name.size() > kMaxNameLength + 10)  // room for the default, <namespace>_ops
    invalid("--library-name", "library name", lib.library_name,
            fmt::format("it is longer than {} characters, and names files", kMaxNameLength + 10));
}

namespace {
std::optional<std::string> python_name_problem(std::string_view name) {
  if (name.empty()) return std::string("it has an empty part");
  if (!is_identifier(std::string(name))) return fmt::format("'{}' is not an identifier", name);
  if (is_python_keyword(name))
    return fmt::format("'{}' is a Python keyword, which cannot name a module, class or function", name);
  return std::nullopt;
}
}  // namespace

std::optional<std::string> python_path_problem(std::string_view path, size_t min_parts) {
  size_t parts = 0;
  for (size_t start = 0;; ++parts) {
    const size_t dot = path.find('.', start);
    if (auto why = python_name_problem(path.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return why;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts + 1 < min_parts) return fmt::format("it needs at least {} dotted parts", min_parts);
  return std::nullopt;
}

std::optional<std::string> python_target_problem(std::string_view target) {
  const size_t colon = target.find(':');
  if (colon == std::string_view::npos) return std::string("it has no ':' between the module and the function");
  if (auto why = python_path_problem(target.substr(0, colon))) return why;
  return python_name_problem(target.substr(colon + 1));
}

std::optional<std::string> python_keyword_note(std::string_view target_or_path) {
  const bool target = target_or_path.find(':') != std::string_view::npos;
  auto why = target ? python_target_problem(target_or_path) : python_path_problem(target_or_path);
  if (!why || why->find("Python keyword") == std::string::npos) return std::nullopt;
  return *why + ": the generated Python would not compile";
}

bool check_known_dtype(const model::Located<std::string>& dtype, Diagnostics& diags) {
  if (model::find_dtype(dtype.value)) return true;
  auto& d = diags.error(Code::UnknownDtype, dtype.loc, fmt::format("unknown dtype '{}'", dtype.value));
  if (auto guess = closest_match(dtype.value, model::dtype_names()); !guess.empty())
    d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
  return false;
}

}  // namespace opgen::check
