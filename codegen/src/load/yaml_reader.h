// What every YAML file opgen reads shares: a reader that keeps source
// marks (so each diagnostic points at its line and column), checks keys and
// value types strictly under the YAML 1.2 core schema, parses rules, and
// opens a document safely (one document only; depth-bounded).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "load/yaml_core.h"
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::load {

// Why `text` cannot be copied into generated C++ comments and Python
// docstrings, or nullopt: invalid UTF-8, a control character but a tab (or
// a newline, where `lines` allows them), or a line ending in a backslash.
std::optional<std::string> uncarriable(std::string_view text, bool lines);

// The key marks of the first document of `text` (empty if it does not parse):
// each mapping's mark.pos -> its keys' marks, in order.
std::map<int, std::vector<YAML::Mark>> key_marks(const std::string& text);

// Reading state for one file: its lines (to map columns inside scalars back
// to the file) and where diagnostics go.
class Reader {
 public:
  Reader(const std::string& text, std::string display_path, Diagnostics& diags)
      : text_(text), path_(std::move(display_path)), diags_(diags) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
  }

  SourceLoc loc(const YAML::Mark& mark) const {
    return {path_, static_cast<size_t>(mark.line) + 1, static_cast<size_t>(mark.column) + 1};
  }
  SourceLoc loc(const YAML::Node& node) const { return loc(node.Mark()); }
  const std::string& path() const { return path_; }
  Diagnostics& diags() { return diags_; }
  std::vector<std::string> host_classes;  // what a schema in this file may name besides schema types

  // Where column 0 of a scalar's value lies in the file, and whether columns
  // inside it map one to one (a single-line scalar without escapes).
  std::pair<SourceLoc, bool> value_start(const YAML::Node& node) const {
    SourceLoc start = loc(node);
    const auto& mark = node.Mark();
    if (mark.line < 0 || static_cast<size_t>(mark.line) >= lines_.size()) return {start, false};
    const std::string& line = lines_[mark.line];
    const std::string value = node.Scalar();
    size_t col = static_cast<size_t>(mark.column);
    if (col < line.size() && (line[col] == '"' || line[col] == '\'')) ++col;
    bool exact = line.compare(col, value.size(), value) == 0;
    return {{path_, start.line, col + 1}, exact};
  }

  // Reports a value of the wrong type: "'what' must be <want>, not <what it is>",
  // with a hint where quoting it would make it a string.
  void wrong_type(const YAML::Node& node, const std::string& what, const std::string& want) {
    const YamlType type = yaml_type(node);
    const bool past_int64 = type == YamlType::Int && !yaml_integer(node);
    auto& d = diags_.error(Code::WrongValueType, loc(node),
                           fmt::format("'{}' must be {}, not {}", what, want,
                                       past_int64 ? "an integer past the range of int64" : describe(type)));
    if (want.find("string") != std::string::npos)
      if (auto hint = quote_hint(node)) d.notes.push_back({*hint});
  }

  // A string under the YAML 1.2 core schema: `3`, `true` and `null` are not.
  bool expect_string(const YAML::Node& node, const std::string& what) {
    if (yaml_type(node) == YamlType::String) return true;
    wrong_type(node, what, "a string");
    return false;
  }

  std::optional<std::string> string_value(const YAML::Node& node, const std::string& what) {
    if (!expect_string(node, what)) return std::nullopt;
    return node.Scalar();
  }

  // A list of strings; a single string is accepted as a one-element list.
  std::vector<model::Located<std::string>> string_list(const YAML::Node& node, const std::string& what) {
    std::vector<model::Located<std::string>> out;
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        if (expect_string(item, what + " entry")) out.push_back({item.Scalar(), loc(item)});
      }
    } else if (yaml_type(node) == YamlType::String) {
      out.push_back({node.Scalar(), loc(node)});
    } else {
      wrong_type(node, what, "a string or a list of strings");
    }
    return out;
  }

  // A rule: an expression of the rule language, or an integer (a literal
  // rule, `flops: 0`), read in its decimal form.
  std::optional<model::RuleText> rule(const YAML::Node& node, const std::string& what) {
    std::string text = node.Scalar();
    if (yaml_type(node) != YamlType::String) {
      auto value = yaml_integer(node);
      if (!value) {
        wrong_type(node, what, "a rule (a string) or an integer");
        return std::nullopt;
      }
      text = std::to_string(*value);  // INT64_MIN still fails to parse, as a rule: the literal leaves int64
    }
    auto [start, exact] = value_start(node);
    exact = exact && node.Scalar() == text;
    model::RuleText rule{text, exact ? start : loc(node), nullptr, exact};
    auto parsed = model::parse_expr(rule.text);
    if (auto* diag = std::get_if<model::ExprDiagnostic>(&parsed)) {
      auto& d = diags_.error(diag->code, rule.at(diag->column), diag->message);
      if (!diag->note.empty()) d.notes.push_back({diag->note});
      return std::nullopt;
    }
    rule.expr = std::get<model::ExprPtr>(parsed);
    return rule;
  }

  // Checks a mapping for keys outside `allowed` and for duplicates; returns
  // false if the node is not a mapping at all.
  bool check_keys(const YAML::Node& node, const std::vector<std::string>& allowed, const std::string& what) {
    if (!node.IsMap()) {
      diags_.error(Code::WrongValueType, loc(node), fmt::format("{} must be a mapping", what));
      return false;
    }
    std::set<std::string> seen;
    size_t index = 0;
    for (const auto& entry : node) {
      auto key_loc = [&, i = index++] { return where_key(node, i, entry.first); };
      if (yaml_type(entry.first) != YamlType::String) {
        auto& d = diags_.error(Code::NonStringKey, key_loc(),
                               fmt::format("keys of {} must be strings, not {}", what, describe(yaml_type(entry.first))));
        if (auto hint = quote_hint(entry.first)) d.notes.push_back({*hint});
        continue;
      }
      const std::string key = entry.first.Scalar();
      if (!seen.insert(key).second) {
        diags_.error(Code::DuplicateKey, key_loc(), fmt::format("duplicate key '{}' in {}", key, what));
        continue;
      }
      if (allowed.empty()) continue;  // free-form keys (argument names)
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        auto& d = diags_.error(Code::UnknownKey, key_loc(), fmt::format("unknown key '{}' in {}", key, what));
        if (std::string guess = closest_match(key, allowed); !guess.empty())
          d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
        d.notes.push_back({fmt::format("allowed keys: {}", fmt::join(allowed, ", "))});
      }
    }
    return true;
  }

 private:
  // Where the `index`th key of `map` stands, for a diagnostic. The parser's
  // events know an aliased key's own place (yaml-cpp gives its anchor's);
  // they are read only when a diagnostic needs them, off the hot path.
  SourceLoc where_key(const YAML::Node& map, size_t index, const YAML::Node& key) {
    if (!key_marks_) key_marks_ = key_marks(text_);
    auto it = key_marks_->find(map.Mark().pos);
    if (it == key_marks_->end() || it->second.size() != map.size()) return loc(key);
    return loc(it->second[index]);
  }

  const std::string& text_;
  std::string path_;
  Diagnostics& diags_;
  std::optional<std::map<int, std::vector<YAML::Mark>>> key_marks_;
  std::vector<std::string> lines_;
};

// The first and only YAML document of the reader's file: nullopt, with the
// error reported, when it does not parse, nests too deeply or is followed
// by a second document ("<file_kind> holds one YAML document"; the note says
// what to do instead).
std::optional<YAML::Node> load_document(Reader& r, const std::string& text, std::string_view file_kind,
                                        std::string_view one_document_note);

}  // namespace opgen::load
