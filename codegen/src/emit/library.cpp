// csrc/<ns>-library.cpp: the block that owns the namespace. Ops add their
// schemas from their own TUs as fragments, so this file changes only when
// the namespace's ABI mix does.
#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "support/printer.h"

namespace opgen::emit {

std::string library_source_path(const model::Library& lib) { return fmt::format("csrc/{}-library.cpp", lib.ns); }

std::string library_source(const model::Library& lib) {
  const bool any_unstable = std::any_of(lib.ops.begin(), lib.ops.end(),
                                        [](const auto& op) { return op.abi.value == model::Abi::Unstable; });
  Printer p;
  p.emit(generated_header("//", lib));
  if (lib.fragment) {
    p.emit(R"cc(//
// The '$ns$' namespace is shared with other libraries (--fragment): no block
// here claims it; each op adds itself to it as a fragment, in its own TU.
)cc",
           {{"ns", lib.ns}});
  } else if (any_unstable) {
    p.emit(R"cc(//
// Owns the '$ns$' namespace: a second library claiming it fails to load.
// Each op defines itself, with its Python module, in its own TU.
#include <torch/library.h>

TORCH_LIBRARY($ns$, m) {
  static_cast<void>(m);  // nothing to add: each op defines itself
}
)cc",
           {{"ns", lib.ns}});
  } else {
    p.emit(R"cc(//
// Owns the '$ns$' namespace on the stable ABI: a second library claiming it
// fails to load. Each op defines itself, with its Python module where the
// ABI can name it (2.13 and later), in its own TU.
#ifndef TORCH_TARGET_VERSION
#define TORCH_TARGET_VERSION $target$ULL
#elif TORCH_TARGET_VERSION != $target$ULL
#error "the '$ns$' library targets the stable ABI of PyTorch $version$, but TORCH_TARGET_VERSION names another version"
#endif
#include <torch/csrc/stable/library.h>

STABLE_TORCH_LIBRARY($ns$, m) {
  static_cast<void>(m);  // nothing to add: each op defines itself
}
)cc",
           {{"ns", lib.ns},
            {"target", fmt::format("0x{:016x}", lib.torch_target_version)},
            {"version", model::format_torch_version(lib.torch_target_version)}});
  }
  return p.str();
}

}  // namespace opgen::emit
