// Atomic, write-if-changed output. Every file is first written to a
// temporary beside its destination; only when all of them are written are
// they renamed into place, so a failed run leaves the tree as it was. Files
// whose contents did not change are not touched (their mtimes stay, so the
// build recompiles nothing for them).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "support/diagnostics.h"

namespace opgen {

struct WriteStats {
  size_t written = 0;    // created or changed
  size_t unchanged = 0;
  size_t removed = 0;    // stale generated files deleted
};

class OutputTree {
 public:
  // `relative` is a path under the output directory, with '/' separators.
  void add(const std::string& relative, std::string contents);
  const std::map<std::string, std::string>& files() const { return files_; }

  // Writes the tree under `dir`. Stale files that carry the generated-file
  // marker and are no longer produced are removed. Reports a diagnostic and
  // returns false on any I/O failure, after rolling back what it staged.
  bool commit(const std::filesystem::path& dir, Diagnostics& diags, WriteStats* stats = nullptr) const;

 private:
  std::map<std::string, std::string> files_;
};

// The marker every generated file carries in its first lines.
inline constexpr const char* kGeneratedMarker = "@generated";

}  // namespace opgen
