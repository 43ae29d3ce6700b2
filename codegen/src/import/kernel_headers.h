// `opgen import`: the headers a spec's `kernels: include` names. Of the
// quoted includes of the file that registers an op's kernels, those that
// import can read beside that file and that declare one of the op's kernel
// functions; headers that only serve the registration (kernel-builder's
// registration.h, which the build of an opgen library does not have) are
// left out. When no header it can read declares them, every include is kept:
// one it cannot find may be on the include path the build gives.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "import/registrations.h"
#include "import/source_scan.h"

namespace opgen::import {

// Rewrites each op's `includes`; adds a note per registering file that says
// which headers were kept and which directory the build must add. The
// library's include directories (`found.include_dirs`) are `include_dirs`,
// in order, then those; an include that path would resolve to another header
// of the same name is spelled from a directory of it that reaches the one
// import read.
// A quoted include is looked for as the compiler looks for it: beside the
// file that includes it, then in each of `include_dirs` (-I); one that names
// a directory (`"pyg_lib/csrc/utils/types.h"`) also from the directory
// import runs in, the project's root, which such a build puts on its path.
void choose_kernel_headers(ImportResult& found, const Configuration* configuration,
                           const std::vector<std::filesystem::path>& include_dirs = {});

// Where a quoted include of a file in `dir` is: `dir/include`, else the first
// `include_dirs` entry that has it, else (a path with a directory) the
// current directory's; nullopt when none has.
std::optional<std::filesystem::path> find_include(const std::filesystem::path& dir, const std::string& include,
                                                  const std::vector<std::filesystem::path>& include_dirs);

}  // namespace opgen::import
