#include "support/output.h"

#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL  // header-only: the tool gains no shared-library dependency
#include <xxhash.h>

#include "support/file_io.h"
#include "support/stamp.h"

namespace fs = std::filesystem;

namespace opgen {
namespace {

std::string join(const fs::path& dir, std::string_view relative) {
  std::string path = dir.native();
  if (!path.empty() && path.back() != '/') path += '/';
  path += relative;
  return path;
}

// Why `relative` cannot be written under `dir` as a regular file, or nullopt
// when it can: every component must be a plain name, every directory on the
// way a real directory (not a link to one), and the file itself a regular
// file or absent. `where` is set to the path at fault.
std::optional<std::string> blocked(const fs::path& dir, const std::string& relative, std::string& where) {
  where = join(dir, relative);
  for (size_t start = 0;;) {
    const size_t slash = relative.find('/', start);
    const std::string_view component = std::string_view(relative).substr(start, slash - start);
    if (component.empty() || component == "." || component == "..")
      return "is not a plain path under the output directory";
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string path = dir.native();
  size_t start = 0;
  for (;;) {
    const size_t slash = relative.find('/', start);
    const bool last = slash == std::string::npos;
    const std::string_view component = std::string_view(relative).substr(start, last ? std::string::npos : slash - start);
    path += '/';
    path += component;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return std::nullopt;  // created when written
      where = path;
      return std::strerror(errno);
    }
    if (S_ISLNK(st.st_mode)) {
      where = path;
      return "is a symbolic link; opgen writes nothing through a link inside its output directory";
    }
    if (!last && !S_ISDIR(st.st_mode)) {
      where = path;
      return "is not a directory, and one must stand here for the output";
    }
    if (last) {
      if (S_ISREG(st.st_mode)) return std::nullopt;
      return S_ISDIR(st.st_mode) ? "is a directory where an output file goes" : "is not a regular file";
    }
    start = slash + 1;
  }
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Whether `relative` (possibly empty: `dir` itself) names a directory under
// `dir` with no symbolic link on the way.
bool is_real_directory(const fs::path& dir, const std::string& relative) {
  std::string path = dir.native();
  for (size_t start = 0; start < relative.size();) {
    size_t slash = relative.find('/', start);
    if (slash == std::string::npos) slash = relative.size();
    path += '/';
    path.append(relative, start, slash - start);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    start = slash + 1;
  }
  return true;
}

bool is_temp_of(std::string_view name, const std::set<std::string, std::less<>>& outputs) {
  const size_t at = name.rfind(kTempSuffix);
  if (at == std::string_view::npos || at + kTempSuffix.size() == name.size()) return false;
  for (char c : name.substr(at + kTempSuffix.size()))
    if (c < '0' || c > '9') return false;
  return outputs.count(name.substr(0, at)) > 0;
}

// Removes the temporaries a killed run left beside the outputs (and the
// stamp): only files named `<output>.opgen-tmp-<digits>`, which nothing but
// opgen makes. Safe only under the OutputLock, when no other run is writing.
void remove_leftover_temporaries(const fs::path& dir, const std::vector<std::string>& outputs) {
  std::map<std::string, std::set<std::string, std::less<>>> by_directory;
  by_directory[""].insert(kStampFile);
  for (const std::string& relative : outputs) {
    const size_t slash = relative.rfind('/');
    by_directory[slash == std::string::npos ? "" : relative.substr(0, slash)].insert(
        slash == std::string::npos ? relative : relative.substr(slash + 1));
  }
  for (const auto& [sub, names] : by_directory) {
    if (!is_real_directory(dir, sub)) continue;
    std::error_code ec;
    const fs::path directory = sub.empty() ? dir : fs::path(join(dir, sub));
    std::vector<fs::path> leftovers;
    for (auto it = fs::directory_iterator(directory, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (is_temp_of(it->path().filename().native(), names) && it->is_regular_file(ec) && !it->is_symlink(ec))
        leftovers.push_back(it->path());
    }
    for (const fs::path& path : leftovers) fs::remove(path, ec);
  }
}

}  // namespace

std::string content_digest(std::string_view bytes) {
  return fmt::format("{:016x}", XXH3_64bits(bytes.data(), bytes.size()));
}

void OutputTree::add(const std::string& relative, std::string contents) { files_[relative] = std::move(contents); }

Manifest OutputTree::manifest() const {
  Manifest manifest;
  for (const auto& [relative, contents] : files_) manifest.emplace(relative, content_digest(contents));
  return manifest;
}

bool OutputTree::commit(const fs::path& dir, Diagnostics& diags, WriteStats* stats, const Manifest& previous) const {
  WriteStats local;

  // Everything that can be checked is checked before the first write, so a
  // run that cannot finish leaves the old tree.
  bool ok = true;
  for (const auto& [relative, contents] : files_) {
    std::string where;
    if (auto why = blocked(dir, relative, where)) {
      diags.error(Code::CannotWriteOutput, {where, 0, 0}, *why);
      ok = false;
    }
  }
  if (!ok) return false;

  std::vector<std::string> known;
  for (const auto& [relative, contents] : files_) known.push_back(relative);
  for (const auto& [relative, digest] : previous) known.push_back(relative);
  remove_leftover_temporaries(dir, known);

  struct Staged {
    std::string temp, dest;
  };
  std::vector<Staged> staged;
  auto fail = [&](const std::string& path, const std::string& what) {
    diags.error(Code::CannotWriteOutput, {path, 0, 0}, what);
    for (const Staged& s : staged) ::unlink(s.temp.c_str());
    return false;
  };
  for (const auto& [relative, contents] : files_) {
    const std::string dest = join(dir, relative);
    if (auto existing = read_file(dest); existing && *existing == contents) {
      ++local.unchanged;
      continue;
    }
    std::error_code ec;
    const fs::path parent = fs::path(dest).parent_path();
    fs::create_directories(parent, ec);
    if (ec) return fail(parent.string(), fmt::format("cannot create the output directory: {}", ec.message()));
    const std::string temp = fmt::format("{}{}{}", dest, kTempSuffix, ::getpid());
    ::unlink(temp.c_str());  // a dead run's, with our pid
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return fail(dest, fmt::format("cannot write the output file: {}", std::strerror(errno)));
    staged.push_back({temp, dest});
    const bool written = write_all(fd, contents);
    if (::close(fd) != 0 || !written) return fail(dest, "writing the output file failed");
  }
  // Everything is staged: now the renames, which do not fail halfway for
  // files in the same directory short of a vanished directory.
  for (size_t i = 0; i < staged.size(); ++i) {
    if (::rename(staged[i].temp.c_str(), staged[i].dest.c_str()) != 0) {
      staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i));
      return fail(staged.front().dest, fmt::format("cannot replace the output file: {}", std::strerror(errno)));
    }
    ++local.written;
  }

  // Stale outputs: what the last run wrote and this one does not, removed
  // only while it still holds the bytes opgen wrote (an edited file stays).
  for (const auto& [relative, digest] : previous) {
    if (files_.count(relative)) continue;
    std::string where;
    struct stat st {};
    const std::string path = join(dir, relative);
    if (blocked(dir, relative, where) || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (auto bytes = read_file(path); bytes && content_digest(*bytes) == digest && ::unlink(path.c_str()) == 0)
      ++local.removed;
  }
  if (stats) *stats = local;
  return true;
}

std::optional<OutputLock> OutputLock::acquire(const fs::path& dir, Diagnostics& diags) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    diags.error(Code::CannotWriteOutput, {dir.string(), 0, 0},
                fmt::format("cannot create the output directory: {}", ec.message()));
    return std::nullopt;
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    diags.error(Code::CannotWriteOutput, {dir.string(), 0, 0},
                fmt::format("cannot open the output directory: {}", std::strerror(errno)));
    return std::nullopt;
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    diags.error(Code::CannotWriteOutput, {dir.string(), 0, 0},
                fmt::format("cannot lock the output directory: {}", std::strerror(errno)));
    ::close(fd);
    return std::nullopt;
  }
  return OutputLock(fd);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace opgen
