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

}  // namespace opgen
