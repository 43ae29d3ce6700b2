// The explanations of diagnostic codes (support/diagnostic_codes.h), as
// `opgen explain` prints them and docs/diagnostics.md holds them. The broken
// example of each code is run through the loader and the checker, so the
// docs show what opgen really reports for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic_codes.h"
#include "support/diagnostics.h"

namespace opgen::check {

struct ExampleFile {
  std::string path;  // from the `# <path>.yaml` line that starts it
  std::string text;  // including that line
};

// The files of a YAML example: each starts at a line `# <path>.yaml`.
// Returns nothing if the example does not start with such a line.
std::vector<ExampleFile> example_files(std::string_view example);

// Loads and checks an example's files as `opgen check` does with its
// defaults (namespace `opgen`, target PyTorch 2.10).
Diagnostics check_example(std::string_view example);

// One code's entry in Markdown, under a heading of `heading_level`.
std::string explain_markdown(const CodeInfo& info, int heading_level = 1);

// docs/diagnostics.md: every code, by group, with a table of contents.
std::string explain_page();

}  // namespace opgen::check
