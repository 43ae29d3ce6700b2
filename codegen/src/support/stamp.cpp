#include "support/stamp.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL  // header-only: the tool gains no shared-library dependency
#include <xxhash.h>

#include "support/file_io.h"
#include "support/version.h"

namespace fs = std::filesystem;

namespace opgen {
namespace {

constexpr std::string_view kMagic = "opgen-stamp 2\n";

// What git's index keeps of a file to tell, without reading it, that it has
// not changed since.
struct FileId {
  int64_t size = -1, mtime_ns = 0, ctime_ns = 0;
  uint64_t inode = 0;

  bool operator==(const FileId&) const = default;
};

FileId file_id(const struct stat& st) {
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  return FileId{st.st_size, ns(st.st_mtim), ns(st.st_ctim), st.st_ino};
}

// Every entry under `dir` but directories and the stamp: what a full run may
// have to judge (a stale generated file) or left there (a user's own file).
std::optional<size_t> count_entries(const fs::path& dir) {
  std::error_code ec;
  size_t count = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_symlink(ec) && it->is_directory(ec)) continue;
    if (it.depth() == 0 && it->path().filename() == kStampFile) continue;
    ++count;
  }
  if (ec) return std::nullopt;
  return count;
}

// A cursor over the stamp's text; every read fails softly on a torn or
// hand-edited stamp, which only costs the shortcut.
class StampReader {
 public:
  explicit StampReader(std::string_view text) : rest_(text) {}

  bool literal(std::string_view expected) {
    if (rest_.substr(0, expected.size()) != expected) return false;
    rest_.remove_prefix(expected.size());
    return true;
  }
  // Up to the next `separator`, which is consumed.
  std::optional<std::string_view> until(char separator) {
    size_t end = rest_.find(separator);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view field = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
    return field;
  }
  template <typename Int>
  bool number(Int& value, char separator) {
    auto field = until(separator);
    if (!field || field->empty()) return false;
    auto [end, ec] = std::from_chars(field->data(), field->data() + field->size(), value);
    return ec == std::errc() && end == field->data() + field->size();
  }
  std::optional<std::string_view> bytes(size_t count) {
    if (rest_.size() != count) return std::nullopt;
    std::string_view field = rest_;
    rest_ = {};
    return field;
  }

 private:
  std::string_view rest_;
};

struct StampRecord {
  Stamp stamp;
  std::vector<FileId> ids;  // one per output
  size_t entries = 0;
};

std::optional<StampRecord> parse_stamp(std::string_view text) {
  StampReader r(text);
  StampRecord record;
  size_t outputs = 0, diagnostics = 0;
  if (!r.literal(kMagic) || !r.until('\n') /* the comment line */ || !r.literal("key ")) return std::nullopt;
  auto key = r.until('\n');
  if (!key || !r.literal("entries ") || !r.number(record.entries, '\n') || !r.literal("outputs ") ||
      !r.number(outputs, '\n') || outputs > text.size())
    return std::nullopt;
  for (size_t i = 0; i < outputs; ++i) {
    FileId id;
    std::optional<std::string_view> digest;
    auto path = (r.number(id.size, ' ') && r.number(id.mtime_ns, ' ') && r.number(id.ctime_ns, ' ') &&
                 r.number(id.inode, ' ') && (digest = r.until(' ')))
                    ? r.until('\n')
                    : std::nullopt;
    if (!path || path->empty() || digest->size() != 16) return std::nullopt;
    record.stamp.outputs.emplace_back(*path);
    record.stamp.manifest.emplace(*path, *digest);
    record.ids.push_back(id);
  }
  if (!r.literal("diagnostics ") || !r.number(diagnostics, '\n')) return std::nullopt;
  auto printed = r.bytes(diagnostics);
  if (!printed) return std::nullopt;
  record.stamp.key = *key;
  record.stamp.diagnostics = *printed;
  return record;
}

}  // namespace

InputKey& InputKey::add(std::string_view field) {
  fields_ += fmt::format("{}:", field.size());
  fields_ += field;
  return *this;
}

std::string InputKey::hex() const {
  XXH128_hash_t hash = XXH3_128bits(fields_.data(), fields_.size());
  return fmt::format("{:016x}{:016x}", hash.high64, hash.low64);
}

std::optional<std::string> executable_build_id() {
  std::optional<std::string> id;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto& found = *static_cast<std::optional<std::string>*>(data);
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          if (segment.p_type != PT_NOTE) continue;
          const size_t align = segment.p_align == 8 ? 8 : 4;
          auto padded = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
          const char* note = reinterpret_cast<const char*>(info->dlpi_addr + segment.p_vaddr);
          const char* end = note + segment.p_memsz;
          while (static_cast<size_t>(end - note) >= sizeof(ElfW(Nhdr))) {
            const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
            const char* name = note + sizeof(ElfW(Nhdr));
            const char* desc = name + padded(header->n_namesz);
            if (desc > end || header->n_descsz > static_cast<size_t>(end - desc)) break;
            if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              found = std::string(desc, header->n_descsz);
              return 1;
            }
            note = desc + padded(header->n_descsz);
          }
        }
        return 1;  // the first object is the executable: stop there
      },
      &id);
  return id;
}

std::string tool_digest() {
  static const std::string digest = [] {
    // The linker's build ID is a hash of the linked binary: the same
    // identity as the file's bytes, without reading megabytes of them.
    if (auto id = executable_build_id(); id && !id->empty()) return InputKey().add("build-id").add(*id).hex();
    auto bytes = read_file("/proc/self/exe");
    return bytes ? InputKey().add(*bytes).hex() : std::string();
  }();
  return digest;
}

std::optional<Stamp> find_current_stamp(const ConfinedDir& dir, const std::string& key) {
  auto text = dir.read(kStampFile);
  if (!std::holds_alternative<std::string>(text)) return std::nullopt;
  auto record = parse_stamp(std::get<std::string>(text));
  if (!record || record->stamp.key != key) return std::nullopt;
  for (size_t i = 0; i < record->ids.size(); ++i) {
    // Through the confined directory: a stamp's path never reaches outside it.
    auto st = dir.lstat(record->stamp.outputs[i]);
    if (!st || file_id(*st) != record->ids[i]) return std::nullopt;
  }
  if (count_entries(dir.root()) != record->entries) return std::nullopt;
  return std::move(record->stamp);
}

Manifest read_manifest(const ConfinedDir& dir) {
  auto text = dir.read(kStampFile);
  if (!std::holds_alternative<std::string>(text)) return {};
  auto record = parse_stamp(std::get<std::string>(text));
  return record ? std::move(record->stamp.manifest) : Manifest{};
}

void write_stamp(const ConfinedDir& dir, const std::string& key, const OutputTree& tree,
                 std::string_view diagnostics) {
  auto give_up = [&] { (void)dir.remove_file(kStampFile); };
  auto entries = count_entries(dir.root());
  if (!entries) return give_up();

  std::string text(kMagic);
  text += fmt::format("# Written by opgen {} generate. Delete it and the next run does all the work again.\n",
                      tool_version());
  text += fmt::format("key {}\nentries {}\noutputs {}\n", key, *entries, tree.files().size());
  for (const auto& [relative, contents] : tree.files()) {
    auto st = dir.lstat(relative);
    if (!st) return give_up();
    const FileId id = file_id(*st);
    text += fmt::format("{} {} {} {} {} {}\n", id.size, id.mtime_ns, id.ctime_ns, id.inode,
                        content_digest(contents), relative);
  }
  text += fmt::format("diagnostics {}\n", diagnostics.size());
  text += diagnostics;

  if (auto old = dir.read(kStampFile); std::holds_alternative<std::string>(old) && std::get<std::string>(old) == text)
    return;  // as the build wants: nothing touched
  // The temporary is created O_EXCL | O_NOFOLLOW: whatever was planted at its
  // name (a link to a file outside) is removed, not followed.
  const std::string temp = temp_name(kStampFile);
  (void)dir.remove_file(temp);
  if (!dir.create_file(temp, text).ok() || !dir.rename(temp, kStampFile).ok()) {
    (void)dir.remove_file(temp);
    give_up();
  }
}

template <typename F>
static auto with_dir(const fs::path& path, F f) -> decltype(f(std::declval<const ConfinedDir&>())) {
  auto opened = ConfinedDir::open(path, /*create=*/false);
  if (!std::holds_alternative<ConfinedDir>(opened)) return {};
  return f(std::get<ConfinedDir>(opened));
}

std::optional<Stamp> find_current_stamp(const fs::path& dir, const std::string& key) {
  return with_dir(dir, [&](const ConfinedDir& d) { return find_current_stamp(d, key); });
}

Manifest read_manifest(const fs::path& dir) {
  return with_dir(dir, [&](const ConfinedDir& d) { return read_manifest(d); });
}

void write_stamp(const fs::path& dir, const std::string& key, const OutputTree& tree, std::string_view diagnostics) {
  auto opened = ConfinedDir::open(dir, /*create=*/false);
  if (auto* d = std::get_if<ConfinedDir>(&opened)) write_stamp(*d, key, tree, diagnostics);
}

}  // namespace opgen
