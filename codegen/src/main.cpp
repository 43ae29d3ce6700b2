// opgen command line: generate, check, parse-schema.
//
// Exit status: 0 on success, 1 when the input has errors (every one is
// reported, nothing is written), 2 on a usage error.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "check/checker.h"
#include "emit/emit.h"
#include "load/spec_loader.h"
#include "model/schema.h"
#include "support/diagnostics.h"

namespace fs = std::filesystem;

namespace {

struct LibraryOptions {
  std::vector<std::string> inputs;
  std::string ns = "opgen";
  std::string python_package;
  std::string library_name;
  std::string source_root = ".";
  std::string torch_target = "2.10";
  std::vector<std::string> excluded_dispatch_keys;
};

void add_library_options(CLI::App* cmd, LibraryOptions& o) {
  cmd->add_option("specs", o.inputs, "Spec files (<op>.yaml) or directories holding them")->required();
  cmd->add_option("--namespace", o.ns, "The torch.ops namespace of the library")->capture_default_str();
  cmd->add_option("--python-package", o.python_package, "Python package of the generated module (default: the namespace)");
  cmd->add_option("--library-name", o.library_name, "Shared library target, loaded as lib<name>.so (default: <namespace>_ops)");
  cmd->add_option("--source-root", o.source_root, "Spec paths in diagnostics and headers are relative to this")
      ->capture_default_str();
  cmd->add_option("--torch-target-version", o.torch_target, "Oldest PyTorch the stable-ABI ops must load in (MAJOR.MINOR)")
      ->capture_default_str();
  cmd->add_option("--exclude-dispatch-key", o.excluded_dispatch_keys,
                  "Leave out the kernels of this dispatch key (e.g. CUDA on a machine without nvcc)");
}

std::optional<uint64_t> parse_version(const std::string& text) {
  unsigned major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(text);
  if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major > 255 || minor > 255) return std::nullopt;
  return (uint64_t{major} << 56) | (uint64_t{minor} << 48);
}

// Expands directories to their *.yaml files, sorted, so the order of the
// command line never changes the output.
std::vector<fs::path> spec_files(const std::vector<std::string>& inputs, opgen::Diagnostics& diags) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      for (const auto& entry : fs::directory_iterator(input, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
    } else if (fs::exists(input, ec)) {
      files.emplace_back(input);
    } else {
      diags.error({input, 0, 0}, "no such file or directory");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// Loads and checks a library. Returns nullopt after printing diagnostics if
// anything is wrong; warnings are printed either way.
std::optional<opgen::model::Library> load_library(const LibraryOptions& o) {
  opgen::Diagnostics diags;
  opgen::model::Library lib;
  lib.ns = o.ns;
  lib.python_package = o.python_package.empty() ? o.ns : o.python_package;
  lib.library_name = o.library_name.empty() ? o.ns + "_ops" : o.library_name;
  if (auto version = parse_version(o.torch_target)) {
    lib.torch_target_version = *version;
  } else {
    std::cerr << fmt::format("opgen: error: --torch-target-version must read MAJOR.MINOR, not '{}'\n", o.torch_target);
    std::exit(2);
  }
  for (const fs::path& file : spec_files(o.inputs, diags)) {
    std::string display = file.lexically_normal().string();
    std::error_code ec;
    fs::path relative = fs::relative(file, o.source_root, ec);
    if (!ec && !relative.empty() && relative.native().rfind("..", 0) != 0) display = relative.generic_string();
    if (auto spec = opgen::load::load_spec(file.string(), display, diags)) lib.ops.push_back(std::move(*spec));
  }
  if (!diags.has_errors()) opgen::check::check_library(lib, diags);
  diags.print(std::cerr);
  for (auto& op : lib.ops) {
    std::erase_if(op.dispatch, [&](const auto& key) {
      return std::find(o.excluded_dispatch_keys.begin(), o.excluded_dispatch_keys.end(), key.value) !=
             o.excluded_dispatch_keys.end();
    });
  }
  if (diags.has_errors()) {
    std::cerr << fmt::format("opgen: {} error{}; nothing was written\n", diags.error_count(),
                             diags.error_count() == 1 ? "" : "s");
    return std::nullopt;
  }
  return lib;
}

int run_parse_schema(const opgen::model::ParseOptions& options) {
  int status = 0;
  std::string line;
  size_t line_no = 0;
  while (std::getline(std::cin, line)) {
    ++line_no;
    if (line.empty()) continue;
    auto parsed = opgen::model::parse_schema(line, options);
    if (auto* schema = std::get_if<opgen::model::FunctionSchema>(&parsed)) {
      std::cout << schema->to_string() << '\n';
    } else {
      const auto& err = std::get<opgen::model::SchemaError>(parsed);
      std::cout << "<stdin>:" << line_no << ':' << err.column + 1 << ": error: " << err.message << '\n';
      status = 1;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"opgen: one YAML file per op -> PyTorch operator bindings"};
  app.require_subcommand(1);

  LibraryOptions gen_options;
  std::string out_dir;
  bool verbose = false;
  auto* generate = app.add_subcommand("generate", "Check the specs and write the generated bindings");
  add_library_options(generate, gen_options);
  generate->add_option("-o,--output", out_dir, "Output directory")->required();
  generate->add_flag("-v,--verbose", verbose, "Say how many files were written");

  LibraryOptions check_options;
  auto* check = app.add_subcommand("check", "Check the specs; write nothing");
  add_library_options(check, check_options);

  auto* parse = app.add_subcommand(
      "parse-schema", "Read schema strings on stdin, one per line; print each in PyTorch's canonical form");
  opgen::model::ParseOptions parse_options;
  parse->add_flag("--allow-type-variables", parse_options.allow_type_variables,
                  "Read unknown lower-case types as type variables (t, tVal), as TorchScript's builtins need");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  if (parse->parsed()) return run_parse_schema(parse_options);
  if (check->parsed()) return load_library(check_options) ? 0 : 1;

  auto lib = load_library(gen_options);
  if (!lib) return 1;
  opgen::Diagnostics diags;
  opgen::WriteStats stats;
  if (!opgen::emit::emit_library(*lib).commit(out_dir, diags, &stats)) {
    diags.print(std::cerr);
    return 1;
  }
  if (verbose)
    std::cerr << fmt::format("opgen: {} written, {} unchanged, {} removed\n", stats.written, stats.unchanged,
                             stats.removed);
  return 0;
}
