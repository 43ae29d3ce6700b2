// Diagnostics: `path:line:col: error[E0304]: message` plus `note:` lines,
// collected over a whole run and printed in a stable order, so one run reports
// every problem and nothing is written while any error stands. Every error and
// warning carries a code (support/diagnostic_codes.h) that `opgen explain`
// explains.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic_codes.h"

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
  Code code;
  SourceLoc loc;
  std::string message;
  std::vector<Note> notes;
};

class Diagnostics {
 public:
  // Returns the new diagnostic so callers can attach notes.
  Diagnostic& error(Code code, SourceLoc loc, std::string message);
  Diagnostic& warning(Code code, SourceLoc loc, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }

  // Prints every diagnostic, ordered by file, line, column, then the order
  // they were reported in.
  void print(std::ostream& out) const;

  // A copy without the diagnostics of `code`.
  Diagnostics without(Code code) const;

  // The codes of the errors, each once, ordered by id.
  std::vector<std::string_view> error_codes() const;
  // A line pointing at `opgen explain` for the errors' codes, or "" when
  // there are none: "for more about this error, run 'opgen explain E0304'".
  std::string explain_hint() const;

 private:
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
};

// The closest candidate to `word` by edit distance, or "" when nothing is
// close enough to be a plausible typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace opgen
