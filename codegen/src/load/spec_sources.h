// The load stage's first step: the spec files a command line names, read
// from disk. Directories expand to their *.yaml files, sorted, so the order
// of the command line never changes the output; a file reached twice is
// read once; only regular files are read, and boundedly.
#pragma once

#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace opgen::load {

// A spec file read from disk, before any parsing.
struct SpecSource {
  std::string path;     // as reached from the command line
  std::string display;  // relative to `source_root` when under it: diagnostics and generated headers name this
  std::string text;
};

// Resolves `inputs` (files and directories) and reads every spec. A file
// that cannot be read is an error in `diags`, and so is an empty result.
std::vector<SpecSource> read_spec_sources(const std::vector<std::string>& inputs, const std::string& source_root,
                                          Diagnostics& diags);

}  // namespace opgen::load
