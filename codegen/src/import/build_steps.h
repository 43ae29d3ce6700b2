// `opgen import`, stage 4's build half: what the project's build deletes,
// drops and keeps compiling once the specs register the ops written.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "import/registrations.h"

namespace opgen::import::detail {

// What the project's build does once the specs register the written ops:
// the source blocks it deletes (each whole, or the registrations the specs
// now make), the files it drops whole, and the files it keeps compiling (for
// the impls they keep, the rest of a block, or what else they define).
struct BuildSteps {
  std::vector<std::pair<std::string, std::string>> drop_lines;  // file, what to delete in it
  std::vector<std::string> dropped_files;
  std::vector<std::string> kept_files;
  // "file:first-last: the block ...": blocks of the namespace in which import read no op registration (a custom
  // class's, pyg-lib's HashMap): what they register stays the project's, so their files stay in the build.
  std::vector<std::string> unread_blocks;
  // The head of a block that claims the namespace (TORCH_LIBRARY) and stays, for registrations it keeps
  // (deep-gemm's, for its one kept impl): the library must then add to the namespace, not claim it again.
  std::string claim_that_stays;
  // "file:lines: PYBIND11_MODULE(...)" in files that stay: pybind11 modules of the project's own functions.
  std::vector<std::string> python_modules;
  std::vector<std::pair<std::string, std::string>> deleted_inits;  // file, the module its PyInit_<module> made
};

// The module a C++ module init makes: `_C` of `PyMODINIT_FUNC PyInit__C`; "" where the init names none.
std::string init_module(const std::string& init);
// The steps for namespace `ns` (moved: imported as another), `written_ops` its ops written as specs.
BuildSteps build_steps(const ImportResult& found, const std::set<std::string>& written_ops, const std::string& ns,
                       bool moved);

}  // namespace opgen::import::detail
