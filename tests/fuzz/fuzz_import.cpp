// libFuzzer target: `opgen import` on any source (import::find_registrations
// and import::plan_import, which loads and checks every spec it drafts; for
// C++, import::source_declarations of each kernel the source registers).
//
// The first byte picks the language (bit 0: C++ or Python) and whether
// the C++ is read in a build configuration (bit 1: --define CUDA_KERNEL
// --define VERSION=2 --define TORCH_EXTENSION_NAME=_C, which names the
// namespaces of TORCH_LIBRARY_EXPAND blocks); the rest is the source. Invariants, beyond "no crash, leak, hang or undefined
// behaviour": every file the plan would write is a plain name beneath its
// directory (no '/', no "..", not empty), every <op>.yaml it would
// write loads and checks without an error, as `opgen check` would read it,
// and a declaration it would copy into a header is one declaration: no
// brace, no `;` but its last, no preprocessor line, its brackets closed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "check/checker.h"
#include "import/import_specs.h"
#include "import/registrations.h"
#include "import/source_declarations.h"
#include "import/source_scan.h"
#include "load/spec_loader.h"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_import: %s\n  [%.*s]\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool python = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const opgen::import::Configuration configuration{
      {{"CUDA_KERNEL", "1"}, {"VERSION", "2"}, {"TORCH_EXTENSION_NAME", "_C"}}, {"FROM_A_HEADER", "__CUDACC_VER_MAJOR__"}};
  auto found = opgen::import::find_registrations({{python ? "pkg/ops.py" : "binding.cc", text}},
                                                 (data[0] & 2) ? &configuration : nullptr);
  opgen::import::keep_unbound_impls(found);
  if (!python) {
    const auto scanned = opgen::import::scan_cpp(text, (data[0] & 2) ? &configuration : nullptr);
    for (const auto& op : found.ops)
      for (const auto& kernel : op.kernels) {
        const auto copied = opgen::import::source_declarations(scanned.tokens, kernel.function);
        if (const auto* declarations = std::get_if<std::vector<opgen::import::SourceDeclaration>>(&copied))
          for (const auto& d : *declarations)
            if (d.text.empty() || d.text.back() != ';' || d.text.find_first_of("{}#\n") != std::string::npos ||
                d.text.find(';') + 1 != d.text.size() ||
                std::count(d.text.begin(), d.text.end(), '(') != std::count(d.text.begin(), d.text.end(), ')') ||
                std::count(d.text.begin(), d.text.end(), '<') != std::count(d.text.begin(), d.text.end(), '>'))
              fail("a copied declaration that is not one declaration", d.text);
      }
  }
  opgen::import::ImportOptions options;
  options.schemas_dir = "schemas";
  options.python_dir = "python";
  const auto plan = opgen::import::plan_import(found, options);
  for (const auto& file : plan.files) {
    if (file.relative.empty() || file.relative.find('/') != std::string::npos || file.relative.starts_with(".."))
      fail("a file name that is not a plain name", file.relative);
    if (!file.relative.ends_with(".yaml")) continue;
    opgen::Diagnostics diags;
    auto spec = opgen::load::load_spec_text(file.contents, "schemas/" + file.relative, diags);
    if (spec) {
      opgen::model::Library lib;
      lib.ns = "ns";
      lib.python_package = "ns";
      lib.library_name = "ns_ops";
      lib.ops.push_back(std::move(*spec));
      if (!diags.has_errors()) opgen::check::check_library(lib, diags);
    }
    // The namespace differs from the plan's (a schema may name its own): only
    // a spec that did not load at all breaks the promise.
    if (!spec) fail("a written spec does not load", file.contents);
  }
  return 0;
}
