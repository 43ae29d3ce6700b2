// Shared helpers for the codegen unit tests: load and check specs given as
// text, and render diagnostics the way the tool prints them.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.h"
#include "load/library_loader.h"
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::testing {

struct SpecFile {
  std::string path;  // e.g. "schemas/foo.yaml"
  std::string text;
};

struct Result {
  model::Library library;
  std::string diagnostics;  // as printed
  bool ok = false;
};

inline Result load_and_check(const std::vector<SpecFile>& files, uint64_t target = 0x020a000000000000ULL) {
  Diagnostics diags;
  Result result;
  result.library.ns = "testns";
  result.library.python_package = "testpkg";
  result.library.library_name = "testns_ops";
  result.library.torch_target_version = target;
  std::vector<load::SpecSource> sources;
  for (const auto& file : files) sources.push_back({file.path, file.path, file.text});
  load::load_library(result.library, sources, diags);
  if (!diags.has_errors()) check::check_library(result.library, diags);
  std::ostringstream out;
  diags.print(out);
  result.diagnostics = out.str();
  result.ok = !diags.has_errors();
  return result;
}

inline Result load_and_check(const std::string& path, const std::string& text) {
  return load_and_check(std::vector<SpecFile>{{path, text}});
}

}  // namespace opgen::testing
