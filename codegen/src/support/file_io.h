// Reading whole files: specs, the files already in the output directory, the
// stamp. Plain POSIX calls (open, fstat, read): a no-op `opgen generate` reads
// thousands of small files, and iostreams cost several times as much per file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace opgen {

// Reads larger than this fail: a spec or stamp is never this large, and a
// sparse file of terabytes must not be read whole.
inline constexpr size_t kMaxReadBytes = size_t{64} << 20;

// The bytes of the regular file at `path`, or nullopt when it cannot be
// opened or read (missing, a directory, a FIFO, no permission) or holds more
// than `limit` bytes.
std::optional<std::string> read_file(const std::filesystem::path& path, size_t limit = kMaxReadBytes);

// The bytes of the regular file open at `fd`, whose fstat size is
// `size_hint` (0: read to the end, at most `limit` bytes); nullopt when a
// read fails (errno says why). Shared by read_file and ConfinedDir::read.
std::optional<std::string> read_open_file(int fd, size_t size_hint, size_t limit);

}  // namespace opgen
