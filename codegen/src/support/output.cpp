#include "support/output.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "support/file_io.h"
#include "support/stamp.h"

namespace fs = std::filesystem;

namespace opgen {
namespace {

bool has_generated_marker(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find(kGeneratedMarker) != std::string::npos;
}

}  // namespace

void OutputTree::add(const std::string& relative, std::string contents) { files_[relative] = std::move(contents); }

bool OutputTree::commit(const fs::path& dir, Diagnostics& diags, WriteStats* stats) const {
  WriteStats local;
  struct Staged {
    fs::path temp, dest;
  };
  std::vector<Staged> staged;
  auto fail = [&](const fs::path& path, const std::string& what) {
    diags.error(Code::CannotWriteOutput, {path.string(), 0, 0}, what);
    for (const Staged& s : staged) {
      std::error_code ignored;
      fs::remove(s.temp, ignored);
    }
    return false;
  };

  for (const auto& [relative, contents] : files_) {
    fs::path dest = dir / relative;
    if (auto existing = read_file(dest); existing && *existing == contents) {
      ++local.unchanged;
      continue;
    }
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec) return fail(dest.parent_path(), fmt::format("cannot create the output directory: {}", ec.message()));
    fs::path temp = dest;
    temp += fmt::format(".opgen-tmp-{}", ::getpid());
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) return fail(dest, "cannot write the output file (is the directory writable?)");
      staged.push_back({temp, dest});
      out << contents;
      out.close();
      if (!out) return fail(dest, "writing the output file failed");
    }
  }
  // Everything is staged: now the renames, which do not fail halfway for
  // files in the same directory short of a vanished directory.
  for (const Staged& s : staged) {
    std::error_code ec;
    fs::rename(s.temp, s.dest, ec);
    if (ec) return fail(s.dest, fmt::format("cannot replace the output file: {}", ec.message()));
    ++local.written;
  }
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    std::vector<fs::path> stale;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      // The iterator's paths extend `dir`: lexical, not fs::relative, which
      // would canonicalize both paths (a system call per component) per file.
      std::string relative = it->path().lexically_relative(dir).generic_string();
      if (relative == kStampFile) continue;  // written by the caller, after this
      if (!files_.count(relative) && has_generated_marker(it->path())) stale.push_back(it->path());
    }
    for (const fs::path& path : stale) {
      if (fs::remove(path, ec)) ++local.removed;
    }
  }
  if (stats) *stats = local;
  return true;
}

}  // namespace opgen
