// libFuzzer target: the whole front end in memory. The input is one or more
// spec files, separated by lines reading `#@@ next file` (a YAML comment, so
// any spec is an input as it stands); each is loaded (load::load_spec_text),
// the library is checked (check::check_library) for two stable-ABI targets,
// and, when it checks, emitted (emit::emit_library).
//
// A file is named after the op its schema declares, so that the checker
// goes past the file-name rule and the emitters see most specs.
//
// Invariants, beyond "no crash, leak or undefined behaviour": a spec that is
// not returned comes with an error; every emitted file carries the
// generated-file marker.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check/checker.h"
#include "emit/emit.h"
#include "load/spec_loader.h"
#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/output.h"

namespace {

using namespace opgen;

constexpr std::string_view kSeparator = "#@@ next file\n";
constexpr size_t kMaxFiles = 8;

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz_spec: %s\n%.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

std::vector<std::string> split_files(std::string_view input) {
  std::vector<std::string> files;
  for (;;) {
    size_t at = input.find(kSeparator);
    if (at == std::string_view::npos || files.size() + 1 == kMaxFiles) break;
    files.emplace_back(input.substr(0, at));
    input.remove_prefix(at + kSeparator.size());
  }
  files.emplace_back(input);
  return files;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> files = split_files({reinterpret_cast<const char*>(data), size});
  std::ostringstream sink;

  Diagnostics load_diags;
  std::vector<model::OpSpec> specs;
  for (size_t i = 0; i < files.size(); ++i) {
    const size_t errors_before = load_diags.error_count();
    auto spec = load::load_spec_text(files[i], "schemas/op" + std::to_string(i) + ".yaml", load_diags);
    if (!spec) {
      if (load_diags.error_count() == errors_before) fail("a spec was rejected without an error", files[i]);
      continue;
    }
    spec->stem = spec->op_name();
    spec->display_path = "schemas/" + spec->stem + ".yaml";
    specs.push_back(std::move(*spec));
  }
  load_diags.print(sink);

  for (uint64_t target : {0x020a000000000000ULL, 0x020d000000000000ULL}) {  // 2.10, 2.13
    model::Library lib;
    lib.ns = "opgen";
    lib.python_package = "opgen";
    lib.library_name = "opgen_ops";
    lib.torch_target_version = target;
    lib.ops = specs;
    Diagnostics diags;
    check::check_library(lib, diags);
    diags.print(sink);
    if (diags.has_errors()) continue;
    const OutputTree tree = emit::emit_library(lib);
    for (const auto& [path, contents] : tree.files())
      if (contents.find(kGeneratedMarker) == std::string::npos) fail("an emitted file lacks the marker", path);
  }
  return 0;
}
