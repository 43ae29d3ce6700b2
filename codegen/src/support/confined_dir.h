// Every file opgen writes, replaces, reads back or deletes is reached through
// a ConfinedDir: a directory opened once, and paths beneath it resolved one
// component at a time with openat(O_NOFOLLOW | O_DIRECTORY). So no path,
// whatever its source (an option, the stamp's manifest, a name derived from
// a spec), can lead outside the directory: a symbolic link, "..", an absolute
// or an empty path is refused before the first byte, and every file is
// created with O_CREAT | O_EXCL | O_NOFOLLOW, temporaries included.
//
// The root itself is the user's choice and may be reached through a link;
// what lies beneath it is not trusted.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/file_io.h"

namespace opgen {

// Why an operation failed: the path as a user would name it, and the reason
// (the OS's own words where it gave one: "No space left on device").
struct IoError {
  std::string path;
  std::string reason;
  int os_errno = 0;  // the errno behind it, when there was one (EEXIST: something stands there)
};

// A result that is either done or an IoError.
class [[nodiscard]] IoStatus {
 public:
  IoStatus() = default;
  IoStatus(IoError error) : error_(std::move(error)) {}  // NOLINT: a failure converts implicitly
  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const IoError& error() const { return *error_; }

 private:
  std::optional<IoError> error_;
};

class ConfinedDir {
 public:
  // Opens `root`, creating it (and its parents) when `create` is set. An
  // empty root is an error, never the current or the root directory.
  // `noun` names the directory in errors ("the output directory").
  static std::variant<ConfinedDir, IoError> open(const std::filesystem::path& root, bool create,
                                                 std::string_view noun = "the directory");

  ConfinedDir(ConfinedDir&& other) noexcept;
  ConfinedDir& operator=(ConfinedDir&& other) noexcept;
  ConfinedDir(const ConfinedDir&) = delete;
  ConfinedDir& operator=(const ConfinedDir&) = delete;
  ~ConfinedDir();

  const std::filesystem::path& root() const { return root_; }
  int fd() const { return fd_; }
  // root/relative, as messages name it.
  std::string display(std::string_view relative) const;

  // Why `relative` is not a plain path beneath a directory ('/'-separated
  // names, none empty, "." or ".."), or nullopt when it is.
  static std::optional<std::string> invalid_relative(std::string_view relative);

  // lstat of `relative`, its directories reached without following links;
  // nullopt when it (or a directory on the way) does not exist or is a link.
  std::optional<struct stat> lstat(std::string_view relative) const;

  // The bytes of the regular file at `relative` (at most `limit`); an error
  // for a link, a FIFO, a device, a directory or a larger file.
  std::variant<std::string, IoError> read(std::string_view relative, size_t limit = kMaxReadBytes) const;

  // Creates the regular file `relative` with `bytes`, failing if anything
  // already stands there (O_EXCL | O_NOFOLLOW). Directories on the way are
  // created when missing; those created are appended to `created_dirs` (in
  // creation order) when it is given, so a caller can roll them back.
  IoStatus create_file(std::string_view relative, std::string_view bytes,
                       std::vector<std::string>* created_dirs = nullptr) const;

  // Renames `from` to `to` (both beneath this directory), replacing a file at
  // `to`, or failing if one is there when `replace` is false.
  IoStatus rename(std::string_view from, std::string_view to, bool replace = true) const;

  // Removes the file (not a directory) at `relative`.
  IoStatus remove_file(std::string_view relative) const;
  // Removes the directory at `relative` if it is empty.
  IoStatus remove_empty_dir(std::string_view relative) const;

  // The names in the directory `relative` ("" for the root): nullopt when it
  // is not a real directory beneath this one.
  std::optional<std::vector<std::string>> list(std::string_view relative) const;

 private:
  ConfinedDir(std::filesystem::path root, int fd) : root_(std::move(root)), fd_(fd) {}

  // An open descriptor of the directory holding `relative`'s last component
  // (created when `create` is set), and that component; an IoError when a
  // component is missing, a link or not a directory.
  struct Parent {
    int fd = -1;  // owned; the root's own fd is duplicated
    std::string leaf;
  };
  std::variant<Parent, IoError> parent_of(std::string_view relative, bool create,
                                          std::vector<std::string>* created_dirs = nullptr) const;

  std::filesystem::path root_;
  int fd_ = -1;
};

}  // namespace opgen
