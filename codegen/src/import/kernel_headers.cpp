#include "import/kernel_headers.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

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

}  // namespace

void choose_kernel_headers(ImportResult& found, const Configuration* configuration,
                           const std::vector<std::filesystem::path>& include_dirs) {
  namespace fs = std::filesystem;
  // A header import read: its identifiers and its own quoted includes.
  struct Header {
    std::set<std::string> identifiers;
    std::vector<std::string> includes;
  };
  // header path -> what it holds (nullopt: not readable), each read once
  std::map<std::string, std::optional<Header>> headers;
  static const std::optional<Header> kNone;
  auto header_at = [&](const fs::path& path) -> const std::optional<Header>& {
    auto [it, fresh] = headers.try_emplace(path.generic_string());
    if (fresh) {
      std::error_code ec;
      if (fs::is_regular_file(path, ec)) {
        if (auto text = read_file(path)) {
          const ScannedSource scanned = scan_cpp(*text, configuration);
          Header header;
          for (const Token& t : scanned.tokens)
            if (t.kind == Token::Kind::Identifier) header.identifiers.insert(t.text);
          header.includes = scanned.quoted_includes;
          it->second = std::move(header);
        }
      }
    }
    return it->second;
  };
  // Where an include of a file in `dir` is, looked for once per (dir, include).
  std::map<std::pair<std::string, std::string>, std::optional<fs::path>> found_includes;
  auto find = [&](const fs::path& dir, const std::string& include) -> const std::optional<fs::path>& {
    auto [it, fresh] = found_includes.try_emplace({dir.generic_string(), include});
    if (fresh) it->second = find_include(dir, include, include_dirs);
    return it->second;
  };
  auto identifiers = [&](const fs::path& dir, const std::string& include) -> const std::set<std::string>* {
    const auto& path = find(dir, include);
    if (!path) return nullptr;
    const auto& header = header_at(*path);
    return header ? &header->identifiers : nullptr;
  };
  // Whether a header that `includes` (of a file in `dir`) bring in may declare `function`,
  // their own quoted includes followed: each header once, at most kReach.
  constexpr size_t kReach = 256;
  auto declared_beneath = [&](const fs::path& dir, const std::vector<std::string>& includes, const std::string& function) {
    std::set<std::string> seen;
    std::vector<std::pair<fs::path, std::string>> pending;
    for (const auto& include : includes) pending.emplace_back(dir, include);
    while (!pending.empty() && seen.size() < kReach) {
      auto [from, include] = pending.back();
      pending.pop_back();
      const auto& path = find(from, include);
      if (!path || !seen.insert(path->generic_string()).second) continue;
      const auto& header = header_at(*path);
      if (!header) continue;
      if (may_declare(header->identifiers, function)) return true;
      for (const auto& nested : header->includes) pending.emplace_back(path->parent_path(), nested);
    }
    return false;
  };
  std::map<std::pair<std::string, std::string>, bool> declared;  // (registering file, function): declared_beneath
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
      if (const auto& at = find(fs::path(op.includes_from).parent_path(), include); at && header_at(*at))
        project_headers.try_emplace(at->generic_string(), ProjectHeader{include, op.includes_from, *at});
  auto declared_elsewhere = [&](const std::string& function) -> const ProjectHeader* {
    for (const auto& [path, header] : project_headers)
      if (may_declare(header_at(header.at)->identifiers, function)) return &header;
    return nullptr;
  };
  struct Choice {
    std::set<std::string> kept, not_found, declaring_none, elsewhere;
  };
  std::map<std::string, Choice> chosen;  // by registering file, for one note each
  // Where each op's chosen includes are, by op: what the library's include path must reach.
  std::vector<std::vector<std::optional<fs::path>>> include_at(found.ops.size());
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    ImportedOp& op = found.ops[op_index];
    if (op.includes_from.empty() || op.kernels.empty()) continue;
    const fs::path dir = fs::path(op.includes_from).parent_path();
    auto record_includes = [&] {
      for (const std::string& include : op.includes) include_at[op_index].push_back(find(dir, include));
    };
    const bool all_found = std::all_of(op.includes.begin(), op.includes.end(),
                                       [&](const std::string& include) { return find(dir, include).has_value(); });
    if (all_found) {
      // Every header the file includes is here (or it includes none of its own) and none declares this
      // kernel: it is declared in the source alone, and the generated bindings (another file) could not name it. An impl stays in
      // the project's build; a def that names its kernel cannot be split, and needs a person.
      std::erase_if(op.kernels, [&](const ImportedKernel& k) {
        if (k.python) return false;
        auto [known, fresh] = declared.try_emplace({op.includes_from, k.function});
        if (fresh) known->second = declared_beneath(dir, op.includes, k.function);
        if (known->second || declared_elsewhere(k.function)) return false;
        const auto registration = registration_at.find(k.where);
        const std::string why =
            op.includes.empty()
                ? fmt::format("{} includes no header of its own (#include \"...\") that could declare its kernel {}, "
                              "so the generated bindings cannot call it", op.includes_from, k.function)
                : fmt::format("its kernel {} is declared in no header that {} includes (in the source alone), so the "
                              "generated bindings cannot call it", k.function, op.includes_from);
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
      const auto* names = identifiers(dir, include);
      if (names && std::any_of(op.kernels.begin(), op.kernels.end(),
                               [&](const ImportedKernel& k) { return may_declare(*names, k.function); }))
        declaring.push_back(include);
    }
    if (declaring.empty()) {
      std::map<std::string, const ProjectHeader*> elsewhere;  // by path
      const bool all_elsewhere = std::all_of(op.kernels.begin(), op.kernels.end(), [&](const ImportedKernel& k) {
        if (k.python) return true;
        const ProjectHeader* header = declared_elsewhere(k.function);
        if (header) elsewhere.emplace(header->at.generic_string(), header);
        return header != nullptr;
      });
      if (!all_elsewhere || elsewhere.empty()) {
        record_includes();  // none readable declares them: keep what the source includes
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
      else
        (identifiers(dir, include) ? choice.declaring_none : choice.not_found).insert(include);
    }
    op.includes = std::move(declaring);
    record_includes();
  }
  for (auto& [file, choice] : chosen) {
    std::string left_out;
    // A header that declares some op's kernels is kept for those ops, though it declares none of another's.
    for (const std::string& include : choice.kept) choice.declaring_none.erase(include);
    if (!choice.not_found.empty())
      left_out += fmt::format("; left out: {} (not beside it)", fmt::join(choice.not_found, ", "));
    if (!choice.declaring_none.empty())
      left_out += fmt::format("; left out: {} (declaring none of them)", fmt::join(choice.declaring_none, ", "));
    std::vector<std::string> declaring(choice.kept.begin(), choice.kept.end());
    declaring.insert(declaring.end(), choice.elsewhere.begin(), choice.elsewhere.end());
    found.notes.push_back(fmt::format("{}: its kernels are declared in {}{}", file, fmt::join(declaring, ", "),
                                      left_out));
  }
  // The library's include path: the build's own (-I), in its order, then the directory each kept header was found
  // under (its own subdirectories kept). Appended, not put first: a source the library compiles as it is finds each
  // header where the project's build finds it.
  std::vector<std::string> path;
  auto add_dir = [&](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) dir = ".";
    if (std::find(path.begin(), path.end(), dir) == path.end()) path.push_back(std::move(dir));
  };
  for (const auto& dir : include_dirs) add_dir(dir.generic_string());
  std::set<std::string> beside;
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index)
    for (size_t i = 0; i < include_at[op_index].size(); ++i)
      if (const auto& at = include_at[op_index][i]) {
        const std::string where = at->generic_string();
        beside.insert(where.substr(0, where.size() - std::min(where.size(), found.ops[op_index].includes[i].size())));
      }
  for (const auto& dir : beside) add_dir(dir);
  found.include_dirs = path;

  // The generated header includes them from that path, not from beside the registering file. Where a directory
  // before has a header of the same name (vLLM's csrc/ops.h, ahead of the csrc/libtorch_stable/ops.h its stable
  // bindings include), name the header from a directory of the path that reaches the one import read.
  auto same_file = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
  };
  auto first_on_path = [&](const std::string& include) -> std::optional<fs::path> {
    std::error_code ec;
    for (const auto& dir : path)
      if (fs::is_regular_file(fs::path(dir) / include, ec)) return fs::path(dir) / include;
    return std::nullopt;
  };
  for (size_t op_index = 0; op_index < found.ops.size(); ++op_index) {
    for (size_t i = 0; i < include_at[op_index].size(); ++i) {
      std::string& include = found.ops[op_index].includes[i];
      const auto& read = include_at[op_index][i];
      if (!read) continue;
      const auto reached = first_on_path(include);
      if (reached && same_file(*reached, *read)) continue;
      std::optional<std::string> spelling;
      for (const auto& dir : path) {
        const fs::path relative = read->lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
        if (relative.empty() || *relative.begin() == "..") continue;
        const auto there = first_on_path(relative.generic_string());
        if (there && same_file(*there, *read) &&
            (!spelling || relative.generic_string().size() < spelling->size()))
          spelling = relative.generic_string();
      }
      if (spelling) include = *spelling;
    }
  }
}

}  // namespace opgen::import
