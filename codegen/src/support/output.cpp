#include "support/output.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#define XXH_INLINE_ALL  // header-only: the tool gains no shared-library dependency
#include <xxhash.h>

#include "support/confined_dir.h"
#include "support/file_io.h"
#include "support/stamp.h"

namespace fs = std::filesystem;

namespace opgen {
namespace {

// Why `relative` cannot be written under `dir` as a regular file, or nullopt
// when it can: a plain path (ConfinedDir::invalid_relative), every directory
// on the way a real directory (not a link to one), and the file itself a
// regular file or absent. `where` is set to the path at fault.
std::optional<std::string> blocked(const ConfinedDir& dir, const std::string& relative, std::string& where) {
  where = dir.display(relative);
  if (auto why = ConfinedDir::invalid_relative(relative)) return "is not a plain path under the output directory";
  for (size_t slash = 0;; ++slash) {
    slash = relative.find('/', slash);
    const bool last = slash == std::string::npos;
    const std::string prefix = relative.substr(0, slash);
    const auto st = dir.lstat(prefix);
    if (!st) return std::nullopt;  // created when written
    where = dir.display(prefix);
    if (S_ISLNK(st->st_mode)) return "is a symbolic link; opgen writes nothing through a link inside its output directory";
    if (!last && !S_ISDIR(st->st_mode)) return "is not a directory, and one must stand here for the output";
    if (last) {
      if (S_ISREG(st->st_mode)) return std::nullopt;
      return S_ISDIR(st->st_mode) ? "is a directory where an output file goes" : "is not a regular file";
    }
  }
}

bool is_temp_of(std::string_view name, const std::set<std::string, std::less<>>& outputs) {
  const size_t at = name.rfind(kTempSuffix);
  if (at == std::string_view::npos || at + kTempSuffix.size() == name.size()) return false;
  for (char c : name.substr(at + kTempSuffix.size()))
    if (c < '0' || c > '9') return false;
  return outputs.count(name.substr(0, at)) > 0;
}

// Removes the temporaries a killed run left beside the outputs (and the
// stamp): only regular files named `<output>.opgen-tmp-<digits>`, which
// nothing but opgen makes, in directories beneath `dir`. Safe only under the
// OutputLock, when no other run is writing.
void remove_leftover_temporaries(const ConfinedDir& dir, const std::vector<std::string>& outputs) {
  std::map<std::string, std::set<std::string, std::less<>>> by_directory;
  by_directory[""].insert(kStampFile);
  for (const std::string& relative : outputs) {
    if (ConfinedDir::invalid_relative(relative)) continue;  // a crafted manifest names nothing outside
    const size_t slash = relative.rfind('/');
    by_directory[slash == std::string::npos ? "" : relative.substr(0, slash)].insert(
        slash == std::string::npos ? relative : relative.substr(slash + 1));
  }
  for (const auto& [sub, names] : by_directory) {
    auto entries = dir.list(sub);  // nullopt for anything but a real directory beneath dir
    if (!entries) continue;
    for (const std::string& name : *entries) {
      if (!is_temp_of(name, names)) continue;
      const std::string relative = sub.empty() ? name : sub + "/" + name;
      if (auto st = dir.lstat(relative); st && S_ISREG(st->st_mode)) (void)dir.remove_file(relative);
    }
  }
}

// The /proc/locks entry of whoever holds a flock on the file open at `fd`:
// "pid <n> (<command line>)", or "" when it cannot be told.
std::string lock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "";
  const std::string inode = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
  auto locks = read_file("/proc/locks", 1 << 20);
  if (!locks) return "";
  std::istringstream lines(*locks);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, id;
    if (!(fields >> number >> kind >> mode >> access >> pid >> id) || kind != "FLOCK" || id != inode) continue;
    std::string command;
    if (auto cmdline = read_file("/proc/" + pid + "/cmdline", 4096)) {
      command = *cmdline;
      std::replace(command.begin(), command.end(), '\0', ' ');
      while (!command.empty() && command.back() == ' ') command.pop_back();
    }
    return command.empty() ? "pid " + pid : fmt::format("pid {} ({})", pid, command);
  }
  return "";
}

}  // namespace

std::string temp_name(std::string_view relative) { return fmt::format("{}{}{}", relative, kTempSuffix, ::getpid()); }

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
  auto opened = ConfinedDir::open(dir, /*create=*/true, "the output directory");
  if (auto* error = std::get_if<IoError>(&opened)) {
    diags.error(Code::CannotWriteOutput, {error->path, 0, 0}, error->reason);
    return false;
  }
  return commit(std::get<ConfinedDir>(opened), diags, stats, previous);
}

namespace {

// Whether opgen can show it wrote `text` at `relative`: the last run's
// manifest has its digest, or it starts with opgen's header (every output
// does: emit/common generated_header), or it is empty (nothing to lose).
bool written_by_opgen(const std::string& relative, const std::string& text, const Manifest& previous) {
  if (text.empty()) return true;
  if (auto it = previous.find(relative); it != previous.end() && it->second == content_digest(text)) return true;
  const std::string_view first_line = std::string_view(text).substr(0, text.find('\n'));
  return first_line.find(" @generated by opgen ") != std::string_view::npos;
}

}  // namespace

bool OutputTree::commit(const ConfinedDir& dir, Diagnostics& diags, WriteStats* stats, const Manifest& previous) const {
  WriteStats local;

  // Everything that can be checked is checked before the first write, so a
  // run that cannot finish leaves the old tree.
  bool ok = true;
  std::set<std::string> unchanged;  // read once, here: the writes below skip these
  for (const auto& [relative, contents] : files_) {
    std::string where;
    if (auto why = blocked(dir, relative, where)) {
      diags.error(Code::CannotWriteOutput, {where, 0, 0}, *why);
      ok = false;
      continue;
    }
    // Never over a file opgen cannot show it wrote (README: a file you put there stays).
    auto existing = dir.read(relative);
    const auto* text = std::get_if<std::string>(&existing);
    if (text && *text == contents) {
      unchanged.insert(relative);
    } else if (text && !written_by_opgen(relative, *text, previous)) {
      diags.error(Code::OutputNotOpgens, {dir.display(relative), 0, 0},
                  "this file is not one opgen wrote (no @generated header, not in the stamp's manifest): generate "
                  "would replace it")
          .notes.push_back({"move it, or choose another output directory"});
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
  auto fail = [&](const IoError& error) {
    diags.error(Code::CannotWriteOutput, {error.path, 0, 0}, error.reason);
    for (const Staged& s : staged) (void)dir.remove_file(s.temp);
    return false;
  };
  for (const auto& [relative, contents] : files_) {
    if (unchanged.count(relative)) {
      ++local.unchanged;
      continue;
    }
    const std::string temp = temp_name(relative);
    (void)dir.remove_file(temp);  // a dead run's, with our pid
    if (IoStatus created = dir.create_file(temp, contents); !created) return fail(created.error());
    staged.push_back({temp, relative});
  }
  // Everything is staged: now the renames, which do not fail halfway for
  // files in the same directory short of a vanished directory.
  for (size_t i = 0; i < staged.size(); ++i) {
    if (IoStatus renamed = dir.rename(staged[i].temp, staged[i].dest); !renamed) {
      staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i));
      return fail(renamed.error());
    }
    ++local.written;
  }

  // Stale outputs: what the last run wrote and this one does not, removed
  // only while it still holds the bytes opgen wrote (an edited file stays).
  for (const auto& [relative, digest] : previous) {
    if (files_.count(relative)) continue;
    std::string where;
    if (blocked(dir, relative, where)) continue;  // not a plain path beneath dir, or a link on the way
    auto bytes = dir.read(relative);
    if (auto* text = std::get_if<std::string>(&bytes); text && content_digest(*text) == digest &&
                                                        dir.remove_file(relative).ok())
      ++local.removed;
  }
  if (stats) *stats = local;
  return true;
}

std::optional<OutputLock> OutputLock::acquire(const fs::path& path, Diagnostics& diags, std::ostream& progress) {
  auto opened = ConfinedDir::open(path, /*create=*/true, "the output directory");
  if (auto* error = std::get_if<IoError>(&opened)) {
    diags.error(Code::CannotWriteOutput, {error->path, 0, 0}, error->reason);
    return std::nullopt;
  }
  ConfinedDir dir = std::move(std::get<ConfinedDir>(opened));
  const double timeout_s = lock_timeout_seconds();
  const auto start = std::chrono::steady_clock::now();
  bool said = false;
  for (auto delay = std::chrono::milliseconds(1);; delay = std::min(delay * 2, std::chrono::milliseconds(100))) {
    if (::flock(dir.fd(), LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      diags.error(Code::CannotWriteOutput, {dir.display(""), 0, 0},
                  fmt::format("cannot lock the output directory: {}", std::strerror(errno)));
      return std::nullopt;
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Said before any timeout, however late this wakes: a wait never ends unannounced.
    if (!said && (waited >= 2.0 || waited >= timeout_s)) {
      const std::string holder = lock_holder(dir.fd());
      progress << fmt::format("opgen: waiting for the lock on {}, held by {} (at most {:.0f} s)\n", dir.display(""),
                              holder.empty() ? "another process" : holder, timeout_s);
      said = true;
    }
    if (waited >= timeout_s) {
      const std::string holder = lock_holder(dir.fd());
      auto& d = diags.error(Code::OutputLocked, {dir.display(""), 0, 0},
                            fmt::format("another process has held the output directory's lock for {:.0f} s{}",
                                        timeout_s, holder.empty() ? "" : ": " + holder));
      d.notes.push_back({"wait for it to finish, or stop it; OPGEN_LOCK_TIMEOUT sets how many seconds to wait"});
      return std::nullopt;
    }
    std::this_thread::sleep_for(delay);
  }
  return OutputLock(std::move(dir));
}

double OutputLock::lock_timeout_seconds() {
  const char* text = std::getenv("OPGEN_LOCK_TIMEOUT");
  if (!text || !*text) return kDefaultLockTimeoutSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return end && *end == '\0' && seconds >= 0 && seconds <= 86400 ? seconds : kDefaultLockTimeoutSeconds;
}

}  // namespace opgen
