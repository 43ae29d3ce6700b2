#include "import/import_specs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "check/checker.h"
#include "check/names.h"
#include "import/build_steps.h"
#include "import/pp_condition.h"
#include "import/spec_drafts.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/yaml_writer.h"

namespace opgen::import {

using detail::build_steps;
using detail::BuildSteps;
using detail::check_drafts;
using detail::declarations_header_text;
using detail::Draft;
using detail::first_names;
using detail::init_module;
using detail::kInternalLinkage;
using detail::python_identifier;
using detail::spec_text;

namespace {

// The notes on the sources, a hundred at most and how many more: 100,000 calls import cannot read (a registration
// helper's, each with a computed name) made a report of 15 MB.
std::string notes_text(const std::vector<std::string>& notes) {
  constexpr size_t kNotesNamed = 100;
  std::string text;
  for (size_t n = 0; n < std::min(notes.size(), kNotesNamed); ++n) text += "  note: " + notes[n] + "\n";
  if (notes.size() > kNotesNamed) text += fmt::format("  note: and {} more notes\n", notes.size() - kNotesNamed);
  return text;
}

// A fake the sources register for an op none of them defines, and nothing
// else of it: its def is in another build or file (vLLM's _custom_ops.py
// holds the fakes of every extension, each under `if hasattr(...)`). It stays
// in the project, named in a note, rather than becoming an op to write.
bool fake_alone(const ImportedOp& op) {
  return op.schema.empty() && op.needs.empty() && op.kernels.empty() && op.kept_impls.empty() &&
         op.impls_in_other_configurations.empty() && op.has_project_fake();
}

// The project's own Python package that a generated package named `package` would shadow: a directory
// of the sources, or one beside them or beside the directory import runs in, named so, with an __init__.py
// (torchvision/, torchao/, bitsandbytes/; kernel-builder's torch-ext/deep_gemm/ beside torch-ext/'s
// bindings). "" where none is.
std::string shadowed_package(const ImportResult& found, const std::string& package) {
  namespace fs = std::filesystem;
  std::set<fs::path> seen;
  auto is_package = [](const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "__init__.py", ec);
  };
  for (const ImportedOp& op : found.ops) {
    const std::string file = op.where.substr(0, op.where.rfind(':'));
    for (fs::path dir = fs::path(file).parent_path(); seen.insert(dir).second; dir = dir.parent_path()) {
      if (dir.filename() == package && is_package(dir)) return dir.generic_string();
      if (const fs::path beside = dir.empty() ? fs::path(package) : dir / package; is_package(beside))
        return beside.generic_string();
      if (dir.empty() || dir == dir.parent_path()) break;  // the directory import runs in, or the root
    }
  }
  return "";
}

// How many directories two paths share from their start.
size_t shared_depth(const std::filesystem::path& a, const std::filesystem::path& b) {
  size_t depth = 0;
  for (auto x = a.begin(), y = b.begin(); x != a.end() && y != b.end() && *x == *y; ++x, ++y) ++depth;
  return depth;
}

// Places the C++ sources register from: (a key of theirs, the directory of their file), once per file.
using Places = std::set<std::pair<std::string, std::filesystem::path>>;

// The key of `places` whose directory shares the most leading directories with `dir`: "" where two keys are as near,
// or none shares `at_least`. Its work is the distinct places, not the blocks (a file may hold thousands).
std::string nearest(const std::filesystem::path& dir, const Places& places, size_t at_least) {
  std::map<std::string, size_t> depth;  // key -> the most directories one of its places shares with dir
  for (const auto& [key, place] : places) {
    size_t& d = depth[key];
    d = std::max(d, shared_depth(dir, place));
  }
  const auto best = std::max_element(depth.begin(), depth.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best == depth.end() || best->second < at_least ||
      std::count_if(depth.begin(), depth.end(), [&](const auto& d) { return d.second == best->second; }) > 1)
    return "";
  return best->first;
}

std::filesystem::path directory_of(const std::string& file) {
  return std::filesystem::path(file).lexically_normal().parent_path();
}

// The C++ sources whose init makes Python module `module` (PyInit_<module>), each keyed by its file: of them, the
// one nearest a Python source that imports the module is its extension (torch-harmonics' disco/__init__.py and
// attention/__init__.py each `from . import _C`, each its own).
Places init_places(const ImportResult& found, const std::string& module) {
  Places places;
  for (const RegistrationBlock& block : found.blocks)
    if (init_module(block.python_module_init) == module) places.emplace(block.file, directory_of(block.file));
  return places;
}

// With several namespaces, the library each source that registers nothing (a kernels' helper) goes to: the one whose
// registering sources are nearest it, sharing the most directories of its path (torch-harmonics' attention helpers
// beside the attention kernels, apart from the DISCO ones). A helper as near to two namespaces' sources (vLLM's, in
// one csrc/) has none: a note names it, for the person who knows which library calls it.
std::map<std::string, std::string> helper_namespaces(const ImportResult& found, const std::set<std::string>& namespaces) {
  Places places;  // namespace, directory
  for (const RegistrationBlock& block : found.blocks)
    if (namespaces.count(block.ns)) places.emplace(block.ns, directory_of(block.file));
  std::map<std::string, std::string> owner;
  for (const std::string& helper : found.registration_free_sources)
    if (std::string ns = nearest(directory_of(helper), places, 1); !ns.empty()) owner[helper] = std::move(ns);
  return owner;
}

// The specs of namespace `ns` (moved: the sources' one namespace imported as
// another), into `schemas_dir` and `python_dir`, and the report of them.
// several: one of several namespaces imported in one run, where the other
// namespaces' ops (and those of no named namespace) are accounted elsewhere.
ImportPlan plan_namespace(const ImportResult& found, const ImportOptions& options, const std::string& ns,
                          const std::set<std::string>& namespaces, bool moved, bool several = false) {
  ImportPlan plan;
  // Named as the namespace unless that is the project's own package's name: `import torchvision` would then
  // find one of the two.
  const std::string shadowed =
      options.python_package.empty() ? shadowed_package(found, model::default_python_package(ns)) : "";
  const std::string package = !options.python_package.empty() ? options.python_package
                              : shadowed.empty()               ? model::default_python_package(ns)
                                                               : ns + "_ops";
  model::Library settings;
  settings.ns = ns;
  settings.python_package = package;
  settings.library_name = ns + "_ops";
  settings.torch_target_version = options.torch_target_version;
  // A namespace the sources only add to (TORCH_LIBRARY_FRAGMENT) stays shared:
  // another library may claim it, or PyTorch does (FBGEMM's `fbgemm`).
  const bool claimed = found.claimed_namespaces.count(ns) ||
                       (found.claimed_namespaces.count("") && ns == options.ns);  // the macro's namespace
  settings.fragment = options.fragment || (!moved && !claimed);
  {
    Diagnostics diags;
    check::check_library_names(settings, diags);
    if (diags.has_errors()) {
      std::ostringstream printed;
      diags.print(printed);
      plan.ok = false;
      plan.report = printed.str();
      // The way out of a namespace refused; a package refused names its own (--python-package).
      if (printed.str().find("--namespace:") != std::string::npos)
        plan.report += fmt::format("opgen import: error: import into a namespace of your own: --namespace <name> (the "
                                   "ops of '{}' are imported into it){}\n",
                                   ns, settings.fragment ? "" : ", or add them to it as fragments: --fragment");
      return plan;
    }
  }

  std::vector<Draft> drafts;
  std::vector<std::string> skipped;
  std::vector<std::string> fakes_alone;
  std::set<std::string> stems;
  for (const auto& op : found.ops) {
    if (several && op.ns != ns) continue;
    if (fake_alone(op) && (op.ns.empty() || op.ns == ns)) {
      fakes_alone.push_back(fmt::format("{} ({})", op.name, op.where));
      continue;
    }
    if (!op.ns.empty() && op.ns != ns && !moved) {
      skipped.push_back(fmt::format("{}::{} ({}): another namespace", op.ns, op.name, op.where));
      continue;
    }
    if (!model::is_op_name(op.name) || op.name == model::kTypesFileStem || !stems.insert(op.name).second) {
      skipped.push_back(fmt::format("'{}' ({}): {}", op.name, op.where,
                                    !model::is_op_name(op.name)     ? "not an op name a file can carry"
                                    : op.name == model::kTypesFileStem ? "its spec would be _types.yaml, the types file "
                                                                       "(opgen explain E0302): rename the op"
                                                                     : "registered twice"));
      continue;
    }
    Draft d;
    d.op = &op;
    d.needs = op.needs;

    if (op.schema.empty() && d.needs.empty())  // an impl or a fake read, its def not
      d.needs.push_back(fmt::format("no def of it in the sources given (read: its impl or fake at {}): add the file "
                                    "that defines it, or write its 'schema'",
                                    op.where));
    d.display = (options.schemas_dir / (op.name + ".yaml")).generic_string();
    d.text = op.schema.empty() ? fmt::format("# {}\nschema: {}\n",
                                             yaml_comment(fmt::format("Imported by `opgen import` from {}.", op.where)),
                                             yaml_double_quoted(op.name + "(...) -> ..."))
                               : spec_text(op, package, d, (options.python_dir / "_fakes.py").generic_string(), ns);
    drafts.push_back(std::move(d));
  }
  check_drafts(drafts, settings);
  // A dozen reasons say what a person must do; one per kernel of RegisterOperators options that name 100,000 made a
  // report (and a .todo) of 29 MB.
  constexpr size_t kNeedsNamed = 12;
  for (Draft& d : drafts)
    if (d.needs.size() > kNeedsNamed) {
      const size_t more = d.needs.size() - kNeedsNamed;
      d.needs.resize(kNeedsNamed);
      d.needs.push_back(fmt::format("and {} more", more));
    }

  size_t written = 0, as_is = 0, stubs = 0, moved_fakes = 0, python_only = 0, with_cpp_kernels = 0;
  std::set<std::string> kernel_definitions;  // the files the written specs' C++ kernels are defined in
  std::vector<std::string> fake_imports;  // the moved fakes' modules' imports, each once
  std::vector<std::string> kept;  // "op: impls" of the written ops whose impls for other keys stay
  bool internal_linkage = false;  // one of those is kept because its kernel cannot be called
  std::vector<std::string> schema_alone;  // written ops whose impls are all in other configurations
  std::vector<std::string> no_impl_given;  // written ops of which the sources given register the def alone
  // The project's registrations of the fakes the specs take: the package registers those fakes, and torch
  // refuses a second registration (a custom_op's are named with its decorator).
  std::vector<std::string> fake_registrations;
  size_t fake_ops = 0, python_def_ops = 0;  // the ops of those places (one place may serve several)
  std::string helper_def_at;  // direct_register_custom_op's def, where it registers kernels of written ops
  size_t helper_ops_left = found.helper_calls_not_read;  // its calls whose op is no spec: they keep needing its define
  std::vector<std::string> python_defs;  // the project's define() calls of the ops the specs now define
  std::vector<std::string> custom_op_decorators;  // the custom_op decorators and calls of the ops the package now defines
  std::string stub_text;
  // Ops that need a person for the same reasons are reported together.
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> todo_groups;  // needs, ops
  for (const Draft& d : drafts) {
    const bool todo = !d.needs.empty();
    std::string text = d.text;
    // A moved fake is written for an op that needs a person too: their spec names it.
    if (d.fake_moved) {
      ++moved_fakes;
      std::string source = d.op->python_fake_source;
      source.replace(source.find("{name}"), 6, python_identifier(d.op->name));
      stub_text += "\n\n# " + yaml_comment(fmt::format("{}::{}: moved from {}", ns, d.op->name,
                                                         d.op->python_fake_moved_from)) + "\n" + source;
      for (const auto& statement : d.op->python_fake_imports)
        if (std::find(fake_imports.begin(), fake_imports.end(), statement) == fake_imports.end())
          fake_imports.push_back(statement);
    }
    if (todo) {
      helper_ops_left += !d.op->helper_def_at.empty();
      std::string header = "# opgen import: this op needs a person; rename the file to .yaml when done:\n";
      for (const auto& need : d.needs) header += "#   - " + yaml_comment(need) + "\n";
      text = header + text;
      auto same = std::find_if(todo_groups.begin(), todo_groups.end(), [&](const auto& g) { return g.first == d.needs; });
      if (same == todo_groups.end()) same = todo_groups.insert(todo_groups.end(), {d.needs, {}});
      same->second.push_back(d.op->name);
    } else {
      ++written;
      as_is += !d.op->kernels.empty();
      python_only += !d.op->kernels.empty() && std::all_of(d.op->kernels.begin(), d.op->kernels.end(),
                                                           [](const ImportedKernel& k) { return k.python; });
      with_cpp_kernels += std::any_of(d.op->kernels.begin(), d.op->kernels.end(),
                                      [](const ImportedKernel& k) { return !k.python; });
      for (const ImportedKernel& k : d.op->kernels)
        if (!k.python) kernel_definitions.insert(k.defined_in);  // "" for one defined elsewhere, or unseen
      internal_linkage = internal_linkage || d.op->kept_for_internal_linkage;
      const bool custom_op = !d.op->kernels.empty() && std::all_of(d.op->kernels.begin(), d.op->kernels.end(),
                                                                  [](const ImportedKernel& k) { return k.python; });
      // Each place once: direct_register_custom_op's one define and one _register_fake serve all of its ops.
      auto once = [](std::vector<std::string>& places, const std::string& place) {
        if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
      };
      if (!d.op->helper_def_at.empty()) helper_def_at = d.op->helper_def_at;
      if (!d.fake_registered_at.empty()) {
        ++fake_ops;
        once(fake_registrations, d.fake_registered_at);
      }
      if (!d.op->python_def_at.empty() && custom_op) {
        custom_op_decorators.push_back(d.op->python_def_at);
      } else if (!d.op->python_def_at.empty()) {
        ++python_def_ops;
        once(python_defs, d.op->python_def_at);
      }
      if (!d.op->kept_impls.empty())
        kept.push_back(fmt::format("{}: {}", d.op->name, first_names(d.op->kept_impls)));
      else if (d.op->kernels.empty() && !d.op->impls_in_other_configurations.empty())
        schema_alone.push_back(d.op->name);
      else if (d.no_impl_given)
        no_impl_given.push_back(d.op->name);
      if (d.fake_stub) {
        ++stubs;
        stub_text += fmt::format("\n\ndef {}(*args, **kwargs):\n    raise NotImplementedError(\"{}::{} has no fake "
                                 "yet: write it in python/_fakes.py (opgen import)\")\n",
                                 python_identifier(d.op->name), ns, d.op->name);
      }
    }
    plan.files.push_back({options.schemas_dir, d.op->name + (todo ? ".yaml.todo" : ".yaml"), text});
  }
  // The headers of the declarations copied from registering sources (kernel_headers.h) that written specs include.
  std::vector<const ImportResult::DeclarationsHeader*> declarations_headers;
  for (const Draft& d : drafts)
    for (const auto& header : found.declarations_headers)
      if (d.needs.empty() && header.file == d.op->declarations_header &&
          std::find(declarations_headers.begin(), declarations_headers.end(), &header) == declarations_headers.end())
        declarations_headers.push_back(&header);
  for (const auto* header : declarations_headers)
    plan.files.push_back({options.schemas_dir, header->file, declarations_header_text(*header)});
  if (stubs || moved_fakes) {
    // `from __future__` imports must come first in a module.
    std::stable_partition(fake_imports.begin(), fake_imports.end(),
                          [](const std::string& s) { return s.starts_with("from __future__"); });
    plan.files.push_back({options.python_dir, "_fakes.py",
                          "# Fakes of the ops `opgen import` found without one they could name: those\n"
                          "# registered as '_' moved here, with their modules' imports; each of the\n"
                          "# others raises until it is written (a function of the op's arguments that\n"
                          "# returns empty tensors of the outputs' shapes and dtypes), or give the op\n"
                          "# `fake:` rules in its spec.\n" +
                              (fake_imports.empty() ? "" : "\n" + fmt::format("{}", fmt::join(fake_imports, ""))) +
                              stub_text});
  }

  std::string& r = plan.report;
  r += fmt::format("opgen import: {} registration calls read; namespace {}{}\n", found.registrations, ns,
                   moved ? fmt::format(" (registered as {} in the sources)", *namespaces.begin()) : "");
  if (!options.defines.empty()) {
    r += fmt::format("  configuration: {} (the #if branches such a build leaves out were not read)\n",
                     fmt::join(options.defines, " "));
    // Conditions it could not decide: a macro of the compiler's or of a header (header_macros.h).
    std::vector<std::string> undecided;
    for (const Draft& d : drafts)
      if (!d.op->guard.empty()) undecided.push_back(d.op->name);
    if (!undecided.empty())
      r += fmt::format("  {} of the ops stand under a condition this configuration does not decide (a macro a header "
                       "or the compiler defines, a function-like macro), read as taken; each spec names it, and "
                       "--define decides a macro (__CUDACC_VER_MAJOR__=13): {}\n",
                       undecided.size(), first_names(undecided));
  }
  if (!shadowed.empty())
    r += fmt::format("  the generated Python package is {}: {} is the project's own package, which one named {} would "
                     "shadow (--python-package names another)\n",
                     package, shadowed, model::default_python_package(ns));
  r += fmt::format("  {} ops imported as {}/<op>.yaml, {} of them with their kernels as they are (kernels:)\n",
                   written, options.schemas_dir.generic_string(), as_is);
  if (stubs)
    r += fmt::format("  {} of them need their fake written: {}/_fakes.py raises until then\n", stubs,
                     options.python_dir.generic_string());
  // Ops PyTorch registers and calls but opcheck and torch.compile refuse, as the project had them: views,
  // alias sets only one side has, two arguments of one name (each spec's warning says which).
  std::map<std::string, std::vector<std::string>> eager_only;  // the warning's code -> its ops, in order
  size_t eager_ops = 0;
  for (const Draft& d : drafts)
    if (d.needs.empty() && !d.eager_only_code.empty()) {
      eager_only[d.eager_only_code].push_back(d.op->name);
      ++eager_ops;
    }
  if (eager_ops) {
    std::vector<std::string> groups;
    for (const auto& [code, ops] : eager_only)
      groups.push_back(fmt::format("{}: {}", code, fmt::join(ops, ", ")));
    r += fmt::format("  {} of them eager-only, as their schemas and keys are written (torch.library.opcheck and "
                     "torch.compile refuse them; opgen check says why): {}\n",
                     eager_ops, fmt::join(groups, "; "));
  }
  if (moved_fakes)
    r += fmt::format("  {} of them with their fake moved into {}/_fakes.py (registered as '_', it had no name to "
                     "name it by)\n", moved_fakes, options.python_dir.generic_string());
  std::vector<std::string> returning_argument;
  for (const Draft& d : drafts)
    if (d.needs.empty() && !d.fake_to_fix.empty())
      returning_argument.push_back(fmt::format("{} ({})", d.op->name, d.fake_to_fix));
  if (!returning_argument.empty())
    r += fmt::format("  warning: {} of them {} a fake that returns its argument itself, taken as written: an "
                     "output that is an input fails opcheck's fake test, and its shape is the argument's under "
                     "torch.compile (a fake returns new tensors: x.new_empty(...), torch.empty_like(x)): {}\n",
                     returning_argument.size(), returning_argument.size() == 1 ? "has" : "have",
                     fmt::join(returning_argument, ", "));
  if (!kept.empty()) {
    r += fmt::format("  {} of them keep impls in the project's build, registered against the spec's def (each with "
                     "why the spec does not bind it; written in the spec as comments):\n",
                     kept.size());
    for (const auto& line : kept) r += "    " + line + "\n";
    if (internal_linkage) r += "    " + std::string(kInternalLinkage) + "\n";
  }
  if (!schema_alone.empty())
    r += fmt::format("  {} of them with the schema alone (dispatch: []), as this configuration registers them (their "
                     "impls are under #if branches it leaves out; each spec names them): {}\n",
                     schema_alone.size(), first_names(schema_alone));
  if (!no_impl_given.empty())
    r += fmt::format("  {} of them with the schema alone (dispatch: []): the sources given register no impl of theirs "
                     "(impls in other files of the project register against the spec's def; give those files to this "
                     "run to bind their kernels): {}\n",
                     no_impl_given.size(), first_names(no_impl_given));
  if (!todo_groups.empty()) {
    r += fmt::format("  {} ops need a person (written as <op>.yaml.todo, which no build reads):\n",
                     drafts.size() - written);
    for (const auto& [needs, ops] : todo_groups) {
      r += fmt::format("    {}:\n", fmt::join(ops, ", "));
      for (const auto& need : needs) r += fmt::format("      - {}\n", need);
    }
  }
  if (!skipped.empty()) {
    r += fmt::format("  {} not imported:\n", skipped.size());
    for (const auto& s : skipped) r += "    " + s + "\n";
  }
  if (!fakes_alone.empty())
    r += fmt::format("  note: {} fakes of ops no source given defines stay in the project (their defs are in another "
                     "build or file: give it to import them): {}\n",
                     fakes_alone.size(), fmt::join(fakes_alone, ", "));
  // Notes on the sources, not on one namespace's ops: with several namespaces they follow them once.
  if (!several) r += notes_text(found.notes);
  for (const auto* header : declarations_headers)
    r += fmt::format("  note: {} declares {} of the kernels it registers itself, in no header: their declarations "
                     "are copied into {}, which their specs include\n",
                     header->source, header->declarations.size(),
                     (options.schemas_dir / header->file).generic_string());
  std::set<std::string> written_ops;
  for (const Draft& d : drafts)
    if (d.needs.empty()) written_ops.insert(d.op->name);
  const BuildSteps steps = build_steps(found, written_ops, ns, moved);
  const auto& [drop_lines, dropped_files, kept_files, unread_blocks, claim_that_stays, python_modules,
               deleted_inits] = steps;
  // A block of the sources that claims the namespace and stays: the library adds to the namespace instead.
  const bool fragment = settings.fragment || !claim_that_stays.empty();
  const std::string fragment_why =
      settings.fragment ? " (FRAGMENT: the sources add to the namespace, no block of theirs claims it)"
      : fragment        ? fmt::format(" (FRAGMENT: {} claims the namespace and stays in the build, for the "
                                      "registrations it keeps)",
                                      claim_that_stays)
                        : "";
  if (written) {
    for (const auto& block : unread_blocks)
      r += fmt::format("  note: {} registers no op (a custom class, or what import does not read): it stays the "
                       "project's, and its file stays in the build\n", block);
    if (!drop_lines.empty() || !dropped_files.empty()) {
      r += "  next: take out of the build what the specs now register (it would be registered twice):\n";
      if (!dropped_files.empty())
        r += fmt::format("    drop {} (nothing in {} but those registrations)\n", fmt::join(dropped_files, " "),
                         dropped_files.size() == 1 ? "it" : "them");
      for (const auto& [file, line] : drop_lines) r += "    " + line + " (the rest of the file stays in the build)\n";
    }
    // Where the project's Python imported a module whose init goes: the package loads the library there instead.
    for (const auto& [file, module] : deleted_inits) {
      const auto imports = found.python_module_imports.find(module);
      if (imports == found.python_module_imports.end()) continue;
      const Places inits = init_places(found, module);
      std::vector<std::string> lines;
      for (const std::string& where : imports->second)
        if (nearest(directory_of(where.substr(0, where.rfind(':'))), inits, 0) == file) lines.push_back(where);
      if (!lines.empty())
        r += fmt::format("  next: import the package where the project's Python imported {}, the module the init "
                         "deleted above made (`import {} as {}`): {}\n",
                         module, package, module, fmt::join(lines, ", "));
    }
    if (!python_defs.empty())
      r += fmt::format("  next: take out the project's defs of the {} ops the specs define (the package defines "
                       "them: a second def raises): {}\n",
                       python_def_ops, fmt::join(python_defs, ", "));
    if (!helper_def_at.empty())
      r += fmt::format("  next: import the package where direct_register_custom_op is defined, so that the ops it "
                       "registers kernels for are defined wherever it runs (`import {}  # noqa: F401`): {}\n",
                       package, helper_def_at);
    if (!helper_def_at.empty() && helper_ops_left > 0)
      r += fmt::format("  note: {} call{} of direct_register_custom_op {} no spec (above): taking its define and "
                       "_register_fake out leaves {} without a def; keep them until every op it registers is a spec, "
                       "and every file that calls it was given\n",
                       helper_ops_left, helper_ops_left == 1 ? "" : "s", helper_ops_left == 1 ? "makes" : "make",
                       helper_ops_left == 1 ? "its op" : "their ops");
    if (drop_lines.empty() && dropped_files.empty() && python_defs.empty() && !python_only)
      r += "  next: drop the sources' own registrations of these ops from the build (they would register them twice)\n";
    if (!fake_registrations.empty())
      r += fmt::format("  next: take out the project's registrations of the {} fakes the specs take (the package "
                       "registers them: torch 2.11 refuses a second, later releases let it replace the first): {}\n",
                       fake_ops, fmt::join(fake_registrations, ", "));
    if (python_only)
      r += fmt::format("  next: replace the custom_op and triton_op decorators and calls of the {} functions the specs "
                       "name under 'kernels:' with op_kernel(\"<ns>::<op>\") (`@op_kernel(...)` on a def, "
                       "`op_kernel(...)(fn)` called), `from {}._opgen_runtime import op_kernel` (the package "
                       "defines those ops and registers the functions as their kernels; a call of a function's name "
                       "still calls its op, as custom_op's object did){}{}\n",
                       python_only, package, custom_op_decorators.empty() ? "" : ": ",
                       fmt::join(custom_op_decorators, ", "));
    // The CMake a build of these specs needs (docs/cmake.md): the kernels'
    // header directories, and the configuration's macros, which those headers may test.
    const std::string target = settings.library_name;
    const bool named_package = package != model::default_python_package(ns);
    std::vector<std::string> library_sources;  // what opgen_add_library's KERNELS lists
    if (with_cpp_kernels == 0 && kept_files.empty()) {
      // Python kernels and schemas alone: the package defines every op (model::OpSpec::defined_in_python).
      // (With several namespaces, a directory each: generate owns what it writes in its -o, and would take out
      // another package's files as its own stale ones.)
      r += fmt::format("  next: generate the package, nothing to build (no C++ kernel): opgen generate "
                       "--namespace {}{}{} -o <dir>{} {}{}\n",
                       ns, fragment ? " --fragment" : "", named_package ? " --python-package " + package : "",
                       several ? "/" + ns : "",
                       options.schemas_dir.generic_string(),
                       stubs || moved_fakes ? fmt::format(", then copy {} into the package",
                                                          (options.python_dir / "_fakes.py").generic_string())
                                            : "");
    } else {
      // The package the specs' fakes name, and the _fakes module they name in it.
      std::string package_args;
      if (named_package) package_args += " PYTHON_PACKAGE " + package;
      if (options.torch_target_version != model::Library{}.torch_target_version)
        package_args += " TORCH_TARGET_VERSION " + model::format_torch_version(options.torch_target_version);
      if (stubs || moved_fakes) package_args += " PYTHON_SOURCES " + (options.python_dir / "_fakes.py").generic_string();
      std::vector<std::string> sources = kept_files;
      // With one namespace the sources given are its library's; with several, those nearest its own sources
      // (helper_namespaces: of the others, which library calls one only its build knows, and a note says so).
      std::vector<std::string> helpers = several ? std::vector<std::string>{} : found.registration_free_sources;
      if (several)
        for (const auto& [helper, helper_ns] : helper_namespaces(found, namespaces))
          if (helper_ns == ns) helpers.push_back(helper);
      sources.insert(sources.end(), helpers.begin(), helpers.end());
      std::vector<std::string> pybind11;  // the sources that include pybind11: the library calls Python
      std::vector<std::string> python_headers;  // the others that include Python.h: its headers alone
      for (const std::string& file : sources)
        if (found.pybind11_sources.count(file))
          pybind11.push_back(file);
        else if (found.python_header_sources.count(file))
          python_headers.push_back(file);
      if (!pybind11.empty()) python_headers.clear();  // PYTHON_API gives the headers too
      // The kernels' sources, but where every bound kernel is defined in a file that stays.
      if (std::any_of(kernel_definitions.begin(), kernel_definitions.end(), [&](const std::string& file) {
            return std::find(sources.begin(), sources.end(), file) == sources.end();  // sources: the kept files
          }))
        sources.push_back("<the kernels' sources>");
      library_sources = sources;
      r += fmt::format("  next: build them (docs/cmake.md), with the kernels' sources as they are and the files "
                       "above that stay{}{}:\n"
                       "    opgen_add_library({} NAMESPACE {}{}{} SCHEMAS {} KERNELS {})\n",
                       helpers.empty() ? ""
                                       : fmt::format(", and the {} given that register{} nothing (the kernels' "
                                                     "helpers, kernels other files register)",
                                                     helpers.size() == 1 ? "source" : fmt::format("{} sources", helpers.size()),
                                                     helpers.size() == 1 ? "s" : ""),
                       fragment_why, target, ns, fragment ? " FRAGMENT" : "",
                       std::string(pybind11.empty() ? "" : " PYTHON_API") + (python_headers.empty() ? "" : " PYTHON_HEADERS") +
                           (found.overloaded_kernels.empty() ? "" : " SHARDS 0") + package_args,
                       options.schemas_dir.generic_string(),
                       fmt::join(sources, " "));
      if (!pybind11.empty())
        r += fmt::format("    # PYTHON_API: {} bring{} pybind11 in (torch/extension.h): the kernels call Python's C API, "
                         "whose symbols the library finds when Python loads it (docs/cmake.md)\n",
                         fmt::join(pybind11, ", "), pybind11.size() == 1 ? "s" : "");
      if (!python_headers.empty())
        r += fmt::format("    # PYTHON_HEADERS: {} include{} Python.h: compiled with Python's headers, the library "
                         "linked without Python, whose symbols none of the code it keeps may call (docs/cmake.md)\n",
                         fmt::join(python_headers, ", "), python_headers.size() == 1 ? "s" : "");
      if (!found.overloaded_kernels.empty())
        r += fmt::format("    # SHARDS 0: one TU per op, each with its own headers: in a shared one, another op's header "
                         "would overload the name of {} (docs/cmake.md)\n",
                         fmt::join(found.overloaded_kernels, "; "));
    }
    std::vector<std::string> include_dirs;  // this library's: with several, its namespace's alone
    for (const auto& [dirs_of, dirs] : found.include_dirs)
      for (const std::string& dir : dirs)
        if ((!several || dirs_of == ns) && std::find(include_dirs.begin(), include_dirs.end(), dir) == include_dirs.end())
          include_dirs.push_back(dir);
    if (!declarations_headers.empty()) include_dirs.push_back(options.schemas_dir.generic_string());
    if (!include_dirs.empty())
      r += fmt::format("    target_include_directories({} PRIVATE {})\n", target, fmt::join(include_dirs, " "));
    // The configuration's macros, but those the compiler defines from its flags: defined by hand, they
    // would select code for an instruction set the target is not compiled for.
    std::vector<std::string> definitions, compilers;
    std::string target_version;  // TORCH_TARGET_VERSION=..., as the project's build defines it
    for (const std::string& define : options.defines)
      if (define.starts_with("TORCH_TARGET_VERSION="))
        target_version = define;
      else
        (predefined_by_compiler(define.substr(0, define.find('='))) ? compilers : definitions).push_back(define);
    if (!definitions.empty())
      r += fmt::format("    target_compile_definitions({} PRIVATE {})\n", target, fmt::join(definitions, " "));
    // The generated stable-ABI bindings compile for the library's target version, and refuse another one: the
    // project's target version goes to its own sources alone, which compile as its build compiles them.
    if (!target_version.empty() && !library_sources.empty())
      r += fmt::format("    set_source_files_properties({} PROPERTIES COMPILE_DEFINITIONS {})\n"
                       "    # {}: the project's sources, as its build compiles them; the bindings for PyTorch {}, "
                       "the library's TORCH_TARGET_VERSION\n",
                       fmt::join(library_sources, " "), target_version, target_version,
                       model::format_torch_version(options.torch_target_version));
    if (!compilers.empty())
      r += fmt::format("    # {}: the compiler defines {} from its target flags: give {} the flags that do, as the "
                       "project's build does (target_compile_options), not a definition\n",
                       fmt::join(compilers, ", "), compilers.size() == 1 ? "it" : "them", target);
    // Its functions (DeepSpeed's `init`, taking a pybind11 config object) have hidden visibility, as pybind11
    // gives what takes its types: only the library that defines the kernels can hold the module that calls them.
    for (const std::string& module : python_modules)
      r += fmt::format("  next: {} stays in the library, the project's own Python module (its functions share the "
                       "kernels' state, and pybind11 gives those that take its types hidden visibility: no other "
                       "library could call them): define its name as the project's build does, and import it "
                       "through a link to lib{}.so named as the module, with Python's extension suffix "
                       "(sysconfig.get_config_var('EXT_SUFFIX'): <name>.cpython-311-x86_64-linux-gnu.so for CPython "
                       "3.11 on x86-64 Linux), so that Python loads the library once\n",
                       module, target);
  }
  if (drafts.empty()) {
    plan.ok = false;
    r += "opgen import: error: no op to import\n";
  }
  return plan;
}

}  // namespace

// --python-package: one package per library. A bare name is the package of the one namespace imported; NS=PACKAGE
// names a namespace's (and must name one the run imports). Two libraries generating one package would overwrite
// each other's modules.
std::optional<std::string> check_python_packages(const ImportOptions& options, const std::set<std::string>& namespaces) {
  const bool several = options.ns.empty() && namespaces.size() > 1;
  if (several && !options.python_package.empty()) {
    std::vector<std::string> each;
    for (const std::string& ns : namespaces) each.push_back(fmt::format("--python-package {}={}_{}", ns, options.python_package, ns));
    return fmt::format("opgen import: error: --python-package {} names one package for the {} namespaces the sources "
                       "register ({}): each is a library of its own, with a package of its own\n  note: name each, "
                       "NS=PACKAGE: {}\n",
                       options.python_package, namespaces.size(), fmt::join(namespaces, ", "), fmt::join(each, " "));
  }
  const std::set<std::string> imported = options.ns.empty() ? namespaces : std::set<std::string>{options.ns};
  std::map<std::string, std::string> named;  // package -> the namespace that named it
  for (const auto& [ns, package] : options.python_packages) {
    if (!imported.count(ns))
      return fmt::format("opgen import: error: --python-package {}={}: this run imports no namespace '{}' (it "
                         "imports {})\n",
                         ns, package, ns, fmt::join(imported, ", "));
    if (auto [it, fresh] = named.emplace(package, ns); !fresh)
      return fmt::format("opgen import: error: --python-package names {} for two namespaces, {} and {}: each library "
                         "needs a package of its own\n",
                         package, it->second, ns);
  }
  if (!options.python_package.empty() && !options.python_packages.empty())
    return fmt::format("opgen import: error: --python-package {} and --python-package {}={}: name the one namespace's "
                       "package once\n",
                       options.python_package, options.python_packages.begin()->first,
                       options.python_packages.begin()->second);
  return std::nullopt;
}

ImportPlan plan_import(const ImportResult& found, const ImportOptions& given) {
  // The namespaces to import: those with an op of theirs, not only fakes of ops defined elsewhere.
  std::set<std::string> namespaces, fakes_only;
  for (const auto& op : found.ops)
    if (!op.ns.empty()) (fake_alone(op) ? fakes_only : namespaces).insert(op.ns);
  if (namespaces.empty()) namespaces = fakes_only;  // nothing else: they are what the sources hold
  for (const std::string& ns : namespaces) fakes_only.erase(ns);
  if (auto refused = check_python_packages(given, namespaces)) {
    ImportPlan plan;
    plan.ok = false;
    plan.report = *refused;
    return plan;
  }
  ImportOptions options = given;  // the one namespace's package, where it was named NS=PACKAGE
  if (const std::string one = !given.ns.empty() ? given.ns : namespaces.size() == 1 ? *namespaces.begin() : "";
      given.python_packages.count(one))
    options.python_package = given.python_packages.at(one);
  if (!options.ns.empty()) {
    // One namespace in the sources and another one asked for: the ops move.
    const bool moved = namespaces.size() == 1 && *namespaces.begin() != options.ns;
    return plan_namespace(found, options, options.ns, namespaces, moved);
  }
  if (namespaces.size() == 1) return plan_namespace(found, options, *namespaces.begin(), namespaces, false);
  if (namespaces.empty() && !found.defs_in_other_configurations.empty()) {
    // megablocks' bindings: every block under `#if defined(CUDA_KERNEL) || ...`, the configuration naming none.
    ImportPlan plan;
    plan.ok = false;
    const auto& defs = found.defs_in_other_configurations;
    plan.report = fmt::format(
        "opgen import: error: the configuration given (--define) leaves out every op the sources define: their {} "
        "def{} stand in #if branches it does not take ({}{})\n  note: give the macros the build defines, as its "
        "compiler's -D flags do\n",
        defs.size(), defs.size() == 1 ? "" : "s",
        fmt::join(defs.begin(), defs.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(defs.size(), 3)), "; "),
        defs.size() > 3 ? fmt::format("; {} more", defs.size() - 3) : "");
    return plan;
  }
  if (namespaces.empty()) {
    ImportPlan plan;
    plan.ok = false;
    plan.report = fmt::format(
        "opgen import: error: no namespace is named in the sources{}: pass --namespace{}\n",
        found.namespace_macros.empty() ? ""
                                       : fmt::format(" (a macro names it: {})", fmt::join(found.namespace_macros, ", ")),
        found.namespace_macros.empty() ? ""
                                       : ", or the macro's value as the build defines it (-D TORCH_EXTENSION_NAME=<name>: "
                                         "then the blocks keep the namespaces they spell, CONCAT(...) too)");
    // What was read and not imported (a project's own registration helper) says why nothing was found.
    plan.report += notes_text(found.notes);
    return plan;
  }
  // Several namespaces (vLLM's _C, _C_cache_ops, ...): each is a library of
  // its own, its specs in <schemas>/<ns>/ and its fakes in <python>/<ns>/.
  // --namespace picks one instead.
  ImportPlan all;
  all.ok = false;
  all.report = fmt::format("opgen import: the sources register {} namespaces ({}): each is imported into its own "
                           "directory, {}/<namespace>/ (--namespace picks one)\n",
                           namespaces.size(), fmt::join(namespaces, ", "), options.schemas_dir.generic_string());
  for (const std::string& ns : namespaces) {
    ImportOptions one = options;
    one.schemas_dir = options.schemas_dir / ns;
    one.python_dir = options.python_dir / ns;
    one.python_package = options.python_packages.count(ns) ? options.python_packages.at(ns) : "";
    ImportPlan plan = plan_namespace(found, one, ns, namespaces, false, true);
    all.ok = all.ok || plan.ok;
    all.report += "\n" + plan.report;
    for (auto& file : plan.files) all.files.push_back(std::move(file));
  }
  std::vector<std::string> helpers;  // those no library's sources are nearest
  const auto owned = helper_namespaces(found, namespaces);
  for (const std::string& helper : found.registration_free_sources)
    if (!owned.count(helper)) helpers.push_back(helper);
  if (!found.notes.empty() || !helpers.empty()) {
    all.report += "\nopgen import: notes on the sources (every namespace):\n";
    all.report += notes_text(found.notes);
    if (!helpers.empty())
      all.report += fmt::format("  note: {} given register{} nothing (the kernels' helpers, kernels other files "
                                "register), as near to one library's sources as to another's: each library's KERNELS "
                                "takes those its kernels call, as the project's build of it does: {}\n",
                                helpers.size() == 1 ? "1 source" : fmt::format("{} sources", helpers.size()),
                                helpers.size() == 1 ? "s" : "", first_names(helpers));
  }
  if (!fakes_only.empty()) {
    std::vector<std::string> fakes;
    for (const auto& op : found.ops)
      if (fakes_only.count(op.ns)) fakes.push_back(fmt::format("{}::{} ({})", op.ns, op.name, op.where));
    all.report += fmt::format("\nopgen import: the sources register fakes alone in {} ({} ops no source given "
                              "defines): they stay in the project; give the sources that define them to import them:"
                              "\n  {}\n",
                              fmt::join(fakes_only, ", "), fakes.size(), fmt::join(fakes, "\n  "));
  }
  std::vector<std::string> unnamed;
  for (const auto& op : found.ops)
    if (op.ns.empty()) unnamed.push_back(fmt::format("{} ({})", op.name, op.where));
  if (!unnamed.empty())
    all.report += fmt::format("\nopgen import: {} ops not imported: the sources name no namespace for them (a macro?); "
                              "import them with --namespace:\n  {}\n",
                              unnamed.size(), fmt::join(unnamed, "\n  "));
  return all;
}

}  // namespace opgen::import
