// opgen command line: generate, check, parse-schema, new, explain.
//
// Exit status: 0 on success, 1 when the input has errors (every one is
// reported, nothing is written), 2 on a usage error (including `opgen explain`
// of a code that does not exist).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "check/checker.h"
#include "check/explain.h"
#include "check/output_size.h"
#include "emit/emit.h"
#include "import/import_specs.h"
#include "import/header_macros.h"
#include "import/infer_schema.h"
#include "import/kernel_headers.h"
#include "import/registrations.h"
#include "import/pp_condition.h"
#include "load/host_types_loader.h"
#include "load/library_loader.h"
#include "load/spec_loader.h"
#include "load/spec_sources.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/compile_notes.h"
#include "support/diagnostic_codes.h"
#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/new_files.h"
#include "support/stamp.h"
#include "support/terminal.h"
#include "support/version.h"

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
  unsigned shards = 0;
  bool fragment = false;
};

void add_library_options(CLI::App* cmd, LibraryOptions& o) {
  cmd->add_option("specs", o.inputs, "Spec files (<op>.yaml) or directories holding them")->required();
  cmd->add_option("--namespace", o.ns, "The torch.ops namespace of the library")->capture_default_str();
  cmd->add_option("--python-package", o.python_package, "Python package of the generated module (default: the namespace; opgen_ops for namespace opgen)");
  cmd->add_option("--library-name", o.library_name, "Shared library target, loaded as lib<name>.so (default: <namespace>_ops)");
  cmd->add_flag("--fragment", o.fragment,
                "The namespace is shared with other libraries: add the ops to it as fragments "
                "(TORCH_LIBRARY_FRAGMENT) and claim it with no TORCH_LIBRARY block");
  cmd->add_option("--source-root", o.source_root, "Spec paths in diagnostics and headers are relative to this")
      ->capture_default_str();
  cmd->add_option("--torch-target-version", o.torch_target, "Oldest PyTorch the stable-ABI ops must load in (MAJOR.MINOR)")
      ->capture_default_str();
  cmd->add_option("--exclude-dispatch-key", o.excluded_dispatch_keys,
                  "Leave out the kernels of this dispatch key (e.g. CUDA on a machine without nvcc; CUDA takes "
                  "the CUDA layouts' kernels, SparseCUDA, QuantizedCUDA..., with it)");
  cmd->add_option("--shards", o.shards,
                  "Also write this many unity TUs per ABI, csrc/<ns>-<abi>-shard<i>.cpp, for the build to compile "
                  "instead of one TU per op (0: none)")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
}

std::optional<uint64_t> parse_version(const std::string& text) {
  unsigned major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(text);
  if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major > 255 || minor > 255) return std::nullopt;
  return (uint64_t{major} << 56) | (uint64_t{minor} << 48);
}

// After the errors of a failed run: where to read more about their codes.
void print_explain_hint(const opgen::Diagnostics& diags, std::string_view prefix, std::ostream& out = std::cerr) {
  if (std::string hint = diags.explain_hint(); !hint.empty()) out << prefix << ": " << hint << '\n';
}

// The library's name and settings from the options; exits with status 2 on
// a malformed --torch-target-version.
opgen::model::Library library_settings(const LibraryOptions& o) {
  opgen::model::Library lib;
  lib.ns = o.ns;
  lib.python_package = o.python_package.empty() ? opgen::model::default_python_package(o.ns) : o.python_package;
  lib.library_name = o.library_name.empty() ? o.ns + "_ops" : o.library_name;
  lib.shards = o.shards;
  lib.fragment = o.fragment;
  if (auto version = parse_version(o.torch_target)) {
    lib.torch_target_version = *version;
  } else {
    std::cerr << fmt::format("opgen: error: --torch-target-version must read MAJOR.MINOR, not '{}'\n", o.torch_target);
    std::exit(2);
  }
  return lib;
}

// Loads and checks the library `lib` (its settings made) from its read specs,
// adding to `diags` (which may already hold the errors of reading them).
// Returns nullopt when there is any error.
std::optional<opgen::model::Library> load_library(const LibraryOptions& o, opgen::model::Library lib,
                                                  const std::vector<opgen::load::SpecSource>& sources, opgen::Diagnostics& diags) {
  opgen::load::load_library(lib, sources, diags);
  if (!diags.has_errors()) opgen::check::check_library(lib, diags);
  for (auto& op : lib.ops) {
    std::erase_if(op.dispatch, [&](const auto& key) {
      auto excluded = [&](std::string_view name) {
        return std::find(o.excluded_dispatch_keys.begin(), o.excluded_dispatch_keys.end(), name) !=
               o.excluded_dispatch_keys.end();
      };
      // Without CUDA, the CUDA layouts' kernels (SparseCUDA, ...) go too: they are CUDA code as well.
      return excluded(key.value) || (excluded("CUDA") && opgen::model::is_cuda_code(key.value));
    });
  }
  if (diags.has_errors()) return std::nullopt;
  return lib;
}

// What a run prints about its input: every diagnostic, then, when there were
// errors, how many and where to read more about them.
std::string report(const opgen::Diagnostics& diags) {
  std::ostringstream out;
  diags.print(out);
  if (diags.has_errors()) {
    out << fmt::format("opgen: {} error{}; nothing was written\n", diags.error_count(),
                       diags.error_count() == 1 ? "" : "s");
    print_explain_hint(diags, "opgen", out);
  }
  return out.str();
}

int run_check(const LibraryOptions& o) {
  opgen::model::Library settings = library_settings(o);
  opgen::Diagnostics diags;
  opgen::check::check_library_names(settings, diags);
  auto sources = opgen::load::read_spec_sources(o.inputs, o.source_root, diags);
  // Rendered in memory too: what check passes, generate writes.
  if (auto lib = load_library(o, std::move(settings), sources, diags))
    opgen::check::check_output_size(opgen::emit::emit_library(*lib), *lib, "<output>", diags);
  std::cerr << report(diags);
  return diags.has_errors() ? 1 : 0;
}

// Everything the generated tree depends on, hashed: the tool itself, the
// options that reach the output, and each spec's name and bytes.
std::string input_key(const LibraryOptions& o, const std::vector<opgen::load::SpecSource>& sources) {
  std::string tool = opgen::tool_digest();
  if (tool.empty()) return "";
  opgen::InputKey key;
  key.add("generate").add(tool).add(o.ns).add(o.python_package).add(o.library_name).add(o.torch_target);
  for (const auto& excluded : o.excluded_dispatch_keys) key.add("exclude").add(excluded);
  key.add("shards").add(std::to_string(o.shards));
  for (const opgen::load::SpecSource& source : sources) key.add("spec").add(source.display).add(source.text);
  return key.hex();
}

int run_generate(const LibraryOptions& o, const fs::path& out_dir, bool verbose) {
  opgen::model::Library settings = library_settings(o);
  opgen::Diagnostics diags;
  opgen::check::check_library_names(settings, diags);
  auto sources = opgen::load::read_spec_sources(o.inputs, o.source_root, diags);
  if (diags.has_errors()) {
    std::cerr << report(diags);
    return 1;
  }
  // From the stamp check to the stamp's rewrite the directory is this run's
  // alone: a parallel build's second `opgen generate` waits, then finds the
  // tree up to date. A directory that does not exist yet is created (and
  // locked) only once the specs have passed, so a failed run writes nothing.
  opgen::Diagnostics write_diags;
  auto lock_output = [&]() -> std::optional<opgen::OutputLock> {
    auto lock = opgen::OutputLock::acquire(out_dir, write_diags);
    if (!lock) {
      write_diags.print(std::cerr);
      print_explain_hint(write_diags, "opgen");
    }
    return lock;
  };
  std::optional<opgen::OutputLock> lock;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(out_dir, ec))) {
    if (!(lock = lock_output())) return 1;
  }
  const std::string key = input_key(o, sources);
  if (lock && !key.empty()) {
    if (auto stamp = opgen::find_current_stamp(lock->dir(), key)) {
      // The same inputs made exactly this tree: nothing to parse, render or write.
      std::cerr << stamp->diagnostics;
      if (verbose)
        std::cerr << fmt::format("opgen: up to date: 0 written, {} unchanged, 0 removed\n", stamp->outputs.size());
      return 0;
    }
  }
  auto lib = load_library(o, std::move(settings), sources, diags);
  std::optional<opgen::OutputTree> tree;
  if (lib) {
    tree = opgen::emit::emit_library(*lib);
    opgen::check::check_output_size(*tree, *lib, out_dir, diags);
  }
  const std::string printed = report(diags);
  std::cerr << printed;
  if (diags.has_errors()) return 1;
  if (!lock && !(lock = lock_output())) return 1;
  opgen::WriteStats stats;
  if (!tree->commit(lock->dir(), write_diags, &stats, opgen::read_manifest(lock->dir()))) {
    write_diags.print(std::cerr);
    print_explain_hint(write_diags, "opgen");
    return 1;
  }
  // A run that finds the tree up to date replays the warnings, but not
  // W1001: a missing sample is news once, not on every build.
  if (!key.empty()) opgen::write_stamp(lock->dir(), key, *tree, report(diags.without(opgen::Code::NoSamples)));
  if (verbose)
    std::cerr << fmt::format("opgen: {} written, {} unchanged, {} removed\n", stats.written, stats.unchanged,
                             stats.removed);
  return 0;
}

struct NewOptions {
  std::string qualified;  // ns::name
  std::string schema;
  std::string schemas_dir = "schemas";
  std::string kernels_dir = "kernels";
  std::vector<std::string> dispatch = {"CPU", "CUDA"};
  std::string abi;  // empty: stable when the stable ABI carries every type
  std::string json_schema;
  std::string torch_target = "2.10";
};

// Writes files that must not exist yet (`opgen new`, `opgen init`): all of
// them, or none (support/new_files.h).
int write_new_files(const std::vector<opgen::NewFile>& files, std::string_view command, bool list = true) {
  opgen::IoStatus status = opgen::create_new_files(files);
  if (!status) {
    const opgen::IoError& error = status.error();
    opgen::Diagnostics failed;
    if (error.os_errno == EEXIST)
      failed.error(opgen::Code::OutputFileExists, {error.path, 0, 0},
                   fmt::format("already exists; {} writes only new files", command));
    else
      failed.error(opgen::Code::CannotWriteOutput, {error.path, 0, 0}, error.reason);
    failed.print(std::cerr);
    std::cerr << command << ": nothing was written\n";
    print_explain_hint(failed, command);
    return 1;
  }
  if (list)
    for (const opgen::NewFile& file : files) std::cout << "wrote " << opgen::new_file_path(file) << '\n';
  else
    std::cout << fmt::format("{}: wrote {} files\n", command, files.size());
  return 0;
}

struct ImportCli {
  std::vector<std::string> sources;
  std::string ns;
  std::string schemas_dir = "schemas";
  std::string python_dir = "python";
  std::string torch_target = "2.10";
  std::vector<std::string> defines;  // NAME or NAME=VALUE
  std::vector<std::string> include_dirs;  // where the build finds headers (-I)
  bool fragment = false;
  std::vector<std::string> python_packages;  // PACKAGE, or NS=PACKAGE per namespace
};

// TORCH_TARGET_VERSION's value as a build defines it (FlashAttention 3's `0x0209000000000000`, a `ULL` suffix
// allowed): the major and minor version, as parse_version gives them.
std::optional<uint64_t> parse_target_version_macro(std::string text) {
  while (!text.empty() && std::string_view("uUlL").find(text.back()) != std::string_view::npos) text.pop_back();
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(first, last, value, hex ? 16 : 10);
  if (ec != std::errc{} || end != last || first == last) return std::nullopt;
  return value & 0xffff000000000000ULL;
}

// `opgen import`: a project's binding sources -> one spec per op (import/).
int run_import(const ImportCli& o) {
  auto version = parse_version(o.torch_target);
  if (!version) {
    std::cerr << fmt::format("opgen import: error: --torch-target-version must read MAJOR.MINOR, not '{}'\n",
                             o.torch_target);
    return 2;
  }
  opgen::Diagnostics diags;
  const auto sources = opgen::import::read_sources(o.sources, diags);
  if (diags.has_errors()) {
    diags.print(std::cerr);
    std::cerr << "opgen import: nothing was written\n";
    return 1;
  }
  std::optional<opgen::import::Configuration> configuration;
  for (const std::string& define : o.defines) {
    const size_t eq = define.find('=');
    const std::string name = define.substr(0, eq);
    if (!opgen::model::is_identifier(name)) {
      std::cerr << fmt::format("opgen import: error: --define takes NAME or NAME=VALUE, not '{}'\n", define);
      return 2;
    }
    if (!configuration) configuration.emplace();
    configuration->defines[name] = eq == std::string::npos ? "1" : define.substr(eq + 1);
  }
  // The library targets no older PyTorch than the project's sources do, nor than opgen's bindings can.
  if (configuration)
    if (const auto define = configuration->defines.find("TORCH_TARGET_VERSION"); define != configuration->defines.end()) {
      const auto project_target = parse_target_version_macro(define->second);
      if (!project_target) {
        std::cerr << fmt::format("opgen import: error: --define TORCH_TARGET_VERSION={} is not a version PyTorch reads "
                                 "(0xMMmm000000000000)\n",
                                 define->second);
        return 2;
      }
      *version = std::max(*version, *project_target);
    }
  const std::vector<std::filesystem::path> include_dirs(o.include_dirs.begin(), o.include_dirs.end());
  std::string header_walk_note;
  if (configuration) {
    // What the configuration cannot say is undefined: the macros of headers, the compiler's own.
    auto header_macros = opgen::import::macros_headers_define(sources, include_dirs);
    configuration->unknown = std::move(header_macros.names);
    header_walk_note = std::move(header_macros.note);
    for (std::string_view name : opgen::import::compiler_macros()) configuration->unknown.emplace(name);
  }
  const opgen::import::Configuration* config = configuration ? &*configuration : nullptr;
  auto found = opgen::import::find_registrations(sources, config);
  if (!header_walk_note.empty()) found.notes.push_back(header_walk_note);
  opgen::import::infer_schemas(found, config, include_dirs);
  opgen::import::keep_unbound_impls(found);
  opgen::import::choose_kernel_headers(found, config, include_dirs);
  opgen::import::ImportOptions options;
  options.ns = o.ns;
  options.defines = o.defines;
  options.schemas_dir = o.schemas_dir;
  options.python_dir = o.python_dir;
  options.torch_target_version = *version;
  options.fragment = o.fragment;
  for (const std::string& given : o.python_packages) {
    const auto eq = given.find('=');
    if (given.empty() || eq + 1 == given.size()) {  // "" or "NS=": no package named
      std::cerr << fmt::format("opgen import: error: --python-package '{}' names no package\n", given);
      return 2;
    }
    if (eq == std::string::npos && options.python_package.empty()) {
      options.python_package = given;
    } else if (eq == std::string::npos) {
      std::cerr << fmt::format("opgen import: error: --python-package names two packages ({}, {}) for no namespace: "
                               "give one per namespace, NS=PACKAGE\n", options.python_package, given);
      return 2;
    } else if (!options.python_packages.emplace(given.substr(0, eq), given.substr(eq + 1)).second) {
      std::cerr << fmt::format("opgen import: error: --python-package names namespace '{}' twice\n", given.substr(0, eq));
      return 2;
    }
  }
  const auto plan = opgen::import::plan_import(found, options);
  (plan.ok ? std::cout : std::cerr) << plan.report;
  if (!plan.ok) return 1;
  return write_new_files(plan.files, "opgen import", /*list=*/false);
}

int run_new(const NewOptions& o) {
  auto sep = o.qualified.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 == o.qualified.size()) {
    std::cerr << fmt::format("opgen new: error: name the op as <namespace>::<name>, not '{}'\n", o.qualified);
    return 2;
  }
  auto version = parse_version(o.torch_target);
  if (!version) {
    std::cerr << fmt::format("opgen new: error: --torch-target-version must read MAJOR.MINOR, not '{}'\n", o.torch_target);
    return 2;
  }
  opgen::model::Library lib;
  lib.ns = o.qualified.substr(0, sep);
  lib.python_package = opgen::model::default_python_package(lib.ns);
  lib.library_name = lib.ns + "_ops";
  lib.torch_target_version = *version;
  const std::string op_name = o.qualified.substr(sep + 2);
  // The names become paths (schemas/<op>.yaml) and identifiers: plain names only.
  if (!opgen::model::is_identifier(lib.ns) || !opgen::model::is_op_name(op_name)) {
    std::cerr << fmt::format("opgen new: error: '{}' is not <namespace>::<name>[.<overload>] of identifiers\n",
                             o.qualified);
    return 2;
  }
  const std::string spec_path = (fs::path(o.schemas_dir) / (op_name + ".yaml")).string();

  opgen::Diagnostics diags;
  // The library's types file, when the schemas directory has one: the schema
  // may name its classes, and the kernels take them as structs.
  std::vector<std::string> class_names;
  if (const fs::path types = fs::path(o.schemas_dir) / opgen::load::kTypesFileName; fs::is_regular_file(types)) {
    const auto sources = opgen::load::read_spec_sources({types.string()}, "", diags);
    opgen::load::load_library(lib, sources, diags);
    for (const auto& cls : lib.host_classes) class_names.push_back(cls.name.value);
    if (diags.has_errors()) {
      diags.print(std::cerr);
      std::cerr << "opgen new: nothing was written\n";
      print_explain_hint(diags, "opgen new");
      return 1;
    }
  }
  opgen::model::ParseOptions parse_options;
  parse_options.host_classes = class_names;
  auto parsed = opgen::model::parse_schema(o.schema, parse_options);
  if (auto* err = std::get_if<opgen::model::SchemaError>(&parsed)) {
    diags.error(err->code, {"<--schema>", 1, err->column + 1}, "invalid schema: " + err->message);
    diags.print(std::cerr);
    print_explain_hint(diags, "opgen new");
    return 1;
  }
  auto schema = std::get<opgen::model::FunctionSchema>(parsed);
  // A schema without a name takes the op's; one with a name must agree.
  if (schema.name.name.empty()) {
    auto dot = op_name.find('.');
    schema.name.name = op_name.substr(0, dot);
    schema.name.overload = dot == std::string::npos ? "" : op_name.substr(dot + 1);
  }
  const NewOptions defaults;
  const opgen::model::OpSpec draft = opgen::emit::draft_new_op(
      lib, schema, o.schema, o.abi, o.dispatch == defaults.dispatch ? std::vector<std::string>{} : o.dispatch);
  const std::string spec_text = opgen::emit::scaffold_spec(lib, draft, o.json_schema);

  // The scaffold goes through the same loader and checker as any spec.
  auto spec = opgen::load::load_spec_text(spec_text, spec_path, diags, class_names);
  if (spec) {
    lib.ops.push_back(std::move(*spec));
    opgen::check::check_library(lib, diags);
  }
  diags.print(std::cerr);
  if (diags.has_errors()) {
    std::cerr << "opgen new: nothing was written\n";
    print_explain_hint(diags, "opgen new");
    return 1;
  }
  std::vector<opgen::NewFile> files = {{o.schemas_dir, op_name + ".yaml", spec_text}};
  for (auto& [path, contents] : opgen::emit::scaffold_kernels(lib, lib.ops.front(), o.kernels_dir))
    files.push_back({o.kernels_dir, fs::path(path).filename().string(), std::move(contents)});
  const int status = write_new_files(files, "opgen new");
  if (status == 0 && draft.fake_python)
    std::cout << fmt::format("note: its fake is Python: write {} (python/_fakes.py in a project from opgen init)\n",
                             draft.fake_python->value);
  return status;
}

struct InitOptions {
  std::string dir;
  std::string ns;
  std::string torch_target = "2.10";
  std::string json_schema;
};

// `opgen init`: a new outside project around one example op, checked like any spec.
int run_init(const InitOptions& o) {
  auto version = parse_version(o.torch_target);
  if (!version) {
    std::cerr << fmt::format("opgen init: error: --torch-target-version must read MAJOR.MINOR, not '{}'\n",
                             o.torch_target);
    return 2;
  }
  if (o.dir.empty()) {
    std::cerr << "opgen init: error: the project directory is an empty path; name one ('.' for this one)\n";
    return 2;
  }
  opgen::model::Library lib;
  std::error_code ec;
  fs::path dir = fs::absolute(o.dir, ec).lexically_normal();  // "x/", "." and ".." name a directory too
  if (!dir.has_filename()) dir = dir.parent_path();
  lib.ns = o.ns.empty() ? dir.filename().string() : o.ns;
  lib.python_package = opgen::model::default_python_package(lib.ns);
  lib.library_name = lib.ns + "_ops";
  lib.torch_target_version = *version;
  opgen::Diagnostics diags;
  {
    // init has one name option: the package and library are named after the
    // namespace, so their errors are the namespace's, reported once, where it
    // came from (--namespace, or the directory's name).
    opgen::Diagnostics names;
    opgen::check::check_library_names(lib, names);
    const std::string source = o.ns.empty() ? fmt::format("{} (the directory's name)", o.dir) : "--namespace";
    bool namespace_refused = false;
    for (const opgen::Diagnostic& d : names.all())
      if (d.loc.file == "--namespace") namespace_refused = true;
    for (const opgen::Diagnostic& d : names.all()) {
      if (namespace_refused && d.loc.file != "--namespace") continue;
      auto& copy = diags.error(d.code, {source, 0, 0}, d.message);
      if (d.loc.file != "--namespace")
        copy.notes.push_back({fmt::format("init names the {} after the namespace", d.loc.file == "--python-package"
                                                                                      ? "Python package and its distribution"
                                                                                      : "library")});
    }
  }
  if (diags.has_errors()) {
    diags.print(std::cerr);
    std::cerr << "opgen init: note: name the namespace with --namespace (the directory's name is the default)\n";
    std::cerr << "opgen init: nothing was written\n";
    return 1;
  }
  std::vector<opgen::NewFile> files;
  for (auto& [path, contents] : opgen::emit::project_files(lib, o.json_schema)) {
    if (path.starts_with("schemas/")) {
      // The example goes through the same loader and checker as any spec.
      opgen::model::Library check = lib;
      if (auto spec = opgen::load::load_spec_text(contents, path, diags)) check.ops.push_back(std::move(*spec));
      opgen::check::check_library(check, diags);
    }
    files.push_back({o.dir, path, std::move(contents)});
  }
  if (diags.has_errors()) {  // a bug in the template, not in the user's input
    diags.print(std::cerr);
    std::cerr << "opgen init: internal error: the example spec does not check; nothing was written\n";
    return 1;
  }
  return write_new_files(files, "opgen init");
}

int run_parse_schema(const opgen::model::ParseOptions& options, opgen::model::SchemaForm form) {
  int status = 0;
  std::string line;
  size_t line_no = 0;
  while (std::getline(std::cin, line)) {
    ++line_no;
    if (line.empty()) continue;
    auto parsed = opgen::model::parse_schema(line, options);
    if (auto* schema = std::get_if<opgen::model::FunctionSchema>(&parsed)) {
      std::cout << schema->to_string(form) << '\n';
    } else {
      const auto& err = std::get<opgen::model::SchemaError>(parsed);
      std::cout << "<stdin>:" << line_no << ':' << err.column + 1 << ": error[" << opgen::code_id(err.code)
                << "]: " << err.message << '\n';
      status = 1;
    }
  }
  return status;
}

struct ExplainOptions {
  std::string code;
  bool list = false;
  bool markdown = false;
};

// "E0304", "e0304", "e304", "0304" and "304" all name E0304.
std::string normalize_code(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string letter = !text.empty() && (text[0] == 'E' || text[0] == 'W') ? text.substr(0, 1) : "E";
  std::string digits = text.substr(text.size() && std::isalpha(static_cast<unsigned char>(text[0])) ? 1 : 0);
  if (digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return text;
  return letter + std::string(4 - digits.size(), '0') + digits;
}

int run_explain(const ExplainOptions& o) {
  if (o.list) {
    for (const opgen::CodeInfo& info : opgen::all_codes()) std::cout << info.id << "  " << info.title << '\n';
    return 0;
  }
  if (o.markdown) {
    std::cout << opgen::check::explain_page();
    return 0;
  }
  if (o.code.empty()) {
    std::cerr << "opgen explain: error: name a code, as in 'opgen explain E0304', or pass --list\n";
    return 2;
  }
  if (const opgen::CodeInfo* info = opgen::find_code(normalize_code(o.code))) {
    std::cout << opgen::check::explain_markdown(*info);
    return 0;
  }
  std::vector<std::string> ids;
  for (const opgen::CodeInfo& info : opgen::all_codes()) ids.emplace_back(info.id);
  std::cerr << fmt::format("opgen explain: error: there is no diagnostic code '{}'\n", o.code);
  if (std::string guess = opgen::closest_match(normalize_code(o.code), ids); !guess.empty())
    std::cerr << fmt::format("opgen explain: note: did you mean '{}'?\n", guess);
  std::cerr << "opgen explain: note: 'opgen explain --list' lists every code\n";
  return 2;
}

// After a usage error: a did-you-mean for a mistyped subcommand or option.
void suggest_spelling(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) subcommands.push_back(sub->get_name());
  if (args.empty()) return;
  auto note = [](const std::string& wrong, const std::string& guess) {
    if (!guess.empty() && guess != wrong) std::cerr << fmt::format("opgen: note: did you mean '{}'?\n", guess);
  };
  const bool known_subcommand = std::find(subcommands.begin(), subcommands.end(), args[0]) != subcommands.end();
  if (!known_subcommand && args[0].rfind('-', 0) != 0) return note(args[0], opgen::closest_match(args[0], subcommands));
  // The subcommand's options, or before any subcommand the top level's (--help, --version).
  std::vector<std::string> options;
  for (const CLI::Option* option : (known_subcommand ? app.get_subcommand(args[0]) : &app)->get_options())
    for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
  for (const std::string& arg : args) {
    const std::string name = arg.substr(0, arg.find('='));
    if (name.rfind("--", 0) == 0 && std::find(options.begin(), options.end(), name) == options.end())
      note(name, opgen::closest_match(name, options));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<opgen::ColourLines> colour;
  if (opgen::stderr_wants_colour()) colour.emplace(std::cerr);
  CLI::App app{"opgen: one YAML file per op -> PyTorch operator bindings"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(opgen::tool_version()), "Print the tool's version and exit");

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
  bool registration_form = false;
  parse->add_flag("--registration", registration_form,
                  "Print the form opgen registers (m.def), which PyTorch parses back, not the form it prints");

  NewOptions new_options;
  auto* scaffold = app.add_subcommand("new", "Scaffold a spec and kernel sources for a new op");
  scaffold->add_option("op", new_options.qualified, "The op, as <namespace>::<name>")->required();
  scaffold->add_option("--schema", new_options.schema, "Its schema, e.g. \"(Tensor x, float alpha) -> Tensor\"")
      ->required();
  scaffold->add_option("--schemas-dir", new_options.schemas_dir, "Where the spec goes")->capture_default_str();
  scaffold->add_option("--kernels-dir", new_options.kernels_dir, "Where the kernel sources go")->capture_default_str();
  scaffold->add_option("--dispatch", new_options.dispatch, "Dispatch keys to write kernels for")
      ->delimiter(',')
      ->capture_default_str();
  scaffold->add_option("--abi", new_options.abi, "stable or unstable (default: stable when it carries every type)")
      ->check(CLI::IsMember({"stable", "unstable"}));
  // It becomes a comment line of the spec: one line, no control characters.
  const CLI::Validator one_line(
      [](std::string& value) -> std::string {
        const bool plain = std::none_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
        return plain ? "" : "must be one line without control characters (it becomes a comment of the spec)";
      },
      "ONE LINE");
  scaffold->add_option("--json-schema", new_options.json_schema,
                       "Path of spec.schema.json, relative to the spec, for editors' YAML language server")
      ->check(one_line);
  scaffold->add_option("--torch-target-version", new_options.torch_target, "Oldest PyTorch for the stable ABI")
      ->capture_default_str();

  ImportCli import_options;
  auto* import_cmd = app.add_subcommand(
      "import", "Read a project's op registrations (C++ TORCH_LIBRARY blocks, Python torch.library calls) and write a "
                "spec per op; report what needs a person");
  import_cmd->add_option("sources", import_options.sources,
                         "The binding sources (.cpp, .cc, .cu, .py), or directories of them")
      ->required();
  import_cmd->add_option("--namespace", import_options.ns,
                         "The library's namespace (default: the one the sources register; when they register one "
                         "other, its ops move into this one)");
  import_cmd->add_option("--define,-D", import_options.defines,
                         "NAME or NAME=VALUE: read the C++ sources as a build that defines it does (their #if "
                         "branches not taken are left out); repeatable. Without one, every branch is read")
      ->check(one_line)
      ->allow_extra_args(false);  // one value per --define: the sources that follow are not macros
  import_cmd->add_option("--include-dir,-I", import_options.include_dirs,
                         "A directory the build adds to the include path: the kernels' headers are looked for "
                         "there too, after the source's own directory; repeatable")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  import_cmd->add_option("--schemas-dir", import_options.schemas_dir, "Where the specs go")->capture_default_str();
  import_cmd->add_option("--python-dir", import_options.python_dir, "Where _fakes.py goes, when an op needs a fake written")
      ->capture_default_str();
  import_cmd->add_option("--torch-target-version", import_options.torch_target, "Oldest PyTorch for the stable ABI")
      ->capture_default_str();
  import_cmd->add_option("--python-package", import_options.python_packages,
                         "The generated package, whose _fakes module the specs name (default: the namespace); name "
                         "it apart from the project's own package. With several namespaces, one per namespace: "
                         "NS=PACKAGE; repeatable")
      ->check(one_line)
      ->allow_extra_args(false);
  import_cmd->add_flag("--fragment", import_options.fragment,
                       "Add the ops to their namespace as fragments, as libraries sharing it do (the default where "
                       "the sources only add to it: no TORCH_LIBRARY block of theirs claims it)");

  InitOptions init_options;
  auto* init = app.add_subcommand("init", "Start an outside project: CMake, pyproject.toml, an example op, README");
  init->add_option("dir", init_options.dir, "The project's directory (created; no file of it may exist)")->required();
  init->add_option("--namespace", init_options.ns, "torch.ops.<namespace> and the Python package (default: dir's name)");
  init->add_option("--torch-target-version", init_options.torch_target, "Oldest PyTorch for the stable ABI")
      ->capture_default_str();
  init->add_option("--json-schema", init_options.json_schema,
                   "Path of spec.schema.json, relative to the spec, for editors' YAML language server")
      ->check(one_line);

  std::string kernel_headers;
  std::vector<std::string> compile_command;
  auto* compile = app.add_subcommand(
      "compile", "Run a compiler command; when a kernel no longer matches its generated header, say what the header "
                 "declares (opgen_add_library's compiler launcher)");
  compile->add_option("--kernel-headers", kernel_headers, "The generated include directory (<ns>/kernels/<op>.h)")
      ->required();
  compile->add_option("command", compile_command, "The compiler and its arguments, after --")->required();

  auto* types = app.add_subcommand("types", "Print the table of schema types per ABI and version (docs/types.md)");

  ExplainOptions explain_options;
  auto* explain = app.add_subcommand("explain", "Explain a diagnostic code (E0304): the rule, an example, the fix");
  auto* explain_code = explain->add_option("code", explain_options.code, "The code, as printed: error[E0304]");
  auto* explain_list = explain->add_flag("--list", explain_options.list, "List every code with its title");
  auto* explain_markdown =
      explain->add_flag("--markdown", explain_options.markdown, "Print every explanation: docs/diagnostics.md");
  explain_code->excludes(explain_list)->excludes(explain_markdown);
  explain_list->excludes(explain_markdown);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    if (rc != 0) suggest_spelling(app, std::vector<std::string>(argv + 1, argv + argc));
    return rc == 0 ? 0 : 2;
  }

  if (parse->parsed())
    return run_parse_schema(parse_options, registration_form ? opgen::model::SchemaForm::Registration
                                                             : opgen::model::SchemaForm::Printed);
  if (explain->parsed()) return run_explain(explain_options);
  if (types->parsed()) {
    std::cout << opgen::model::types_markdown();
    return 0;
  }
  if (compile->parsed()) return opgen::run_compiler_with_notes(compile_command, kernel_headers);
  if (scaffold->parsed()) return run_new(new_options);
  if (init->parsed()) return run_init(init_options);
  if (import_cmd->parsed()) return run_import(import_options);
  if (check->parsed()) return run_check(check_options);
  return run_generate(gen_options, out_dir, verbose);
}
