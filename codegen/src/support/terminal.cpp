#include "support/terminal.h"

#include <cstdlib>
#include <streambuf>

#include <unistd.h>

namespace opgen {
namespace {

constexpr std::string_view kReset = "\033[0m";
constexpr std::string_view kBold = "\033[1m";

bool set(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

}  // namespace

bool stderr_wants_colour() {
  if (set("NO_COLOR")) return false;
  return set("FORCE_COLOR") || ::isatty(STDERR_FILENO) == 1;
}

std::string colourize_line(std::string_view line) {
  struct Kind {
    std::string_view marker;  // what follows the location
    std::string_view colour;
  };
  static constexpr Kind kKinds[] = {
      {": error[", "\033[1;31m"}, {": warning[", "\033[1;35m"}, {": note: ", "\033[1;36m"}, {": error: ", "\033[1;31m"}};
  for (const Kind& kind : kKinds) {
    const size_t at = line.find(kind.marker);
    if (at == std::string_view::npos) continue;
    // The word, and the code up to `]` where there is one.
    const size_t word = at + 2;
    size_t end = line.find(kind.marker.back() == '[' ? ']' : ':', word);
    if (end == std::string_view::npos) continue;
    if (kind.marker.back() == '[') ++end;
    std::string out;
    out.append(kBold).append(line.substr(0, at)).append(kReset).append(": ");
    out.append(kind.colour).append(line.substr(word, end - word)).append(kReset);
    out.append(line.substr(end));
    return out;
  }
  return std::string(line);
}

// A streambuf that holds each line until its newline, then writes it,
// coloured, to the original one.
class ColourLines::Buf : public std::streambuf {
 public:
  explicit Buf(std::streambuf* target) : target_(target) {}
  ~Buf() override { flush_line(); }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    line_.push_back(traits_type::to_char_type(ch));
    if (ch == '\n') flush_line();
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }
  int sync() override { return target_->pubsync(); }

 private:
  void flush_line() {
    if (line_.empty()) return;
    const bool newline = line_.back() == '\n';
    std::string out = colourize_line(std::string_view(line_).substr(0, line_.size() - newline));
    if (newline) out.push_back('\n');
    target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
    line_.clear();
  }
  std::streambuf* target_;
  std::string line_;
};

ColourLines::ColourLines(std::ostream& stream)
    : stream_(stream), original_(stream.rdbuf()), buf_(std::make_unique<Buf>(original_)) {
  stream_.rdbuf(buf_.get());
}

ColourLines::~ColourLines() {
  stream_.flush();
  stream_.rdbuf(original_);
  buf_.reset();  // writes a last line without its newline
}

}  // namespace opgen
