#include "support/confined_dir.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opgen {
namespace {

std::string os_reason(int error) { return std::strerror(error); }

// Closes a descriptor it owns when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

bool write_all(int fd, std::string_view bytes, int& error) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// What stands at `name` in `dir_fd`, in words, for a refusal.
std::string what_stands(int dir_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return os_reason(errno);
  if (S_ISLNK(st.st_mode)) return "is a symbolic link; opgen writes, reads and removes nothing through a link";
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  return "is a file";
}

}  // namespace

std::variant<ConfinedDir, IoError> ConfinedDir::open(const fs::path& root, bool create, std::string_view noun) {
  if (root.empty()) return IoError{"", "an empty path names no directory"};
  if (create) {
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) return IoError{root.string(), fmt::format("cannot create {}: {}", noun, ec.message()), ec.value()};
  }
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return IoError{root.string(), fmt::format("cannot open {}: {}", noun, os_reason(errno)), errno};
  return ConfinedDir(root, fd);
}

ConfinedDir::ConfinedDir(ConfinedDir&& other) noexcept : root_(std::move(other.root_)), fd_(std::exchange(other.fd_, -1)) {}

ConfinedDir& ConfinedDir::operator=(ConfinedDir&& other) noexcept {
  std::swap(root_, other.root_);
  std::swap(fd_, other.fd_);
  return *this;
}

ConfinedDir::~ConfinedDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string ConfinedDir::display(std::string_view relative) const {
  std::string path = root_.native();
  if (relative.empty()) return path;
  if (!path.empty() && path.back() != '/') path += '/';
  path += relative;
  return path;
}

std::optional<std::string> ConfinedDir::invalid_relative(std::string_view relative) {
  if (relative.empty()) return "is an empty path";
  if (relative.front() == '/') return "is an absolute path, not one beneath the directory";
  for (size_t start = 0;;) {
    const size_t slash = relative.find('/', start);
    const std::string_view component = relative.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (component.empty() || component == "." || component == "..")
      return "is not a plain path beneath the directory (an empty, '.' or '..' component)";
    if (component.find('\0') != std::string_view::npos) return "holds a NUL byte";
    if (slash == std::string_view::npos) return std::nullopt;
    start = slash + 1;
  }
}

std::variant<ConfinedDir::Parent, IoError> ConfinedDir::parent_of(std::string_view relative, bool create,
                                                                  std::vector<std::string>* created_dirs) const {
  if (auto why = invalid_relative(relative)) return IoError{display(relative), *why};
  Fd current(::fcntl(fd_, F_DUPFD_CLOEXEC, 0));
  if (current.get() < 0) return IoError{display(""), os_reason(errno)};
  size_t start = 0;
  for (size_t slash; (slash = relative.find('/', start)) != std::string_view::npos; start = slash + 1) {
    const std::string name(relative.substr(start, slash - start));
    const std::string_view so_far = relative.substr(0, slash);
    int next = ::openat(current.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(current.get(), name.c_str(), 0777) == 0) {
        if (created_dirs) created_dirs->emplace_back(so_far);
      } else if (errno != EEXIST) {  // EEXIST: another process made it meanwhile
        return IoError{display(so_far), fmt::format("cannot create the directory: {}", os_reason(errno))};
      }
      next = ::openat(current.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (next < 0) {
      const int error = errno;
      if (error == ENOENT) return IoError{display(so_far), "no such directory"};
      return IoError{display(so_far), error == ELOOP || error == ENOTDIR ? what_stands(current.get(), name)
                                                                            : os_reason(error)};
    }
    current.reset(next);
  }
  return Parent{current.release(), std::string(relative.substr(start))};
}

std::optional<struct stat> ConfinedDir::lstat(std::string_view relative) const {
  auto parent = parent_of(relative, false);
  if (!std::holds_alternative<Parent>(parent)) return std::nullopt;
  Fd dir(std::get<Parent>(parent).fd);
  struct stat st {};
  if (::fstatat(dir.get(), std::get<Parent>(parent).leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return st;
}

std::variant<std::string, IoError> ConfinedDir::read(std::string_view relative, size_t limit) const {
  auto parent = parent_of(relative, false);
  if (auto* error = std::get_if<IoError>(&parent)) return std::move(*error);
  Fd dir(std::get<Parent>(parent).fd);
  const std::string& leaf = std::get<Parent>(parent).leaf;
  // O_NONBLOCK: a FIFO planted here must not block the open.
  Fd file(::openat(dir.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    const int error = errno;
    return IoError{display(relative), error == ELOOP ? what_stands(dir.get(), leaf) : os_reason(error)};
  }
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return IoError{display(relative), os_reason(errno)};
  if (!S_ISREG(st.st_mode)) return IoError{display(relative), what_stands(dir.get(), leaf)};
  if (static_cast<unsigned long long>(st.st_size) > limit)
    return IoError{display(relative), fmt::format("is {} bytes, past the limit of {}", st.st_size, limit)};
  auto bytes = read_open_file(file.get(), static_cast<size_t>(st.st_size), limit);
  if (!bytes) return IoError{display(relative), os_reason(errno)};
  return std::move(*bytes);
}

IoStatus ConfinedDir::create_file(std::string_view relative, std::string_view bytes,
                                  std::vector<std::string>* created_dirs) const {
  auto parent = parent_of(relative, true, created_dirs);
  if (auto* error = std::get_if<IoError>(&parent)) return std::move(*error);
  Fd dir(std::get<Parent>(parent).fd);
  const std::string& leaf = std::get<Parent>(parent).leaf;
  Fd file(::openat(dir.get(), leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (file.get() < 0) {
    const int error = errno;
    if (error == EEXIST) return IoError{display(relative), "already exists", EEXIST};
    return IoError{display(relative), fmt::format("cannot create the file: {}", os_reason(error)), error};
  }
  int error = 0;
  const bool written = write_all(file.get(), bytes, error);
  if (::close(file.release()) != 0 && written) error = errno;
  if (!written || error) {
    ::unlinkat(dir.get(), leaf.c_str(), 0);  // no half-written file stays behind
    return IoError{display(relative), fmt::format("cannot write the file: {}", os_reason(error)), error};
  }
  return {};
}

IoStatus ConfinedDir::rename(std::string_view from, std::string_view to, bool replace) const {
  auto source = parent_of(from, false);
  if (auto* error = std::get_if<IoError>(&source)) return std::move(*error);
  Fd source_dir(std::get<Parent>(source).fd);
  auto target = parent_of(to, false);
  if (auto* error = std::get_if<IoError>(&target)) return std::move(*error);
  Fd target_dir(std::get<Parent>(target).fd);
  const char* from_leaf = std::get<Parent>(source).leaf.c_str();
  const char* to_leaf = std::get<Parent>(target).leaf.c_str();
  if (replace) {
    if (::renameat(source_dir.get(), from_leaf, target_dir.get(), to_leaf) != 0)
      return IoError{display(to), fmt::format("cannot replace the file: {}", os_reason(errno))};
    return {};
  }
  if (::renameat2(source_dir.get(), from_leaf, target_dir.get(), to_leaf, RENAME_NOREPLACE) == 0) return {};
  if (errno != EINVAL && errno != ENOSYS)
    return IoError{display(to), errno == EEXIST ? "already exists" : fmt::format("cannot create the file: {}", os_reason(errno))};
  // A file system without RENAME_NOREPLACE: a hard link fails just as surely on an existing name.
  if (::linkat(source_dir.get(), from_leaf, target_dir.get(), to_leaf, 0) != 0)
    return IoError{display(to), errno == EEXIST ? "already exists" : fmt::format("cannot create the file: {}", os_reason(errno))};
  ::unlinkat(source_dir.get(), from_leaf, 0);
  return {};
}

IoStatus ConfinedDir::remove_file(std::string_view relative) const {
  auto parent = parent_of(relative, false);
  if (auto* error = std::get_if<IoError>(&parent)) return std::move(*error);
  Fd dir(std::get<Parent>(parent).fd);
  if (::unlinkat(dir.get(), std::get<Parent>(parent).leaf.c_str(), 0) != 0)
    return IoError{display(relative), fmt::format("cannot remove the file: {}", os_reason(errno))};
  return {};
}

IoStatus ConfinedDir::remove_empty_dir(std::string_view relative) const {
  auto parent = parent_of(relative, false);
  if (auto* error = std::get_if<IoError>(&parent)) return std::move(*error);
  Fd dir(std::get<Parent>(parent).fd);
  if (::unlinkat(dir.get(), std::get<Parent>(parent).leaf.c_str(), AT_REMOVEDIR) != 0)
    return IoError{display(relative), fmt::format("cannot remove the directory: {}", os_reason(errno))};
  return {};
}

std::optional<std::vector<std::string>> ConfinedDir::list(std::string_view relative) const {
  Fd dir;
  if (relative.empty()) {
    dir.reset(::fcntl(fd_, F_DUPFD_CLOEXEC, 0));
  } else {
    auto parent = parent_of(relative, false);
    if (!std::holds_alternative<Parent>(parent)) return std::nullopt;
    Fd holder(std::get<Parent>(parent).fd);
    dir.reset(::openat(holder.get(), std::get<Parent>(parent).leaf.c_str(),
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  if (dir.get() < 0) return std::nullopt;
  DIR* stream = ::fdopendir(dir.get());
  if (!stream) return std::nullopt;
  dir.release();  // closedir closes it
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(stream)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(stream);
  return names;
}

}  // namespace opgen
