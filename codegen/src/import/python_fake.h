// A fake import cannot name (`@register_fake("ns::op") def _(...)`: every
// such fake of a file is `_`) moves into the generated python/_fakes.py,
// under the op's name, when it is self-contained: every name it reads is
// its own (an argument, a local), a builtin, or bound by one of the
// module's top-level imports, which move with it.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "import/python_values.h"
#include "import/tokens.h"

namespace opgen::import {

// A module's top-level import statements, as another module must write them
// (a relative import made absolute), and the names they bind. An import
// under a top-level `if`/`try` (`if has_triton(): import triton`) is written
// as one that binds the name where the import succeeds.
struct ModuleImports {
  std::vector<std::string> statements;
  std::set<std::string> names;
};

// `package`: the dotted package the module is in (its own name for an __init__.py).
ModuleImports module_imports(const Tokens& tokens, const std::vector<std::string_view>& lines,
                             const std::string& package);

struct MovedFake {
  std::string source;                   // the def, its name replaced by "{name}" for the writer
  std::vector<std::string> unresolved;  // names it reads that nothing it moves with binds
};

// The fake whose `def` is at token `def`, its block ending before token `end`.
// The module's constants it reads whose `values` are numbers, booleans or
// None move as those values (the defaults a fake repeats from its op).
MovedFake move_fake(const Tokens& tokens, size_t def, size_t end, const std::vector<std::string_view>& lines,
                    const ModuleImports& imports, const ModuleValues& values);

}  // namespace opgen::import
