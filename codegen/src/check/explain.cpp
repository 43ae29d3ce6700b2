#include "check/explain.h"

#include <sstream>

#include <fmt/format.h>

#include "check/checker.h"
#include "load/library_loader.h"

namespace opgen::check {
namespace {

// `# <path>.yaml`, alone on its line: the path, else "".
std::string_view file_header(std::string_view line) {
  if (line.substr(0, 2) != "# ") return {};
  std::string_view path = line.substr(2);
  if (path.size() <= 5 || path.substr(path.size() - 5) != ".yaml" || path.find(' ') != std::string_view::npos)
    return {};
  return path;
}

std::string fenced(std::string_view language, std::string_view text) {
  std::string body(text);
  if (!body.empty() && body.back() != '\n') body += '\n';
  return fmt::format("```{}\n{}```\n", language, body);
}

}  // namespace

std::vector<ExampleFile> example_files(std::string_view example) {
  std::vector<ExampleFile> files;
  size_t start = 0;
  while (start < example.size()) {
    size_t end = example.find('\n', start);
    std::string_view line = example.substr(start, end == std::string_view::npos ? end : end - start);
    if (std::string_view path = file_header(line); !path.empty()) {
      files.push_back({std::string(path), {}});
    } else if (files.empty()) {
      return {};
    }
    files.back().text.append(line).append("\n");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return files;
}

Diagnostics check_example(std::string_view example) {
  Diagnostics diags;
  model::Library lib;
  lib.ns = "opgen";
  lib.python_package = "opgen";
  lib.library_name = "opgen_ops";
  std::vector<load::SpecSource> sources;
  for (const ExampleFile& file : example_files(example)) sources.push_back({file.path, file.path, file.text});
  load::load_library(lib, sources, diags);
  if (!diags.has_errors()) check_library(lib, diags);
  return diags;
}

std::string explain_markdown(const CodeInfo& info, int heading_level) {
  std::string out = fmt::format("{} {}: {}\n\n{}\n\n", std::string(heading_level, '#'), info.id, info.title,
                                info.rule);
  out += "For example:\n\n" + fenced(info.language, info.bad) + "\n";
  if (info.language == "yaml") {
    std::ostringstream printed;
    check_example(info.bad).print(printed);
    out += "opgen reports:\n\n" + fenced("text", printed.str()) + "\n";
  }
  out += "Fixed:\n\n" + fenced(info.language, info.fixed);
  return out;
}

std::string explain_page() {
  std::string out =
      "<!-- Generated from codegen/src/support/codes/*.inc: do not edit. Refresh with\n"
      "     build/codegen/opgen explain --markdown > docs/diagnostics.md -->\n"
      "# Diagnostics\n\n"
      "Every error and warning opgen reports carries a code, like rustc's:\n\n"
      "```text\n"
      "schemas/bar.yaml:2:10: error[E0304]: the op is named 'foo' but its file is 'bar.yaml'\n"
      "schemas/bar.yaml:2:10: note: name the file 'foo.yaml': one op per file, named after it\n"
      "```\n\n"
      "This page explains each code: the rule, why it exists, an example that\n"
      "breaks it, what opgen reports for that example, and the example fixed.\n"
      "In a terminal, `opgen explain E0304` prints the same entry, and\n"
      "`opgen explain --list` lists the codes.\n\n"
      "Codes are stable: a code keeps its meaning for good, and a new rule takes a\n"
      "new code. The first two digits group them by topic. Error codes start\n"
      "with `E`, warning codes with `W`; warnings are printed only when there\n"
      "are no errors.\n\n";
  std::string_view group;
  std::string table = "| code | what it is about |\n|---|---|\n";
  std::string entries;
  for (const CodeInfo& info : all_codes()) {
    if (code_group(info.id) != group) {
      group = code_group(info.id);
      entries += fmt::format("## {}xx: {}\n\n", info.id.substr(0, 3), group);
    }
    table += fmt::format("| [{0}](#{0}) | {1} |\n", info.id, info.title);
    entries += fmt::format("<a id=\"{}\"></a>\n\n", info.id) + explain_markdown(info, 3) + "\n";
  }
  out += table + "\n" + entries;
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace opgen::check
