#include "import/kernel_headers.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "import/infer_schema.h"
#include "import/source_declarations.h"
#include "model/schema.h"
#include "model/spec.h"
#include "support/file_io.h"

namespace opgen::import {

std::optional<std::filesystem::path> find_include(const std::filesystem::path& dir, const std::string& include,
                                                  const std::vector<std::filesystem::path>& include_dirs) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(dir / include, ec)) return dir / include;
  for (const auto& include_dir : include_dirs)
    if (std::filesystem::is_regular_file(include_dir / include, ec)) return include_dir / include;
  const std::filesystem::path from_root(include);
  if (from_root.has_parent_path() && from_root.is_relative() && std::filesystem::is_regular_file(from_root, ec))
    return from_root;
  return std::nullopt;
}

namespace {

// Whether a header whose identifiers are `identifiers` may declare `function`: it names the function and each
// namespace the registration qualifies it with (a header of CUTLASS's declares its own `pack_scale_fp8`, not
// vLLM's `vllm::cutlass_w4a8::pack_scale_fp8`).
bool may_declare(const std::set<std::string>& identifiers, const std::string& function) {
  const std::string name = function.substr(0, function.find('<'));
  for (size_t begin = 0; begin <= name.size();) {
    const size_t end = std::min(name.find("::", begin), name.size());
    if (end > begin && !identifiers.count(name.substr(begin, end - begin))) return false;
    begin = end + 2;
  }
  return true;
}

// A CUDA source: its headers (device code, CUB, CUTLASS) do not compile in the C++ files the bindings are.
bool cuda_source(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  return extension == ".cu" || extension == ".cuh";
}

// A header of PyTorch's (`c10/core/ScalarType.h`, without its delimiters): on the include path torch gives every
// build, and declaring none of a project's kernels.
bool pytorch_header(std::string_view name) {
  return name.starts_with("torch/") || name.starts_with("ATen/") || name.starts_with("c10/");
}

// Of a CUDA source's #includes, those a C++ file can include too: PyTorch's and the standard library's.
bool cpp_library_header(const std::string& include) {
  if (!include.starts_with("<")) return false;
  const std::string name = include.substr(1, include.size() - 2);
  return pytorch_header(name) || name.find('.') == std::string::npos;
}

// An #include (with its delimiters) of Python's C API, or of what needs it: an opgen library is built without it.
bool needs_python(const std::string& include) {
  return include == "<Python.h>" || include == "<torch/extension.h>" || include == "<torch/python.h>" ||
         include.starts_with("<pybind11/");
}

// Of those, the ones whose inline code calls Python's C API wherever they are included (pybind11's): a library
// compiled with them must find the interpreter's symbols when Python loads it. <Python.h> alone declares.
bool brings_pybind11(const std::string& include) {
  return include == "<torch/extension.h>" || include == "<torch/python.h>" || include.starts_with("<pybind11/");
}

// The headers a run reads, each once: where a quoted include of a file in a directory is, what a header declares,
// what an include brings in with its own includes, and the registering sources, read again for their own
// declarations.
class IncludeGraph {
 public:
  // A header import read: its identifiers and its own quoted includes.
  struct Header {
    std::set<std::string> identifiers;
    Tokens tokens;
    std::map<std::string, std::vector<size_t>> calls;  // index_calls: where each name is followed by `(`
    std::vector<std::string> includes;
    bool python = false;  // it includes Python's C API (directly): an opgen library's build has none
    bool pybind11 = false;  // it includes pybind11 (directly): brings_pybind11
  };
  // What an include brings in, its own includes followed: its headers' identifiers, and whether one of them needs
  // Python's C API (vLLM's core/registration.h: <Python.h>), which the generated bindings cannot include.
  struct Beneath {
    std::set<std::string> names;
    bool python = false;
    bool pybind11 = false;
  };

  IncludeGraph(const Configuration* configuration, const std::vector<std::filesystem::path>& include_dirs)
      : configuration_(configuration), include_dirs_(include_dirs) {}

  // Where an include of a file in `dir` is (find_include).
  const std::optional<std::filesystem::path>& find(const std::filesystem::path& dir, const std::string& include) {
    auto [it, fresh] = found_.try_emplace({dir.generic_string(), include});
    if (fresh) it->second = find_include(dir, include, include_dirs_);
    return it->second;
  }

  // The header at `path`; nullopt when it cannot be read.
  const std::optional<Header>& header(const std::filesystem::path& path) {
    auto [it, fresh] = headers_.try_emplace(path.generic_string());
    if (!fresh) return it->second;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return it->second;
    if (auto text = read_file(path)) {
      ScannedSource scanned = scan_cpp(*text, configuration_);
      Header header;
      for (const Token& t : scanned.tokens)
        if (t.kind == Token::Kind::Identifier) header.identifiers.insert(t.text);
      header.calls = index_calls(scanned.tokens);
      header.tokens = std::move(scanned.tokens);
      header.includes = scanned.quoted_includes;
      header.python = std::any_of(scanned.includes.begin(), scanned.includes.end(), needs_python);
      header.pybind11 = std::any_of(scanned.includes.begin(), scanned.includes.end(), brings_pybind11);
      it->second = std::move(header);
    }
    return it->second;
  }

  // The identifiers of the header an include of a file in `dir` names; nullptr when it is not found or read.
  const std::set<std::string>* identifiers(const std::filesystem::path& dir, const std::string& include) {
    const auto& path = find(dir, include);
    if (!path) return nullptr;
    const auto& read = header(*path);
    return read ? &read->identifiers : nullptr;
  }

  // Whether `header` may declare `function` with `arity` parameters: it names it, and of the declarations of it
  // import reads there (none, where a macro declares it), one takes that many. A header that declares only another
  // overload (torch_cluster's cluster.h: an older `radius` of 6 parameters, the one registered, of 8, defined in
  // radius.cpp alone) does not.
  static bool declares(const Header& header, const std::string& function, std::optional<size_t> arity) {
    if (!may_declare(header.identifiers, function)) return false;
    if (!arity) return true;
    const auto calls = header.calls.find(declared_name(function));
    if (calls == header.calls.end()) return true;
    const std::vector<size_t> arities = declared_arities(header.tokens, calls->second);
    return arities.empty() || std::find(arities.begin(), arities.end(), *arity) != arities.end();
  }

  // Whether a header that `includes` (of a file in `dir`) bring in may declare `function` (declares).
  bool declared_beneath(const std::filesystem::path& dir, const std::vector<std::string>& includes,
                        const std::string& function, std::optional<size_t> arity) {
    bool declared = false;
    walk(dir, includes, [&](const Header& h) { return declared = declares(h, function, arity); });
    return declared;
  }

  const Beneath& beneath(const std::filesystem::path& dir, const std::string& include) {
    const auto emplaced = beneath_.try_emplace({dir.generic_string(), include});
    Beneath& brought = emplaced.first->second;  // not a structured binding: clang 14 cannot capture one
    if (emplaced.second)
      walk(dir, {include}, [&](const Header& h) {
        brought.names.insert(h.identifiers.begin(), h.identifiers.end());
        brought.python = brought.python || h.python;
        brought.pybind11 = brought.pybind11 || h.pybind11;
        return false;
      });
    return brought;
  }

  // A registering source (its display path, from the directory import runs in), and the functions it declares;
  // nullptr when it cannot be read.
  struct Source {
    ScannedSource scanned;
    std::optional<SourceDeclarations> declarations;  // over `scanned`'s tokens
  };
  const Source* source(const std::string& display) {
    auto [it, fresh] = sources_.try_emplace(display);
    if (fresh)
      if (auto text = read_file(display)) {
        it->second = std::make_unique<Source>(Source{scan_cpp(*text, configuration_), std::nullopt});
        it->second->declarations.emplace(it->second->scanned.tokens);
      }
    return it->second.get();
  }

 private:
  // Visits the headers `includes` (of a file in `dir`) bring in, their own quoted includes followed: each once, at
  // most kReach, until `visit` returns true.
  template <typename Visit>
  void walk(const std::filesystem::path& dir, const std::vector<std::string>& includes, Visit&& visit) {
    constexpr size_t kReach = 256;
    std::set<std::string> seen;
    std::vector<std::pair<std::filesystem::path, std::string>> pending;
    for (const auto& include : includes) pending.emplace_back(dir, include);
    while (!pending.empty() && seen.size() < kReach) {
      auto [from, include] = pending.back();
      pending.pop_back();
      const auto path = find(from, include);
      if (!path || !seen.insert(path->generic_string()).second) continue;
      const auto& read = header(*path);
      if (!read) continue;
      if (visit(*read)) return;
      for (const auto& nested : read->includes) pending.emplace_back(path->parent_path(), nested);
    }
  }

  const Configuration* configuration_;
  const std::vector<std::filesystem::path>& include_dirs_;
  std::map<std::pair<std::string, std::string>, std::optional<std::filesystem::path>> found_;
  std::map<std::string, std::optional<Header>> headers_;
  std::map<std::pair<std::string, std::string>, Beneath> beneath_;
  std::map<std::string, std::unique_ptr<Source>> sources_;
};

}  // namespace

void choose_kernel_headers(ImportResult& found, const Configuration* configuration,
                           const std::vector<std::filesystem::path>& include_dirs) {
  namespace fs = std::filesystem;
  IncludeGraph graph(configuration, include_dirs);
  // (registering file, function, its schema's arity): declared_beneath
  std::map<std::tuple<std::string, std::string, std::optional<size_t>>, bool> declared;
  std::map<std::string, RegistrationBlock::Registration*> registration_at;  // by file:line of the call
  for (auto& block : found.blocks)
    for (auto& registration : block.registrations) registration_at.emplace(registration.where, &registration);
  // The headers the registering files include, each where it was found. A kernel registered in a file none of whose
  // own headers declares it may be declared in one of these (vLLM registers `dsv3_fused_a_gemm` in the .cu that
  // defines it, and declares it in the ops.h its bindings file includes): the generated bindings include that one.
  struct ProjectHeader {
    std::string include, included_by;
    fs::path at;
  };
  std::map<std::string, ProjectHeader> project_headers;  // by path: the first of a run reads them in order
  for (const ImportedOp& op : found.ops)
    for (const std::string& include : op.includes)
      if (const auto& at = graph.find(fs::path(op.includes_from).parent_path(), include); at && graph.header(*at))
        project_headers.try_emplace(at->generic_string(), ProjectHeader{include, op.includes_from, *at});
  auto declared_elsewhere = [&](const std::string& function, std::optional<size_t> arity) -> const ProjectHeader* {
    for (const auto& [path, header] : project_headers)
      if (IncludeGraph::declares(*graph.header(header.at), function, arity)) return &header;
    return nullptr;
  };
  // The number of arguments an op's schema has, which its kernels' declarations must take; nullopt where the schema
  // does not parse (opgen check says why).
  auto arity_of = [](const ImportedOp& op) -> std::optional<size_t> {
    const auto parsed = model::parse_schema(op.schema);
    const auto* schema = std::get_if<model::FunctionSchema>(&parsed);
    return schema ? std::optional(schema->arguments.size()) : std::nullopt;
  };
  // Kernels declared in their registering source alone, whose declarations import copies into a header of its
  // own (by source).
  std::map<std::string, std::vector<SourceDeclaration>> moved;
  std::set<std::pair<size_t, std::string>> moved_kernels;  // (op index, function)
  std::set<std::tuple<std::string, std::string, std::string>> moved_texts;  // (source, namespace, declaration)
  // Copies the declarations of `function` from `source` (in `dir`), or says why it cannot: the header includes
  // what the source includes, but for what needs Python, so those must declare every name the declarations use.
  auto copy_declarations = [&](const std::string& source, const fs::path& dir, const std::string& function,
                               const std::vector<std::string>& includes) -> std::optional<std::string> {
    const auto* scanned = graph.source(source);
    if (!scanned) return std::string("import could not read it again");
    auto copied = scanned->declarations->of(function);
    if (const auto* why = std::get_if<std::string>(&copied)) return *why;
    for (const SourceDeclaration& d : std::get<std::vector<SourceDeclaration>>(copied))
      for (const std::string& name : d.project_names)
        if (cuda_source(source))
          return fmt::format("its declaration names {}, which only the headers of a CUDA source declare, and the "
                             "generated bindings are C++",
                             name);
        else if (std::none_of(includes.begin(), includes.end(), [&](const std::string& include) {
              const IncludeGraph::Beneath& b = graph.beneath(dir, include);
              return !b.python && b.names.count(name) > 0;
            }))
          return fmt::format("its declaration names {}, which no header {} includes declares", name, source);
    auto& into = moved[source];
    for (SourceDeclaration& d : std::get<std::vector<SourceDeclaration>>(copied))
      if (moved_texts.emplace(source, d.scope, d.text).second) into.push_back(std::move(d));
    return std::nullopt;
  };
  struct Choice {
    std::set<std::string> kept, context, not_found, declaring_none, elsewhere;
  };
  std::map<std::string, Choice> chosen;  // by registering file, for one note each
  // By registering file, the includes kept whole for an op whose kernels no header read declares (megablocks'
  // wrappers, defined in its bindings, which include kernel-builder's registration.h, not in the tree): the note
  // does not call them left out.
  std::map<std::string, std::set<std::string>> kept_whole;
  // Where each op's chosen includes are, by op: what the library's include path must reach.
  std::vector<std::vector<std::optional<fs::path>>> include_at(found.ops.size());
  // Where the source that registers a kernel also defines it (pyg-lib's samplers, FBGEMM's quantize kernels), or a
  // source given that registers nothing does (the kernels' file beside the bindings), a build that compiles that
  // file compiles the kernel: the report's CMake then needs no other source for it.
  auto defines = [&](const std::string& file, const std::string& function) {
    const IncludeGraph::Source* source = graph.source(file);
    if (!source || !source->declarations) return false;
    const auto declared = source->declarations->of(function);
    const auto* ds = std::get_if<std::vector<SourceDeclaration>>(&declared);
    return ds && std::any_of(ds->begin(), ds->end(), [](const SourceDeclaration& d) { return d.defined; });
  };
  for (ImportedOp& op : found.ops)
    for (ImportedKernel& k : op.kernels) {
      const size_t colon = k.where.rfind(':');
      if (k.python || colon == std::string::npos) continue;
      if (defines(k.where.substr(0, colon), k.function)) {
        k.defined_in = k.where.substr(0, colon);
        continue;
      }
      for (const std::string& file : found.registration_free_sources)
        if (defines(file, k.function)) {
          k.defined_in = file;
          break;
        }
    }
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    ImportedOp& op = found.ops[op_index];
    if (op.includes_from.empty() || op.kernels.empty()) continue;
    const fs::path dir = fs::path(op.includes_from).parent_path();
    const std::optional<size_t> arity = arity_of(op);
    auto record_includes = [&] {
      for (const std::string& include : op.includes) include_at[op_index].push_back(graph.find(dir, include));
    };
    // PyTorch's headers, included as "c10/core/ScalarType.h" (FBGEMM's quantize_ops_meta.cpp), count as read:
    // they declare no kernel of the project's.
    const bool all_found = std::all_of(op.includes.begin(), op.includes.end(), [&](const std::string& include) {
      return graph.find(dir, include).has_value() || pytorch_header(include);
    });
    if (all_found) {
      // Every header the file includes is here (or it includes none of its own) and none declares this
      // kernel: it is declared in the source alone, and the generated bindings (another file) could not name it. An impl stays in
      // the project's build; a def that names its kernel cannot be split, and needs a person.
      std::erase_if(op.kernels, [&](const ImportedKernel& k) {
        if (k.python) return false;
        auto [known, fresh] = declared.try_emplace({op.includes_from, k.function, arity});
        if (fresh) known->second = graph.declared_beneath(dir, op.includes, k.function, arity);
        if (known->second || declared_elsewhere(k.function, arity)) return false;
        // Declared in the source alone: its declaration is copied into a header of import's, if it can be.
        const auto not_copied = copy_declarations(op.includes_from, dir, k.function, op.includes);
        if (!not_copied) {
          moved_kernels.emplace(op_index, k.function);
          return false;
        }
        const auto registration = registration_at.find(k.where);
        const std::string why = fmt::format(
            "{} ({}), so the generated bindings cannot call it",
            op.includes.empty()
                ? fmt::format("{} includes no header of its own (#include \"...\") that could declare its kernel {}",
                              op.includes_from, k.function)
                : fmt::format("its kernel {} is declared in no header that {} includes (in the source alone)",
                              k.function, op.includes_from),
            *not_copied);
        if (registration == registration_at.end() || registration->second->def) {
          op.kernel_refused = true;
          op.needs.push_back(fmt::format("{}: {}: declare it in a header and name that under 'kernels: include'",
                                         k.where, why));
          return true;
        }
        registration->second->kept = true;
        op.kept_impls.push_back(fmt::format("{} ({}; {})", k.dispatch_key, k.where, why));
        return true;
      });
    }
    if (op.kernels.empty()) continue;  // each kept in the project's build
    std::vector<std::string> declaring;
    for (const std::string& include : op.includes) {
      const IncludeGraph::Header* header = nullptr;
      if (const auto& path = graph.find(dir, include))
        if (const auto& read = graph.header(*path)) header = &*read;
      if (header && std::any_of(op.kernels.begin(), op.kernels.end(), [&](const ImportedKernel& k) {
            return IncludeGraph::declares(*header, k.function, arity);
          }))
        declaring.push_back(include);
    }
    // The headers the source includes before the last that declares a kernel, which it may need (vLLM's ops.h
    // names torch::Tensor, which its bindings file's cache.h brings in first), but for those that need Python.
    std::vector<std::string> context;
    if (!declaring.empty()) {
      const auto last = std::find(op.includes.begin(), op.includes.end(), declaring.back());
      for (auto it = op.includes.begin(); it != last; ++it)
        if (std::find(declaring.begin(), declaring.end(), *it) == declaring.end() && graph.find(dir, *it) &&
            !graph.beneath(dir, *it).python)
          context.push_back(*it);
    }
    auto with_context = [&] {
      std::vector<std::string> kept;
      for (const std::string& include : op.includes)
        if (std::find(context.begin(), context.end(), include) != context.end() ||
            std::find(declaring.begin(), declaring.end(), include) != declaring.end())
          kept.push_back(include);
      return kept;
    };
    if (std::any_of(op.kernels.begin(), op.kernels.end(),
                    [&](const ImportedKernel& k) { return moved_kernels.count({op_index, k.function}) > 0; })) {
      // The header of copied declarations joins the headers that declare its other kernels (named below).
      const bool others = std::any_of(op.kernels.begin(), op.kernels.end(), [&](const ImportedKernel& k) {
        return !k.python && !moved_kernels.count({op_index, k.function});
      });
      if (!declaring.empty() || !others) op.includes = with_context();
      record_includes();
      op.declarations_header = op.includes_from;
      continue;
    }
    if (declaring.empty()) {
      std::map<std::string, const ProjectHeader*> elsewhere;  // by path
      const bool all_elsewhere = std::all_of(op.kernels.begin(), op.kernels.end(), [&](const ImportedKernel& k) {
        if (k.python) return true;
        const ProjectHeader* header = declared_elsewhere(k.function, arity);
        if (header) elsewhere.emplace(header->at.generic_string(), header);
        return header != nullptr;
      });
      if (!all_elsewhere || elsewhere.empty()) {
        record_includes();  // none readable declares them: keep what the source includes
        kept_whole[op.includes_from].insert(op.includes.begin(), op.includes.end());
        continue;
      }
      op.includes.clear();
      for (const auto& [path, header] : elsewhere) {
        op.includes.push_back(header->include);
        include_at[op_index].push_back(header->at);
        chosen[op.includes_from].elsewhere.insert(
            fmt::format("{} (as {} includes it)", header->include, header->included_by));
      }
      continue;
    }
    Choice& choice = chosen[op.includes_from];
    for (const std::string& include : op.includes) {
      if (std::find(declaring.begin(), declaring.end(), include) != declaring.end())
        choice.kept.insert(include);
      else if (std::find(context.begin(), context.end(), include) != context.end())
        choice.context.insert(include);
      else
        (graph.identifiers(dir, include) ? choice.declaring_none : choice.not_found).insert(include);
    }
    op.includes = with_context();
    record_includes();
  }
  // A kernel's name that a header another op of the library includes declares with another number of parameters
  // (torch_cluster's cluster.h, an older `radius` of 6, beside the one of 8 that radius.cpp declares, copied): in a
  // unity shard both declarations meet, the name is an overload set, and its address is ambiguous. Each op's TU
  // holds its own headers alone: the report asks for one TU per op.
  std::set<std::string> library_headers;
  for (const auto& at : include_at)
    for (const auto& path : at)
      if (path) library_headers.insert(path->generic_string());
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> arities_in;  // (header, name): declared_arities
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    const ImportedOp& op = found.ops[op_index];
    const std::optional<size_t> arity = arity_of(op);
    if (!arity) continue;
    std::set<std::string> own;
    for (const auto& path : include_at[op_index])
      if (path) own.insert(path->generic_string());
    for (const ImportedKernel& k : op.kernels) {
      if (k.python) continue;
      const std::string name = declared_name(k.function);
      for (const std::string& path : library_headers) {
        if (own.count(path)) continue;
        const auto& header = graph.header(path);
        if (!header || !may_declare(header->identifiers, k.function)) continue;
        auto [it, fresh] = arities_in.try_emplace({path, name});
        if (fresh)
          if (const auto calls = header->calls.find(name); calls != header->calls.end())
            it->second = declared_arities(header->tokens, calls->second);
        const auto other = std::find_if(it->second.begin(), it->second.end(), [&](size_t n) { return n != *arity; });
        if (other == it->second.end()) continue;
        found.overloaded_kernels.push_back(fmt::format("{} ({} parameters, as {} takes; {} declares one of {})",
                                                       k.function, *arity, op.name, path, *other));
        break;
      }
    }
  }
  for (auto& [file, choice] : chosen) {
    std::string left_out;
    // A header that declares some op's kernels is kept for those ops, though it declares none of another's.
    for (const std::string& include : choice.kept) choice.declaring_none.erase(include);
    for (const std::string& include : choice.kept) choice.context.erase(include);
    for (const std::string& include : choice.context) choice.declaring_none.erase(include);
    for (const std::string& include : kept_whole[file]) {
      choice.declaring_none.erase(include);
      choice.not_found.erase(include);
    }
    if (!choice.not_found.empty())
      left_out += fmt::format("; left out: {} (not beside it)", fmt::join(choice.not_found, ", "));
    if (!choice.declaring_none.empty())
      left_out += fmt::format("; left out: {} (declaring none of them)", fmt::join(choice.declaring_none, ", "));
    std::vector<std::string> declaring(choice.kept.begin(), choice.kept.end());
    declaring.insert(declaring.end(), choice.elsewhere.begin(), choice.elsewhere.end());
    const std::string before =
        choice.context.empty()
            ? ""
            : fmt::format(" (after {}, which it includes first)", fmt::join(choice.context, ", "));
    found.notes.push_back(fmt::format("{}: its kernels are declared in {}{}{}", file, fmt::join(declaring, ", "),
                                      before, left_out));
  }
  // Each header of copied declarations is named after its source, `<stem>_kernels.h` (from the source's path where
  // two sources share a stem; a number after it where names still meet), its characters those of an identifier:
  // the name goes into the specs and an #include line.
  auto identifier_chars = [](std::string name) {
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
  };
  std::map<std::string, int> stems;
  for (const auto& [source, copied] : moved) ++stems[identifier_chars(fs::path(source).stem().string())];
  std::set<std::string> taken;
  for (const auto& [source, copied] : moved) {
    std::string stem = identifier_chars(fs::path(source).stem().string());
    if (stems[stem] > 1) stem = identifier_chars(fs::path(source).replace_extension().generic_string());
    const std::string base = stem;
    for (int n = 2; !taken.insert(stem).second; ++n) stem = fmt::format("{}_{}", base, n);
    ImportResult::DeclarationsHeader header;
    header.source = source;
    header.file = stem + "_kernels.h";
    for (const SourceDeclaration& d : copied) header.declarations.emplace_back(d.scope, d.text);
    found.declarations_headers.push_back(std::move(header));
  }
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    ImportedOp& op = found.ops[op_index];
    if (op.declarations_header.empty()) continue;
    for (const auto& header : found.declarations_headers)
      if (header.source == op.declarations_header) op.declarations_header = header.file;
    op.includes.push_back(op.declarations_header);
    include_at[op_index].push_back(std::nullopt);  // written beside the specs, on the path import_specs.h prints
  }

  // Each library's include path: the build's own (-I), in its order, then the directory each header its kernels
  // keep was found under (its own subdirectories kept). Appended, not put first: a source the library compiles as it
  // is finds each header where the project's build finds it.
  std::map<std::string, std::set<std::string>> beside;  // namespace -> directories
  auto found_under = [](const fs::path& at, const std::string& include) {
    const std::string where = at.generic_string();
    return where.substr(0, where.size() - std::min(where.size(), include.size()));
  };
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    const ImportedOp& op = found.ops[op_index];
    beside[op.ns];  // a library whose kernels keep no header still has the build's -I
    for (size_t i = 0; i < include_at[op_index].size(); ++i)
      if (const auto& at = include_at[op_index][i]) beside[op.ns].insert(found_under(*at, op.includes[i]));
  }
  // A header of copied declarations includes its source's headers: their directories go to the libraries of the
  // ops that include it (each source's includes looked up once per namespace, however many ops it has).
  std::map<std::string, std::string> source_of;  // header of copied declarations -> its source
  for (const auto& header : found.declarations_headers) source_of[header.file] = header.source;
  std::set<std::pair<std::string, std::string>> copied_for;  // (source, namespace)
  for (const ImportedOp& op : found.ops)
    if (const auto source = source_of.find(op.declarations_header); source != source_of.end())
      copied_for.emplace(source->second, op.ns);
  for (const auto& [source, ns] : copied_for) {
    if (cuda_source(source)) continue;  // its copy includes none of its own headers
    for (const std::string& include : graph.source(source)->scanned.quoted_includes)
      if (const auto& at = graph.find(fs::path(source).parent_path(), include)) beside[ns].insert(found_under(*at, include));
  }
  for (const auto& [ns, dirs] : beside) {
    std::vector<std::string>& path = found.include_dirs[ns];
    auto add_dir = [&](std::string dir) {
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (dir.empty()) dir = ".";
      if (std::find(path.begin(), path.end(), dir) == path.end()) path.push_back(std::move(dir));
    };
    for (const auto& dir : include_dirs) add_dir(dir.generic_string());
    for (const auto& dir : dirs) add_dir(dir);
  }
  // The compiled sources given that bring pybind11 in, themselves or through their quoted includes: the library
  // that compiles them calls Python's C API (DeepSpeed's DeepCompile kernels take pybind11 objects).
  std::vector<std::string> files;
  for (const auto& block : found.blocks)
    if (std::find(files.begin(), files.end(), block.file) == files.end()) files.push_back(block.file);
  files.insert(files.end(), found.registration_free_sources.begin(), found.registration_free_sources.end());
  for (const std::string& file : files)
    if (const IncludeGraph::Source* source = graph.source(file)) {
      const fs::path dir = fs::path(file).parent_path();
      const auto& includes = source->scanned.includes;
      if (std::any_of(includes.begin(), includes.end(), [&](const std::string& include) {
            return brings_pybind11(include) ||
                   (include.starts_with("\"") && graph.beneath(dir, include.substr(1, include.size() - 2)).pybind11);
          }))
        found.pybind11_sources.insert(file);
      else if (std::any_of(includes.begin(), includes.end(), [&](const std::string& include) {
                 return needs_python(include) ||
                        (include.starts_with("\"") && graph.beneath(dir, include.substr(1, include.size() - 2)).python);
               }))
        found.python_header_sources.insert(file);
    }

  // The generated header includes them from that path, not from beside the registering file. Where a directory
  // before has a header of the same name (vLLM's csrc/ops.h, ahead of the csrc/libtorch_stable/ops.h its stable
  // bindings include), name the header from a directory of the path that reaches the one import read.
  auto same_file = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
  };
  using Path = std::vector<std::string>;
  auto first_on_path = [&](const Path& path, const std::string& include) -> std::optional<fs::path> {
    std::error_code ec;
    for (const auto& dir : path)
      if (fs::is_regular_file(fs::path(dir) / include, ec)) return fs::path(dir) / include;
    return std::nullopt;
  };
  auto spelled = [&](const Path& path, const std::string& include, const fs::path& read) {
    const auto reached = first_on_path(path, include);
    if (reached && same_file(*reached, read)) return include;
    std::optional<std::string> spelling;
    for (const auto& dir : path) {
      const fs::path relative = read.lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
      if (relative.empty() || *relative.begin() == "..") continue;
      const auto there = first_on_path(path, relative.generic_string());
      if (there && same_file(*there, read) && (!spelling || relative.generic_string().size() < spelling->size()))
        spelling = relative.generic_string();
    }
    return spelling.value_or(include);
  };
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index)
    for (size_t i = 0; i < include_at[op_index].size(); ++i)
      if (const auto& read = include_at[op_index][i])
        found.ops[op_index].includes[i] =
            spelled(found.include_dirs[found.ops[op_index].ns], found.ops[op_index].includes[i], *read);

  // A header of copied declarations includes what its source includes, in order, as the declarations were
  // compiled there: but for what needs Python's C API (<torch/extension.h> becomes <torch/all.h>, which it is
  // without the Python binding), and, from a CUDA source, PyTorch's and the standard library's headers alone.
  // Each under the #if conditions it stands under there (torch_sparse's `#ifdef USE_ROCM` <hip/hip_version.h>).
  for (auto& header : found.declarations_headers) {
    const fs::path dir = fs::path(header.source).parent_path();
    const bool cuda = cuda_source(header.source);
    const ScannedSource& scanned = graph.source(header.source)->scanned;
    const auto user = std::find_if(found.ops.begin(), found.ops.end(),
                                   [&](const ImportedOp& op) { return op.declarations_header == header.file; });
    const Path& path = found.include_dirs[user == found.ops.end() ? std::string() : user->ns];  // its library's
    for (size_t i = 0; i < scanned.includes.size(); ++i) {
      const std::string& include = scanned.includes[i];
      auto add = [&](const std::string& spelled_include) {
        header.includes.push_back({spelled_include, i < scanned.include_conditions.size() ? scanned.include_conditions[i] : ""});
      };
      if (cuda && !cpp_library_header(include)) continue;
      if (include == "<torch/extension.h>") {
        add("<torch/all.h>");
      } else if (include.starts_with("<")) {
        if (!needs_python(include)) add(include);
      } else {
        const std::string quoted = include.substr(1, include.size() - 2);
        const auto& read = graph.find(dir, quoted);
        if (!read) add(include);  // it may be on the include path the build gives
        else if (!graph.beneath(dir, quoted).python) {
          // Spelled from a directory's name, which may hold what an #include line cannot: then as the source has it.
          const std::string respelled = spelled(path, quoted, *read);
          add(model::include_problem(respelled) ? include : "\"" + respelled + "\"");
        }
      }
    }
  }
}

}  // namespace opgen::import
