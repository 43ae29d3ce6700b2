#include "support/new_files.h"

#include <map>
#include <system_error>
#include <utility>

namespace fs = std::filesystem;

namespace opgen {
namespace {

// The deepest directory of `path`'s ancestors (or `path` itself) that exists,
// and the rest of `path` beneath it ('/'-separated, "" when none).
std::pair<fs::path, std::string> existing_anchor(const fs::path& path) {
  std::error_code ec;
  fs::path anchor = fs::absolute(path, ec).lexically_normal();
  std::vector<std::string> rest;
  while (!anchor.empty() && anchor.has_relative_path()) {
    if (anchor.filename().empty()) {  // "dir/": the same directory
      anchor = anchor.parent_path();
      continue;
    }
    if (fs::exists(fs::symlink_status(anchor, ec))) break;
    rest.push_back(anchor.filename().string());
    anchor = anchor.parent_path();
  }
  std::string relative;
  for (auto it = rest.rbegin(); it != rest.rend(); ++it) relative += (relative.empty() ? "" : "/") + *it;
  return {anchor, relative};
}

}  // namespace

std::string new_file_path(const NewFile& file) { return (file.root / file.relative).string(); }

IoStatus create_new_files(const std::vector<NewFile>& files) {
  struct Placed {
    ConfinedDir& dir;
    std::string relative;  // beneath dir
  };
  // One open directory per anchor, shared by its files: a descriptor each
  // would end an import of a thousand ops at `ulimit -n` (EMFILE).
  std::map<fs::path, ConfinedDir> anchors;
  std::vector<Placed> placed;
  for (const NewFile& file : files) {
    if (file.root.empty()) return IoError{"", "an empty path names no directory", EINVAL};
    if (auto why = ConfinedDir::invalid_relative(file.relative)) return IoError{new_file_path(file), *why, EINVAL};
    auto [anchor, rest] = existing_anchor(file.root);
    auto it = anchors.find(anchor);
    if (it == anchors.end()) {
      auto opened = ConfinedDir::open(anchor, /*create=*/false);
      if (auto* error = std::get_if<IoError>(&opened)) return IoError{file.root.string(), error->reason, error->os_errno};
      it = anchors.emplace(anchor, std::move(std::get<ConfinedDir>(opened))).first;
    }
    placed.push_back({it->second, rest.empty() ? file.relative : rest + "/" + file.relative});
  }
  // Everything checked before the first write: a file already there means none is written.
  for (size_t i = 0; i < files.size(); ++i) {
    if (placed[i].dir.lstat(placed[i].relative))
      return IoError{new_file_path(files[i]), "already exists", EEXIST};
  }
  std::vector<std::pair<const ConfinedDir*, std::string>> created_files, created_dirs;
  auto roll_back = [&] {
    for (auto it = created_files.rbegin(); it != created_files.rend(); ++it) (void)it->first->remove_file(it->second);
    for (auto it = created_dirs.rbegin(); it != created_dirs.rend(); ++it) (void)it->first->remove_empty_dir(it->second);
  };
  for (size_t i = 0; i < files.size(); ++i) {
    std::vector<std::string> dirs;
    IoStatus status = placed[i].dir.create_file(placed[i].relative, files[i].contents, &dirs);
    for (std::string& dir : dirs) created_dirs.emplace_back(&placed[i].dir, std::move(dir));
    if (!status) {
      roll_back();
      IoError error = status.error();
      error.path = new_file_path(files[i]);
      return error;
    }
    created_files.emplace_back(&placed[i].dir, placed[i].relative);
  }
  return {};
}

}  // namespace opgen
