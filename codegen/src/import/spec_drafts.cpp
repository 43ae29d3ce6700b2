#include "import/spec_drafts.h"

#include <algorithm>
#include <map>
#include <variant>

#include <fmt/format.h>

#include "check/checker.h"
#include "check/names.h"
#include "load/spec_loader.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/yaml_writer.h"

namespace opgen::import::detail {

std::string python_identifier(const std::string& op) {
  std::string id = op;
  std::replace(id.begin(), id.end(), '.', '_');
  return id;
}

// Whether an op's outputs need a fake: some result is not an argument it writes.
bool needs_fake(const std::string& schema) {
  auto parsed = model::parse_schema(schema);
  if (!std::holds_alternative<model::FunctionSchema>(parsed)) return false;  // the checker will say why
  const auto& s = std::get<model::FunctionSchema>(parsed);
  return std::any_of(s.returns.begin(), s.returns.end(),
                     [&](const model::Return& r) { return model::bound_argument(s, r) == nullptr; });
}

// Whether some result of the op carries an alias annotation (`-> Tensor(a)`): a fake may then return its argument.
bool results_alias(const std::string& schema) {
  auto parsed = model::parse_schema(schema);
  if (!std::holds_alternative<model::FunctionSchema>(parsed)) return false;
  const auto& s = std::get<model::FunctionSchema>(parsed);
  return std::any_of(s.returns.begin(), s.returns.end(), [](const model::Return& r) {
    return r.type->alias || (!r.type->elements.empty() && r.type->element().alias);
  });
}

// "a, b, c and 9 more": a project of thousands gets one readable line.
std::string first_names(const std::vector<std::string>& names) {
  constexpr size_t kNamed = 12;
  const size_t named = std::min(names.size(), kNamed);
  return fmt::format("{}{}", fmt::join(names.begin(), names.begin() + named, ", "),
                     names.size() > named ? fmt::format(" and {} more", names.size() - named) : "");
}

std::string spec_text(const ImportedOp& op, const std::string& package,
                      Draft& draft, const std::string& fakes_file, const std::string& ns) {
  std::string out = fmt::format("# {}\n", yaml_comment(fmt::format("Imported by `opgen import` from {}{}.", op.where,
                                                                 op.guard.empty() ? "" : fmt::format(" (under {})", op.guard))));
  // Moved into another namespace (--namespace): a schema that names its own
  // (`TORCH_SELECTIVE_SCHEMA("pyg::scatter_sum(...)")`) loses that prefix, the
  // library supplies the new one; otherwise the schema is kept as written.
  std::string schema = op.schema;
  if (!op.ns.empty() && op.ns != ns && schema.starts_with(op.ns + "::")) schema.erase(0, op.ns.size() + 2);
  if (op.schema_from_type_hints)
    out += fmt::format("# {}\n", yaml_comment(fmt::format("The schema {} infers from the type hints of {} ({}).",
                                                           op.schema_inferred_by.empty() ? "torch.library.custom_op"
                                                                                         : op.schema_inferred_by,
                                                           op.schema_from, op.schema_inferred_from)));
  else if (!op.schema_inferred_from.empty())
    out += fmt::format("# {}\n", yaml_comment(fmt::format("The schema PyTorch infers from the C++ signature of {} "
                                                           "({}): arguments and results named _0, _1, ...",
                                                           op.schema_from, op.schema_inferred_from)));
  out += fmt::format("schema: {}\n", yaml_double_quoted(schema));
  out += fmt::format("abi: {}\n", op.abi == model::Abi::Stable ? "stable" : "unstable");
  // Impls the generated bindings cannot call stay in the project's build,
  // registered against this def (docs/import.md).
  // (At most a dozen: a file of 100,000 registrations of one op would make a spec of megabytes of comments.)
  constexpr size_t kKeptNamed = 12;
  for (size_t i = 0; i < std::min(op.kept_impls.size(), kKeptNamed); ++i)
    out += fmt::format("# {}\n", yaml_comment("kept in the project's build: the impl for " + op.kept_impls[i]));
  if (op.kept_impls.size() > kKeptNamed)
    out += fmt::format("# and {} more impls kept in the project's build\n", op.kept_impls.size() - kKeptNamed);
  if (op.kept_for_internal_linkage) out += fmt::format("# {}\n", kInternalLinkage);
  std::vector<const ImportedKernel*> kernels;
  for (const auto& k : op.kernels) {
    auto same = [&](const ImportedKernel* other) { return other->dispatch_key == k.dispatch_key; };
    if (std::none_of(kernels.begin(), kernels.end(), same)) kernels.push_back(&k);
  }
  if (!kernels.empty()) {
    std::vector<std::string> keys;
    for (const auto* k : kernels) keys.push_back(yaml_scalar(k->dispatch_key));
    out += fmt::format("dispatch: [{}]\n", fmt::join(keys, ", "));
    out += "kernels:\n";
    const bool python = std::all_of(kernels.begin(), kernels.end(), [](const auto* k) { return k->python; });
    if (python) {
      // custom_op's own function, registered by the package once its decorator is gone.
    } else if (op.includes.size() == 1) {
      out += fmt::format("  include: {}\n", yaml_double_quoted(op.includes[0]));
    } else if (!op.includes.empty()) {
      std::vector<std::string> includes;
      for (const auto& include : op.includes) includes.push_back(yaml_double_quoted(include));
      out += fmt::format("  include: [{}]\n", fmt::join(includes, ", "));
    } else {
      draft.needs.push_back(fmt::format("no header of {} declares its kernels: name it under 'kernels: include'",
                                        kernels.front()->where.substr(0, kernels.front()->where.rfind(':'))));
    }
    for (const auto* k : kernels)
      out += k->python ? fmt::format("  {}: {{python: {}}}\n", yaml_scalar(k->dispatch_key), yaml_double_quoted(k->function))
                       : fmt::format("  {}: {}\n", yaml_scalar(k->dispatch_key), yaml_double_quoted(k->function));
    // custom_op's kernels: the package defines the op through custom_op too (triton_op's, through triton_op),
    // so it keeps custom_op's Autograd kernel (a backward raises until register_autograd names a formula) and
    // the project's registrations by the op's name reach its object. custom_op's keys are
    // CompositeExplicitAutograd or a device's.
    if (python && !op.python_definition.empty() && std::all_of(kernels.begin(), kernels.end(), [](const ImportedKernel* k) {
          return k->dispatch_key == "CompositeExplicitAutograd" || !model::custom_op_device_type(k->dispatch_key).empty();
        }))
      out += fmt::format("define: {}  # as the project defined it\n", op.python_definition);
  } else if (!op.kept_impls.empty() && !op.kernel_refused) {
    out += "dispatch: []  # its kernels are the impls kept in the project's build\n";
  } else if (!op.impls_in_other_configurations.empty() && !op.kernel_refused) {
    // As the project's own build of this configuration registers it: the schema alone.
    out += fmt::format("# {}\n", yaml_comment(fmt::format("In this configuration the sources register the schema "
                                                           "alone; its impls are in other configurations: {}",
                                                           fmt::join(op.impls_in_other_configurations, "; "))));
    out += "dispatch: []\n";
  } else if (!op.kernel_refused) {
    // The def alone, as the sources given register it: impls the project
    // registers in other files (vLLM's "impl registration is in source
    // file") keep registering against the spec's def, as kept impls do.
    out += fmt::format("# {}\n", yaml_comment("No impl of it in the sources given: the schema alone, as they register "
                                               "it. Impls the project registers in other files register against it; "
                                               "give those files to the same run to bind their kernels here."));
    out += "dispatch: []\n";
    draft.no_impl_given = true;
  }
  if (!op.tags.empty()) {
    std::vector<std::string> tags;
    for (const auto& tag : op.tags) tags.push_back(yaml_scalar(tag));
    out += fmt::format("tags: [{}]\n", fmt::join(tags, ", "));
  }
  // A kernel at CompositeImplicitAutograd (a catch-all one), bound or kept in the project's build (kept impls read
  // "<key> (<file:line>; why)"): the op decomposes, and takes no fake (E0827; torch refuses to register one).
  auto decomposing = [](std::string_view name) {
    const model::DispatchKey* key = model::find_dispatch_key(name);
    return key && key->kind == model::DispatchKeyKind::Decomposing;
  };
  const auto kept_decomposing = std::find_if(op.kept_impls.begin(), op.kept_impls.end(), [&](const std::string& kept) {
    return decomposing(kept.substr(0, kept.find(" (")));
  });
  const bool decomposes = std::any_of(op.kernels.begin(), op.kernels.end(),
                                      [&](const ImportedKernel& k) { return decomposing(k.dispatch_key); }) ||
                          kept_decomposing != op.kept_impls.end();
  // A Meta kernel is the op's fake (E0828): the spec takes none but the project's own, which `opgen check` then
  // names as a need. One the project keeps in its build (kept impls read "<key> (<file:line>; why)") is named
  // as the fake: `fake: {meta: ...}`.
  const bool meta_kernel =
      std::any_of(op.kernels.begin(), op.kernels.end(), [](const ImportedKernel& k) { return k.dispatch_key == "Meta"; });
  const auto kept_meta = std::find_if(op.kept_impls.begin(), op.kept_impls.end(),
                                      [](const std::string& kept) { return kept.starts_with("Meta ("); });
  // The project's own fake is the spec's, even for an op opgen would write one for (no result of its own:
  // `-> ()`, an out= overload): its checks stay, and the package registers one fake, not a second beside it.
  const bool project_fake = op.has_project_fake();
  // Where the kept impl is where it is written: "<key> (<file:line>; why)".
  auto kept_where = [](const std::string& kept) {
    const size_t open = kept.find(" (") + 2;
    return kept.substr(open, std::min(kept.find(';', open), kept.size() - 1) - open);
  };
  if (op.python_definition == "triton_op" && !project_fake) {
    // triton_op registers its kernel as the op's fake.
  } else if (kept_decomposing != op.kept_impls.end() &&
      std::none_of(op.kernels.begin(), op.kernels.end(),
                   [&](const ImportedKernel& k) { return decomposing(k.dispatch_key); })) {
    out += fmt::format("fake: {{decomposes: {}}}  # {}\n", yaml_double_quoted(kept_where(*kept_decomposing)),
                       yaml_comment("its CompositeImplicitAutograd impl, kept in the project's build, decomposes the "
                                    "op: it takes no fake"));
  } else if (needs_fake(op.schema) && !decomposes && !meta_kernel && kept_meta != op.kept_impls.end() &&
             !project_fake) {
    out += fmt::format("fake: {{meta: {}}}  # {}\n", yaml_double_quoted(kept_where(*kept_meta)),
                       yaml_comment("its Meta impl, kept in the project's build, is its fake"));
  } else if (project_fake || (needs_fake(op.schema) && !decomposes && !meta_kernel)) {
    if (project_fake && !op.fake_returns_argument.empty() && !results_alias(op.schema)) {
      draft.fake_to_fix = op.fake_returns_argument;
      out += fmt::format("# {}\n", yaml_comment(fmt::format("To fix: the fake returns its argument itself ({}); a "
                                                             "fake returns new tensors (x.new_empty(...)).",
                                                             op.fake_returns_argument)));
    }
    if (!op.python_fake.empty()) {
      if (!op.fake_via.empty())
        out += fmt::format("# {}\n", yaml_comment(fmt::format("The fake the project registers through its own "
                                                               "decorator {}: the package registers it instead.",
                                                               op.fake_via)));
      out += fmt::format("fake: {{python: {}}}\n", yaml_double_quoted(op.python_fake));
      draft.fake_registered_at = op.python_fake_at;
    } else if (!op.python_fake_source.empty()) {
      out += fmt::format("fake: {{python: {}}}  # {}\n",
                         yaml_double_quoted(fmt::format("{}._fakes:{}", package, python_identifier(op.name))),
                         yaml_comment(fmt::format("the fake registered at {} (named '_'), moved there",
                                                  op.python_fake_moved_from)));
      draft.fake_moved = true;
      draft.fake_registered_at = op.python_fake_moved_from;
    } else {
      out += fmt::format("fake: {{python: {}}}  # {}\n",
                         yaml_double_quoted(fmt::format("{}._fakes:{}", package, python_identifier(op.name))),
                         yaml_comment("to write: " + fakes_file));
      draft.fake_stub = true;
    }
  }
  return out;
}

// A file's path as a C++ comment may hold it: its control characters (a newline would end the comment) as '?'.
std::string printable(std::string path) {
  for (char& c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return path;
}

// A header of the declarations a registering source makes of its kernels (kernel_headers.h), for the generated
// bindings to include.
std::string declarations_header_text(const ImportResult::DeclarationsHeader& header) {
  std::string out = fmt::format(
      "// Written by `opgen import`: the declarations {} makes of kernels it registers,\n"
      "// which no header declares. The generated bindings, another file, include them\n"
      "// from here; the functions are defined where they were.\n"
      "#pragma once\n\n",
      printable(header.source));
  for (const auto& include : header.includes)
    out += include.condition.empty()
               ? fmt::format("#include {}\n", include.spelled)
               : fmt::format("#if {}\n#include {}\n#endif\n", include.condition, include.spelled);
  std::string scope;
  bool first = true;
  for (const auto& [ns, declaration] : header.declarations) {
    if (first || ns != scope) {
      if (!first && !scope.empty()) out += fmt::format("}}  // namespace {}\n", scope);
      out += ns.empty() ? "\n" : fmt::format("\nnamespace {} {{\n", ns);
      scope = ns;
      first = false;
    }
    out += declaration + "\n";
  }
  if (!scope.empty()) out += fmt::format("}}  // namespace {}\n", scope);
  return out;
}

// Checks the drafts without known needs together, as `opgen check` would;
// a draft with an error gets it as a need. Repeated until what is left
// passes (a cross-op error names one draft of two).
void check_drafts(std::vector<Draft>& drafts, const model::Library& settings) {
  for (int round = 0; round < 4; ++round) {
    model::Library lib = settings;
    Diagnostics diags;
    std::map<std::string, Draft*> by_display;
    for (Draft& d : drafts) {
      if (!d.needs.empty()) continue;
      by_display[d.display] = &d;
      if (auto spec = load::load_spec_text(d.text, d.display, diags)) {
        spec->path = d.display;
        lib.ops.push_back(std::move(*spec));
      }
    }
    if (!diags.has_errors()) check::check_library(lib, diags);
    bool any = false;
    for (const Diagnostic& diag : diags.all()) {
      if (diag.severity != Severity::Error) continue;
      auto it = by_display.find(diag.loc.file);
      if (it == by_display.end()) continue;
      it->second->needs.push_back(fmt::format("opgen check: {}: error[{}]: {}", diag.loc.to_string(),
                                              code_id(diag.code), diag.message));
      any = true;
    }
    if (!any) {
      for (const model::OpSpec& spec : lib.ops)
        if (auto it = by_display.find(spec.path); it != by_display.end())
          it->second->eager_only_code = spec.eager_only_code;
      return;
    }
  }
}

}  // namespace opgen::import::detail
