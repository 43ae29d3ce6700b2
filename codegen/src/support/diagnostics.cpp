#include "support/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opgen {

std::string SourceLoc::to_string() const {
  if (line == 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

Diagnostic& Diagnostics::error(Code code, SourceLoc loc, std::string message) {
  ++error_count_;
  return diagnostics_.emplace_back(Diagnostic{Severity::Error, code, std::move(loc), std::move(message), {}});
}

Diagnostic& Diagnostics::warning(Code code, SourceLoc loc, std::string message) {
  return diagnostics_.emplace_back(Diagnostic{Severity::Warning, code, std::move(loc), std::move(message), {}});
}

Diagnostics Diagnostics::without(Code code) const {
  Diagnostics kept;
  for (const Diagnostic& d : diagnostics_) {
    if (d.code == code) continue;
    kept.diagnostics_.push_back(d);
    if (d.severity == Severity::Error) ++kept.error_count_;
  }
  return kept;
}

void Diagnostics::print(std::ostream& out) const {
  std::vector<size_t> order(diagnostics_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SourceLoc& la = diagnostics_[a].loc;
    const SourceLoc& lb = diagnostics_[b].loc;
    return std::tie(la.file, la.line, la.column) < std::tie(lb.file, lb.line, lb.column);
  });
  for (size_t i : order) {
    const Diagnostic& d = diagnostics_[i];
    // Warnings wait until the errors are fixed: they would bury them.
    if (d.severity == Severity::Warning && has_errors()) continue;
    const char* kind = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
    out << d.loc.to_string() << ": " << kind << '[' << code_id(d.code) << "]: " << d.message << '\n';
    for (const Note& note : d.notes) out << d.loc.to_string() << ": note: " << note.message << '\n';
  }
}

std::vector<std::string_view> Diagnostics::error_codes() const {
  std::vector<std::string_view> codes;
  for (const Diagnostic& d : diagnostics_)
    if (d.severity == Severity::Error) codes.push_back(code_id(d.code));
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

std::string Diagnostics::explain_hint() const {
  const auto codes = error_codes();
  if (codes.empty()) return "";
  if (codes.size() == 1) return fmt::format("for more about this error, run 'opgen explain {}'", codes[0]);
  return fmt::format("for more about these errors ({}), run 'opgen explain CODE'", fmt::join(codes, ", "));
}

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions
// and transpositions of neighbours ("inptu" is one edit from "input").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // A difference in case alone is the likeliest typo ("Cuda" for "CUDA").
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  for (const std::string& candidate : candidates)
    if (candidate != word && lower(candidate) == lower(word)) return candidate;
  std::string best;
  // A third of the word's length, at least one edit: "shema" -> "schema" but
  // not "x" -> "eps".
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace opgen
