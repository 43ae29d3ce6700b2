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

// What the walk may read: a hostile tree (an include path of millions of
// headers, each of 64 MiB) ends it at these, with a note.
struct HeaderWalkLimits {
  size_t headers = 20'000;
  size_t bytes = size_t{512} << 20;
};

struct HeaderMacros {
  std::set<std::string> names;
  std::string note;  // why the walk stopped short ("" where it read every header it found)
};

// The names every header the C and C++ sources include may #define, under
// any condition: their #includes followed, a quoted one beside the file
// that includes it then on `include_dirs` (find_include), an angle one on
// `include_dirs`; each header read once, within `limits`.
HeaderMacros macros_headers_define(const std::vector<SourceFile>& sources,
                                   const std::vector<std::filesystem::path>& include_dirs,
                                   const HeaderWalkLimits& limits = {});

}  // namespace opgen::import
