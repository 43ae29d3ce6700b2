// Diagnostics: `path:line:col: error: message` plus `note:` lines, collected
// over a whole run and printed in a stable order, so one run reports every
// problem and nothing is written while any error stands.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace opgen {

// A position in an input file. Line and column are 1-based, as printed;
// line 0 means "the whole file".
struct SourceLoc {
  std::string file;
  size_t line = 0;
  size_t column = 0;

  SourceLoc shifted(size_t columns) const { return {file, line, column + columns}; }
  std::string to_string() const;
};

enum class Severity { Error, Warning, Note };

struct Note {
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::vector<Note> notes;
};

class Diagnostics {
 public:
  // Returns the new diagnostic so callers can attach notes.
  Diagnostic& error(SourceLoc loc, std::string message);
  Diagnostic& warning(SourceLoc loc, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }

  // Prints every diagnostic, ordered by file, line, column, then the order
  // they were reported in.
  void print(std::ostream& out) const;

 private:
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
};

// The closest candidate to `word` by edit distance, or "" when nothing is
// close enough to be a plausible typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace opgen
