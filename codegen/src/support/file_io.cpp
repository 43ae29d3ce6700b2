#include "support/file_io.h"

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opgen {

std::optional<std::string> read_open_file(int fd, size_t size_hint, size_t limit) {
  // Reads the size fstat gave, without a last read to see the end: a file
  // that shrinks meanwhile still reads whole, one that grows reads as it was.
  // A size of 0 (what /proc's files say) reads to the end, bounded.
  const bool to_end = size_hint == 0;
  std::string buffer(to_end ? std::min<size_t>(limit, 64 << 10) : size_hint, '\0');
  size_t used = 0;
  for (;;) {
    if (used == buffer.size()) {
      if (!to_end || buffer.size() >= limit) break;
      buffer.resize(std::min(limit, buffer.size() * 2));
    }
    const ssize_t n = ::read(fd, buffer.data() + used, buffer.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  buffer.resize(used);
  return buffer;
}

std::optional<std::string> read_file(const std::filesystem::path& path, size_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) return std::nullopt;
  std::optional<std::string> contents;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) <= limit)
    contents = read_open_file(fd, static_cast<size_t>(st.st_size), limit);
  ::close(fd);
  return contents;
}

}  // namespace opgen
