// csrc/<ns>-library.cpp: the block that owns the namespace. Ops add their
// schemas from their own TUs as fragments, so this file changes only when
// the namespace's ABI mix or Python module does.
#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "support/printer.h"

namespace opgen::emit {

namespace {
constexpr uint64_t kStablePythonModuleSince = 0x020d000000000000ULL;  // 2.13
}

std::string library_source_path(const model::Library& lib) { return fmt::format("csrc/{}-library.cpp", lib.ns); }

std::string library_source(const model::Library& lib) {
  const bool any_unstable = std::any_of(lib.ops.begin(), lib.ops.end(),
                                        [](const auto& op) { return op.abi.value == model::Abi::Unstable; });
  const std::string module = lib.python_package + "._ops";
  Printer p;
  p.emit(generated_header("//", lib));
  if (any_unstable) {
    p.emit(R"cc(//
// Owns the '$ns$' namespace. set_python_module names the module that holds
// the fakes, so PyTorch can tell a user to import it when one is missing.
#include <torch/library.h>

TORCH_LIBRARY($ns$, m) {
  m.set_python_module($module$);
}
)cc",
           {{"ns", lib.ns}, {"module", cpp_string_literal(module)}});
  } else if (lib.torch_target_version >= kStablePythonModuleSince) {
    p.emit(R"cc(//
// Owns the '$ns$' namespace on the stable ABI.
#define TORCH_TARGET_VERSION $target$ULL
#include <torch/csrc/stable/library.h>

STABLE_TORCH_LIBRARY($ns$, m) {
  m.set_python_module($module$);
}
)cc",
           {{"ns", lib.ns},
            {"module", cpp_string_literal(module)},
            {"target", fmt::format("0x{:016x}", lib.torch_target_version)}});
  } else {
    p.emit(R"cc(//
// Owns the '$ns$' namespace on the stable ABI. The stable ABI can name the
// fakes' Python module only from PyTorch 2.13; before that, importing
// '$module$' registers them.
#define TORCH_TARGET_VERSION $target$ULL
#include <torch/csrc/stable/library.h>

STABLE_TORCH_LIBRARY($ns$, m) {
  static_cast<void>(m);  // nothing to add: each op defines itself
}
)cc",
           {{"ns", lib.ns}, {"module", module}, {"target", fmt::format("0x{:016x}", lib.torch_target_version)}});
  }
  return p.str();
}

}  // namespace opgen::emit
