// Atomic, write-if-changed output into a directory that is opgen's alone.
//
// Every file is first written to a temporary beside its destination; only
// when all of them are written are they renamed into place, so a failed run
// leaves the tree as it was. Files whose contents did not change are not
// touched (their mtimes stay, so the build recompiles nothing for them).
//
// What opgen may do to the directory, and nothing more:
//   - write the files of the tree, at paths it made from validated names,
//     never through a symbolic link and never over anything but a regular
//     file (each is checked before the first write), every path resolved
//     beneath the directory by a ConfinedDir (support/confined_dir.h);
//   - remove a file only when the previous run's manifest lists it, the tree
//     no longer has it, and it still holds the bytes opgen wrote there;
//   - remove its own temporaries (`<output>.opgen-tmp-<pid>`) that a killed
//     run left behind.
// Concurrent runs on one directory are serialized by OutputLock, whose wait
// is bounded.
#pragma once

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "support/confined_dir.h"
#include "support/diagnostics.h"

namespace opgen {

struct WriteStats {
  size_t written = 0;    // created or changed
  size_t unchanged = 0;
  size_t removed = 0;    // stale generated files deleted
};

// What a run wrote: each output's path under the directory ('/'-separated)
// and the digest of the bytes written there (content_digest).
using Manifest = std::map<std::string, std::string>;

// A 64-bit XXH3 digest of `bytes`, as 16 hex digits.
std::string content_digest(std::string_view bytes);

class OutputTree {
 public:
  // `relative` is a path under the output directory, with '/' separators.
  void add(const std::string& relative, std::string contents);
  const std::map<std::string, std::string>& files() const { return files_; }
  Manifest manifest() const;

  // Writes the tree under `dir`. Of the files in `previous` (the manifest of
  // the run before) that this tree no longer has, those still holding what
  // that run wrote are removed. Reports a diagnostic and returns false on any
  // problem, having written nothing when it could tell beforehand and rolled
  // back what it staged otherwise.
  bool commit(const ConfinedDir& dir, Diagnostics& diags, WriteStats* stats = nullptr,
              const Manifest& previous = {}) const;
  // The same, into `dir` (created when missing).
  bool commit(const std::filesystem::path& dir, Diagnostics& diags, WriteStats* stats = nullptr,
              const Manifest& previous = {}) const;

 private:
  std::map<std::string, std::string> files_;
};

// An exclusive lock on an output directory (flock on the directory itself,
// so no lock file is left behind), held for the lifetime of the object: a
// second `opgen generate` on the same directory waits for the first, saying
// so after 2 s and naming the holder, and gives up after
// OPGEN_LOCK_TIMEOUT seconds (default 600) with an error that names it.
class OutputLock {
 public:
  // Creates `dir` when missing. On failure reports a diagnostic and returns nullopt.
  static std::optional<OutputLock> acquire(const std::filesystem::path& dir, Diagnostics& diags,
                                           std::ostream& progress = std::cerr);
  static constexpr double kDefaultLockTimeoutSeconds = 600;
  static double lock_timeout_seconds();

  // The locked directory: everything written under the lock goes through it.
  const ConfinedDir& dir() const { return dir_; }

 private:
  explicit OutputLock(ConfinedDir dir) : dir_(std::move(dir)) {}
  ConfinedDir dir_;  // closing its descriptor releases the lock
};

// The name of this process's temporary for `relative` (beside it).
std::string temp_name(std::string_view relative);

// The marker every generated file carries in its first lines.
inline constexpr const char* kGeneratedMarker = "@generated";

// The suffix of a temporary output, followed by the writer's pid.
inline constexpr std::string_view kTempSuffix = ".opgen-tmp-";

}  // namespace opgen
