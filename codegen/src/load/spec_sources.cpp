#include "load/spec_sources.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "support/diagnostic_codes.h"
#include "support/file_io.h"

namespace fs = std::filesystem;

namespace opgen::load {
namespace {

// Expands directories to their *.yaml files, sorted, so the order of the
// command line never changes the output. A file reached twice (`schemas`
// and `./schemas/foo.yaml`) is read once, under its first spelling.
struct SpecFile {
  fs::path path;       // as reached from the command line
  fs::path canonical;  // weakly canonical; empty when that failed
};

std::vector<SpecFile> spec_files(const std::vector<std::string>& inputs, Diagnostics& diags) {
  // Canonicalizing costs a system call per path component, so a directory is
  // canonicalized once and its files extend that; a file named on the command
  // line, or a symbolic link, is canonicalized on its own.
  auto canonical_of = [](const fs::path& path) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    return ec ? fs::path() : canonical;
  };
  // Only regular files are read: a FIFO would block, a device never end.
  auto not_a_spec = [&](const fs::path& path, const std::error_code& ec) {
    diags.error(Code::CannotReadSpec, {path.string(), 0, 0},
                ec ? fmt::format("cannot read it: {}", ec.message()) : "not a regular file");
  };
  std::vector<SpecFile> paths;
  for (const auto& input : inputs) {
    std::error_code ec;
    const fs::file_status status = fs::status(input, ec);
    if (fs::is_directory(status)) {
      const fs::path dir = canonical_of(input);
      auto it = fs::directory_iterator(input, ec);
      for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        if (entry.path().extension() != ".yaml") continue;
        std::error_code entry_ec;
        if (!entry.is_regular_file(entry_ec)) {
          not_a_spec(entry.path(), entry_ec);
          continue;
        }
        fs::path canonical = dir.empty()                    ? fs::path()
                             : entry.is_symlink(entry_ec)   ? canonical_of(entry.path())
                                                            : dir / entry.path().filename();
        paths.push_back({entry.path(), std::move(canonical)});
      }
      if (ec) diags.error(Code::CannotReadSpec, {input, 0, 0}, "cannot list the directory: " + ec.message());
    } else if (fs::is_regular_file(status)) {
      paths.push_back({input, canonical_of(input)});
    } else if (fs::exists(status)) {
      not_a_spec(input, {});
    } else if (ec && ec != std::errc::no_such_file_or_directory) {
      not_a_spec(input, ec);
    } else {
      diags.error(Code::CannotReadSpec, {input, 0, 0}, "no such file or directory");
    }
  }
  std::sort(paths.begin(), paths.end(), [](const SpecFile& a, const SpecFile& b) { return a.path < b.path; });
  std::vector<SpecFile> files;
  std::set<fs::path> seen;
  for (SpecFile& file : paths) {
    if (seen.insert(file.canonical.empty() ? file.path : file.canonical).second) files.push_back(std::move(file));
  }
  return files;
}

}  // namespace

std::vector<SpecSource> read_spec_sources(const std::vector<std::string>& inputs, const std::string& source_root,
                                          Diagnostics& diags) {
  // fs::relative(file, source_root), with the root canonicalized once.
  std::error_code root_ec;
  const fs::path root = fs::weakly_canonical(source_root, root_ec);
  std::vector<SpecSource> sources;
  for (const auto& [file, canonical] : spec_files(inputs, diags)) {
    std::string display = file.lexically_normal().string();
    fs::path relative = canonical.empty() || root_ec ? fs::path() : canonical.lexically_relative(root);
    if (!relative.empty() && relative.native().rfind("..", 0) != 0) display = relative.generic_string();
    if (auto text = read_file(file)) {
      sources.push_back({file.string(), std::move(display), std::move(*text)});
    } else {
      diags.error(Code::CannotReadSpec, {display, 0, 0}, "cannot read the file (unreadable, or past the limit of 64 MiB)");
    }
  }
  if (sources.empty() && !diags.has_errors()) {
    // An empty library is never meant, and generating one would remove every output of the last run.
    diags.error(Code::NoSpecFiles, {inputs.empty() ? "" : inputs.front(), 0, 0},
                "no spec files: the paths given hold no *.yaml file");
  }
  return sources;
}


}  // namespace opgen::load
