// A check on what the emitters made, before anything is written: no
// generated file may pass kMaxGeneratedFileBytes. A small spec can expand to
// gigabytes through YAML aliases and sample dims.
#pragma once

#include <cstddef>
#include <filesystem>

#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/output.h"

namespace opgen::check {

inline constexpr size_t kMaxGeneratedFileBytes = size_t{16} << 20;

// Reports each file of `tree` past kMaxGeneratedFileBytes (as under `out_dir`),
// naming the op with the most sample cases.
void check_output_size(const OutputTree& tree, const model::Library& lib, const std::filesystem::path& out_dir,
                       Diagnostics& diags);

}  // namespace opgen::check
