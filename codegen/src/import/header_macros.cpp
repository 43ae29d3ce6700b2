#include "import/header_macros.h"

#include <system_error>

#include <fmt/format.h>

#include "import/kernel_headers.h"
#include "import/source_scan.h"
#include "support/file_io.h"

namespace opgen::import {

namespace {

bool cpp_file(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  return extension != ".py";
}

}  // namespace

HeaderMacros macros_headers_define(const std::vector<SourceFile>& sources,
                                   const std::vector<std::filesystem::path>& include_dirs,
                                   const HeaderWalkLimits& limits) {
  namespace fs = std::filesystem;
  HeaderMacros found;
  std::set<std::string> seen;
  size_t bytes = 0;
  std::vector<std::pair<fs::path, std::string>> pending;  // (directory of the includer, include with delimiters)
  auto follow = [&](const fs::path& dir, const std::vector<std::string>& includes) {
    for (const std::string& include : includes) pending.emplace_back(dir, include);
  };
  for (const SourceFile& source : sources)
    if (cpp_file(source.display)) follow(fs::path(source.display).parent_path(), scan_cpp(source.text).includes);
  while (!pending.empty()) {
    auto [dir, include] = std::move(pending.back());
    pending.pop_back();
    if (include.size() < 3) continue;
    const std::string name = include.substr(1, include.size() - 2);
    std::optional<fs::path> path;
    std::error_code ec;
    if (include.front() == '"') {
      path = find_include(dir, name, include_dirs);
    } else {
      for (const fs::path& include_dir : include_dirs)
        if (fs::is_regular_file(include_dir / name, ec)) {
          path = include_dir / name;
          break;
        }
    }
    if (!path || seen.count(path->lexically_normal().generic_string())) continue;
    if (seen.size() >= limits.headers || bytes >= limits.bytes) {
      found.note = fmt::format("the headers the sources include were read for the macros they define up to {} "
                               "headers, {} MiB: a condition on a macro of one not read counts it undefined",
                               limits.headers, limits.bytes >> 20);
      break;
    }
    seen.insert(path->lexically_normal().generic_string());
    const auto text = read_file(*path);  // at most 64 MiB: the budget is checked before each header
    if (!text) continue;
    bytes += text->size();
    const ScannedSource scanned = scan_cpp(*text);  // every branch: what the header may define
    found.names.insert(scanned.defined_macros.begin(), scanned.defined_macros.end());
    follow(path->parent_path(), scanned.includes);
  }
  return found;
}

}  // namespace opgen::import
