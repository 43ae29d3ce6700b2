// Reading whole files: specs, the files already in the output directory, the
// stamp. Plain POSIX calls (open, fstat, read): a no-op `opgen generate` reads
// thousands of small files, and iostreams cost several times as much per file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace opgen {

// The bytes of the file at `path`, or nullopt when it cannot be opened or
// read (missing, a directory, no permission).
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace opgen
