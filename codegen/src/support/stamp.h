// The stamp `opgen generate` leaves in its output directory (.opgen-stamp):
// a hash of everything the output depends on (the tool's identity, its
// options, every spec's path and bytes) and the identity of each file the run
// left there (size, mtime, ctime, inode: what git's index keeps). A re-run
// whose inputs hash the same, into a directory still as that run left it,
// stops before parsing a single spec: the no-op costs a read of each spec and
// a stat of each output instead of a parse, a check and a render of them all.
//
// Like make and ninja it trusts file times: an edit of an output that keeps
// its size and inode, made within one tick of the file system's clock after
// opgen wrote it, goes unseen (git calls such files "racily clean").
//
// The stamp is only a shortcut. Anything unexpected in it or in the directory
// (a file edited, deleted, added; a stamp from another tool version, torn or
// hand-edited) means a full run, which puts the directory right and writes a
// new stamp.
//
// The stamp is also the manifest of what opgen wrote (each output's content
// digest): a later run removes a file it no longer produces only when the
// manifest names it and it still holds those bytes. Without a stamp, stale
// outputs are left alone.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/confined_dir.h"
#include "support/output.h"

namespace opgen {

inline constexpr const char* kStampFile = ".opgen-stamp";

// A 128-bit XXH3 digest of a sequence of fields, as 32 hex digits. Each field
// is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
class InputKey {
 public:
  InputKey& add(std::string_view field);
  std::string hex() const;

 private:
  std::string fields_;
};

// The identity of the running executable: a digest of its GNU build ID (the
// linker's hash of the binary), or of its bytes (/proc/self/exe) when it has
// none; "" when neither can be read. A rebuilt tool never reuses an older
// tool's stamp.
std::string tool_digest();

// The executable's NT_GNU_BUILD_ID note (raw bytes), if it was linked with one.
std::optional<std::string> executable_build_id();

struct Stamp {
  std::string key;                   // InputKey::hex() of the run's inputs
  std::vector<std::string> outputs;  // paths under the directory, '/'-separated
  Manifest manifest;                 // each output's content digest: what opgen may later remove
  std::string diagnostics;           // what the run printed (its warnings), replayed on a skip
};

// The stamp in `dir` when it was written for `key` and every output it names
// is as that run left it, with no other file beside them; else nullopt.
std::optional<Stamp> find_current_stamp(const ConfinedDir& dir, const std::string& key);
std::optional<Stamp> find_current_stamp(const std::filesystem::path& dir, const std::string& key);

// What the last run in `dir` wrote, from its stamp whatever its key; empty
// when there is no readable stamp (then no file is ever removed as stale).
Manifest read_manifest(const ConfinedDir& dir);
Manifest read_manifest(const std::filesystem::path& dir);

// Records a successful run over `tree`, after OutputTree::commit. Best effort:
// when it cannot be written, an older stamp is removed, so that the next run
// simply does all the work.
void write_stamp(const ConfinedDir& dir, const std::string& key, const OutputTree& tree,
                 std::string_view diagnostics);
void write_stamp(const std::filesystem::path& dir, const std::string& key, const OutputTree& tree,
                 std::string_view diagnostics);

}  // namespace opgen
