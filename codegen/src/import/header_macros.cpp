#include "import/header_macros.h"

#include <system_error>

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

std::set<std::string> macros_headers_define(const std::vector<SourceFile>& sources,
                                            const std::vector<std::filesystem::path>& include_dirs) {
  namespace fs = std::filesystem;
  std::set<std::string> macros;
  std::set<std::string> seen;
  std::vector<std::pair<fs::path, std::string>> pending;  // (directory of the includer, include with delimiters)
  auto follow = [&](const fs::path& dir, const std::vector<std::string>& includes) {
    for (const std::string& include : includes) pending.emplace_back(dir, include);
  };
  for (const SourceFile& source : sources)
    if (cpp_file(source.display)) follow(fs::path(source.display).parent_path(), scan_cpp(source.text).includes);
  while (!pending.empty() && seen.size() < kMaxHeaders) {
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
    if (!path || !seen.insert(path->lexically_normal().generic_string()).second) continue;
    const auto text = read_file(*path);
    if (!text) continue;
    const ScannedSource scanned = scan_cpp(*text);  // every branch: what the header may define
    macros.insert(scanned.defined_macros.begin(), scanned.defined_macros.end());
    follow(path->parent_path(), scanned.includes);
  }
  return macros;
}

}  // namespace opgen::import
