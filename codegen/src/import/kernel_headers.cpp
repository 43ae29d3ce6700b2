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
  // Whether `name` appears in a header that `includes` (of a file in `dir`)
  // bring in, their own quoted includes followed: each header once, at most kReach.
  constexpr size_t kReach = 256;
  auto declared_beneath = [&](const fs::path& dir, const std::vector<std::string>& includes, const std::string& name) {
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
      if (header->identifiers.count(name)) return true;
      for (const auto& nested : header->includes) pending.emplace_back(path->parent_path(), nested);
    }
    return false;
  };
  std::map<std::pair<std::string, std::string>, bool> declared;  // (registering file, name): declared_beneath
  std::map<std::string, RegistrationBlock::Registration*> registration_at;  // by file:line of the call
  for (auto& block : found.blocks)
    for (auto& registration : block.registrations) registration_at.emplace(registration.where, &registration);
  struct Choice {
    std::set<std::string> kept, not_found, declaring_none;
  };
  std::map<std::string, Choice> chosen;  // by registering file, for one note each
  for (ImportedOp& op : found.ops) {
    if (op.includes_from.empty() || op.kernels.empty()) continue;
    const fs::path dir = fs::path(op.includes_from).parent_path();
    const bool all_found = std::all_of(op.includes.begin(), op.includes.end(),
                                       [&](const std::string& include) { return find(dir, include).has_value(); });
    if (all_found) {
      // Every header the file includes is here (or it includes none of its own) and none declares this
      // kernel: it is declared in the source alone, and the generated bindings (another file) could not name it. An impl stays in
      // the project's build; a def that names its kernel cannot be split, and needs a person.
      std::erase_if(op.kernels, [&](const ImportedKernel& k) {
        if (k.python) return false;
        auto [known, fresh] = declared.try_emplace({op.includes_from, declared_name(k.function)});
        if (fresh) known->second = declared_beneath(dir, op.includes, declared_name(k.function));
        if (known->second) return false;
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
    std::vector<std::string> declaring;
    for (const std::string& include : op.includes) {
      const auto* names = identifiers(dir, include);
      if (names && std::any_of(op.kernels.begin(), op.kernels.end(),
                               [&](const ImportedKernel& k) { return names->count(declared_name(k.function)) > 0; }))
        declaring.push_back(include);
    }
    if (declaring.empty()) continue;  // none readable declares them: keep what the source includes
    Choice& choice = chosen[op.includes_from];
    for (const std::string& include : op.includes) {
      if (std::find(declaring.begin(), declaring.end(), include) != declaring.end())
        choice.kept.insert(include);
      else
        (identifiers(dir, include) ? choice.declaring_none : choice.not_found).insert(include);
    }
    op.includes = std::move(declaring);
  }
  std::set<std::string> dirs;
  for (auto& [file, choice] : chosen) {
    for (const std::string& include : choice.kept) {
      // The directory the build adds: the one the include is found under (its own subdirectories kept).
      const auto& path = find(fs::path(file).parent_path(), include);
      std::string dir = path ? path->generic_string() : (fs::path(file).parent_path() / include).generic_string();
      dir = dir.substr(0, dir.size() - std::min(dir.size(), include.size()));
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      dirs.insert(dir.empty() ? "." : dir);
    }
    std::string left_out;
    // A header that declares some op's kernels is kept for those ops, though it declares none of another's.
    for (const std::string& include : choice.kept) choice.declaring_none.erase(include);
    if (!choice.not_found.empty())
      left_out += fmt::format("; left out: {} (not beside it)", fmt::join(choice.not_found, ", "));
    if (!choice.declaring_none.empty())
      left_out += fmt::format("; left out: {} (declaring none of them)", fmt::join(choice.declaring_none, ", "));
    found.notes.push_back(fmt::format("{}: its kernels are declared in {}{}", file, fmt::join(choice.kept, ", "),
                                      left_out));
  }
  // The include path the build was said to have (-I) is the library's too: the files it keeps compiling need it.
  for (const auto& dir : include_dirs) dirs.insert(dir.generic_string().empty() ? "." : dir.generic_string());
  found.include_dirs.assign(dirs.begin(), dirs.end());
}

}  // namespace opgen::import
