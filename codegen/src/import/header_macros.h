// `opgen import`: the macros the headers of a project's sources may define.
// Import does not preprocess the headers a source includes, so under a build
// configuration a condition that names one of their macros
// (`#ifdef CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED`, which CUTLASS's
// headers define when nvcc is 12 or later) is not decided: its text becomes
// the guard of what stands under it, never a branch silently dropped.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "import/registrations.h"

namespace opgen::import {

// The names every header the C and C++ sources include may #define, under
// any condition: their #includes followed, a quoted one beside the file
// that includes it then on `include_dirs` (find_include), an angle one on
// `include_dirs`; each header read once, at most kMaxHeaders of them.
std::set<std::string> macros_headers_define(const std::vector<SourceFile>& sources,
                                            const std::vector<std::filesystem::path>& include_dirs);

inline constexpr size_t kMaxHeaders = 20'000;

}  // namespace opgen::import
