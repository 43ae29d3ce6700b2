#include "load/spec_loader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "load/yaml_core.h"

namespace opgen::load {
namespace {

using model::Located;
using model::OpSpec;
using model::RuleText;

// Why `text` cannot be copied into generated C++ comments and Python
// docstrings, or nullopt: invalid UTF-8, a control character but a tab (or
// a newline, where `lines` allows them), or a line ending in a backslash.
std::optional<std::string> uncarriable(std::string_view text, bool lines) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n' && lines) {
      if (i > 0 && text[i - 1] == '\\') return "a line ends in a backslash, which C++ reads as a line continuation";
      ++i;
      continue;
    }
    if (byte < 0x20 && byte != '\t') return fmt::format("it holds the control character 0x{:02x}", byte);
    if (byte == 0x7f) return "it holds the control character 0x7f";
    // UTF-8: the lead byte says how many continuation bytes follow; overlong
    // forms, surrogates and code points past U+10FFFF are invalid.
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xe ? 3 : (byte >> 3) == 0x1e ? 4 : 0;
    uint32_t code = length == 1 ? byte : length == 2 ? byte & 0x1f : length == 3 ? byte & 0x0f : byte & 0x07;
    bool valid = length != 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xc0) == 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!valid || code < kMinimum[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      return fmt::format("it is not valid UTF-8 at byte {}", i);
    i += length;
  }
  if (!text.empty() && text.back() == '\\') return "it ends in a backslash, which C++ reads as a line continuation";
  return std::nullopt;
}

// A sample's number or boolean in the one form the checker reads and the
// generated Python writes: an int in decimal, a float as Python's repr
// writes it (1.0, 0.001, 1e-08; "inf" and "nan", which the checker
// refuses), "true" or "false". `007` and `0x1f` mean nothing, or another
// number, in Python. The YAML type stays: 2.0 is no sample for an int argument.
std::string canonical_scalar(const YAML::Node& node) {
  if (auto v = yaml_bool(node)) return *v ? "true" : "false";
  if (yaml_type(node) == YamlType::Int) {
    if (auto v = yaml_integer(node)) return std::to_string(*v);
    return node.Scalar();  // past int64: the checker says so
  }
  if (auto v = yaml_number(node)) {
    std::string text = fmt::format("{}", *v);
    if (text.find_first_of(".en") == std::string::npos) text += ".0";  // "inf" and "nan" hold an 'n'
    return text;
  }
  return node.Scalar();
}

// The parser's events, reduced to what the handlers below need: each node's
// mark, in document order, and where collections start and end.
class NodeEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
    collection_start(false, mark);
  }
  void OnSequenceEnd() override { collection_end(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
    collection_start(true, mark);
  }
  void OnMapEnd() override { collection_end(); }

 protected:
  virtual void node(const YAML::Mark& mark) = 0;
  virtual void collection_start(bool /*map*/, const YAML::Mark&) {}
  virtual void collection_end() {}
};

// Where the root of each YAML document lies. Only the first two documents
// are read: yaml-cpp 0.7's YAML::LoadAll never returns on some invalid input,
// such as a stray ',' at the top level (jbeder/yaml-cpp#1040), where the
// parser yields an empty document at the same place over and over without
// consuming anything.
class DocumentRoots : public NodeEvents {
 public:
  std::vector<YAML::Mark> starts, roots;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }

 private:
  void node(const YAML::Mark& mark) override {
    if (roots.size() < starts.size()) roots.push_back(mark);
  }
};

// Where each key of each mapping of the first document is written, by the
// position of the mapping: a key written as an alias (`*k: ...`) is the
// anchored node itself to yaml-cpp, with the anchor's mark, so only the
// events know where the alias stands.
class KeyMarks : public NodeEvents {
 public:
  std::map<int, std::vector<YAML::Mark>> keys;  // mapping's mark.pos -> its keys' marks, in order

 private:
  struct Frame {
    bool map;
    bool expecting_key;
    int pos;
  };
  void node(const YAML::Mark& mark) override {
    if (frames_.empty() || !frames_.back().map) return;
    Frame& frame = frames_.back();
    if (frame.expecting_key) keys[frame.pos].push_back(mark);
    frame.expecting_key = !frame.expecting_key;
  }
  void collection_start(bool map, const YAML::Mark& mark) override { frames_.push_back({map, true, mark.pos}); }
  void collection_end() override { frames_.pop_back(); }
  std::vector<Frame> frames_;
};

// The key marks of the first document of `text` (empty if it does not parse).
std::map<int, std::vector<YAML::Mark>> key_marks(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  KeyMarks marks;
  try {
    parser.HandleNextDocument(marks);
  } catch (const YAML::Exception&) {
    return {};
  }
  return std::move(marks.keys);
}

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
  std::vector<Located<std::string>> string_list(const YAML::Node& node, const std::string& what) {
    std::vector<Located<std::string>> out;
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
  std::optional<RuleText> rule(const YAML::Node& node, const std::string& what) {
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
    RuleText rule{text, exact ? start : loc(node), nullptr, exact};
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

}  // namespace

const std::vector<std::string>& check_keys() {
  static const std::vector<std::string> keys = {"dtype", "same_dtype", "same_device", "dim", "contiguous"};
  return keys;
}

const std::vector<std::string>& autograd_keys() {
  static const std::vector<std::string> keys = {"backward", "grads"};
  return keys;
}

namespace {

const std::vector<std::string>& kCheckKeys = check_keys();
const std::vector<std::string>& kAutogradKeys = autograd_keys();
const std::vector<std::string> kFakePythonKeys = {"python"};

void read_schema(Reader& r, const YAML::Node& node, OpSpec& spec) {
  auto text = r.string_value(node, "schema");
  if (!text) return;
  spec.schema_text = {*text, r.loc(node)};
  auto [start, exact] = r.value_start(node);
  spec.schema_value_loc = start;
  spec.schema_columns_exact = exact;
  auto parsed = model::parse_schema(*text);
  if (auto* err = std::get_if<model::SchemaError>(&parsed)) {
    r.diags().error(err->code, spec.schema_at(err->column), fmt::format("invalid schema: {}", err->message));
    return;
  }
  spec.schema = std::get<model::FunctionSchema>(std::move(parsed));
}

void read_abi(Reader& r, const YAML::Node& node, OpSpec& spec) {
  auto text = r.string_value(node, "abi");
  if (!text) return;
  if (*text == "stable") {
    spec.abi = {model::Abi::Stable, r.loc(node)};
  } else if (*text == "unstable") {
    spec.abi = {model::Abi::Unstable, r.loc(node)};
  } else {
    r.diags().error(Code::UnknownAbi, r.loc(node),
                    fmt::format("'abi' must be 'stable' or 'unstable', not '{}'", *text));
  }
}

void read_checks(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'checks'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    model::TensorCheck check;
    check.arg = {entry.first.Scalar(), r.loc(entry.first)};
    const YAML::Node& body = entry.second;
    if (!r.check_keys(body, kCheckKeys, fmt::format("the checks of '{}'", check.arg.value))) continue;
    if (auto n = body["dtype"]) check.dtypes = r.string_list(n, "dtype");
    if (auto n = body["same_dtype"]; n && r.expect_string(n, "same_dtype"))
      check.same_dtype_as = Located<std::string>{n.Scalar(), r.loc(n)};
    if (auto n = body["same_device"]; n && r.expect_string(n, "same_device"))
      check.same_device_as = Located<std::string>{n.Scalar(), r.loc(n)};
    if (auto n = body["dim"]) {
      if (auto dim = yaml_integer(n))  // the checker judges its sign (E0602)
        check.dim = Located<int64_t>{*dim, r.loc(n)};
      else
        r.wrong_type(n, "dim", "an integer");
    }
    if (auto n = body["contiguous"]) {
      if (auto contiguous = yaml_bool(n))
        check.contiguous = *contiguous;
      else
        r.wrong_type(n, "contiguous", "true or false");
    }
    spec.checks.push_back(std::move(check));
  }
}

void read_rules(Reader& r, const YAML::Node& node, std::vector<RuleText>& out, const std::string& what) {
  if (node.IsScalar()) {
    if (auto rule = r.rule(node, what)) out.push_back(std::move(*rule));
    return;
  }
  if (!node.IsSequence()) {
    r.diags().error(Code::WrongValueType, r.loc(node), fmt::format("'{}' must be a list of expressions", what));
    return;
  }
  for (const YAML::Node& item : node)
    if (auto rule = r.rule(item, what + " entry")) out.push_back(std::move(*rule));
}

void read_let(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'let'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    if (auto rule = r.rule(entry.second, "let"))
      spec.lets.push_back({{entry.first.Scalar(), r.loc(entry.first)}, std::move(*rule)});
  }
}

void read_fake(Reader& r, const YAML::Node& node, OpSpec& spec) {
  spec.fake_loc = r.loc(node);
  if (node.IsMap()) {
    if (!r.check_keys(node, kFakePythonKeys, "'fake'")) return;
    if (auto n = node["python"]; n && r.expect_string(n, "python"))
      spec.fake_python = Located<std::string>{n.Scalar(), r.loc(n)};
    return;
  }
  for (const YAML::Node& item : node.IsSequence() ? node : YAML::Node()) {
    if (item.IsMap() && item["python"]) {  // one function makes every output: it is not one rule of several
      r.diags()
          .error(Code::WrongValueType, r.loc(item), "a Python fake is the whole of 'fake', not one of its rules")
          .notes.push_back({"write it as a mapping, `fake: {python: module:function}`: the function returns every output"});
      return;
    }
  }
  read_rules(r, node, spec.fake, "fake");
}

void read_autograd(Reader& r, const YAML::Node& node, OpSpec& spec) {
  const size_t errors_before = r.diags().error_count();
  if (!r.check_keys(node, kAutogradKeys, "'autograd'")) return;
  model::Autograd autograd;
  autograd.loc = r.loc(node);
  if (auto n = node["backward"]; n && r.expect_string(n, "backward")) {
    autograd.backward = {n.Scalar(), r.loc(n)};
    if (n.Scalar().empty())  // an op name, never empty (the emitters look the op up by it)
      r.diags().error(Code::AutogradWithoutBackward, r.loc(n), "'backward' is empty: name the backward op");
  } else if (!n && r.diags().error_count() == errors_before) {  // not after a misspelled 'backward'
    r.diags().error(Code::AutogradWithoutBackward, r.loc(node), "'autograd' needs a 'backward' op");
  }
  if (auto n = node["grads"]) autograd.grads = r.string_list(n, "grads");
  spec.autograd = std::move(autograd);
}

const std::vector<std::string> kCompileKeys = {"unsupported", "fallback"};
const std::vector<std::string> kCompileConditionKeys = {"when", "reason"};

// `compile: {unsupported: [{when: <Bool rule>, reason: <text>}], fallback:
// eager | error | {python: "module:function"}}`; the checker judges the rules.
void read_compile(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, kCompileKeys, "'compile'")) return;
  model::CompilePolicy policy;
  policy.loc = r.loc(node);
  if (auto list = node["unsupported"]) {
    if (!list.IsSequence()) {
      r.diags().error(Code::WrongValueType, r.loc(list), "'compile: unsupported' must be a list")
          .notes.push_back({"one item per condition: '- {when: \"x.dtype == float64\", reason: \"...\"}'"});
      return;
    }
    for (const auto& item : list) {
      if (!r.check_keys(item, kCompileConditionKeys, "a 'compile: unsupported' item")) continue;
      auto when = item["when"];
      auto reason = item["reason"];
      if (!when || !reason) {
        r.diags().error(Code::CompileConditionIncomplete, r.loc(item),
                        fmt::format("a 'compile: unsupported' item needs '{}'", !when ? "when" : "reason"))
            .notes.push_back({"'when' is a Bool rule over the arguments, 'reason' says why the compiled path cannot "
                              "take such a call"});
        continue;
      }
      auto rule = r.rule(when, "when");
      auto text = r.string_value(reason, "reason");
      if (!rule || !text) continue;
      if (auto why = uncarriable(*text, false)) {
        r.diags().error(Code::TextNotCarriable, r.loc(reason), "'reason' cannot be copied into generated code: " + *why);
        continue;
      }
      policy.unsupported.push_back({std::move(*rule), {*text, r.loc(reason)}});
    }
  }
  if (auto fallback = node["fallback"]) {
    if (fallback.IsMap()) {
      if (r.check_keys(fallback, {"python"}, "'compile: fallback'"))
        if (auto target = fallback["python"]; target && r.expect_string(target, "python"))
          policy.fallback_python = Located<std::string>{target.Scalar(), r.loc(target)};
      policy.fallback = {"python", r.loc(fallback)};
    } else if (auto text = r.string_value(fallback, "fallback")) {
      policy.fallback = {*text, r.loc(fallback)};
    }
  }
  spec.compile = std::move(policy);
}

const std::vector<std::string> kAutocastKeys = {"cast_inputs"};

// `autocast: {<device type>: {cast_inputs: <dtype>}}`; the checker judges
// the device types and dtypes.
void read_autocast(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'autocast'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    model::AutocastRule rule;
    rule.device = {entry.first.Scalar(), r.loc(entry.first)};
    rule.loc = r.loc(entry.second);
    const std::string what = fmt::format("'autocast: {}'", rule.device.value);
    if (!r.check_keys(entry.second, kAutocastKeys, what)) continue;
    if (auto n = entry.second["cast_inputs"]) {
      if (!r.expect_string(n, "cast_inputs")) continue;
      rule.cast_inputs = {n.Scalar(), r.loc(n)};
    } else {
      r.diags().error(Code::AutocastBadDtype, rule.loc, fmt::format("{} needs 'cast_inputs'", what))
          .notes.push_back({"name the dtype the op's floating-point inputs are cast to, e.g. 'cast_inputs: float32'"});
      continue;
    }
    spec.autocast.push_back(std::move(rule));
  }
}

// `kernels:` maps dispatch keys to existing functions; `include` names the
// headers that declare them. Which keys are dispatched, and whether the names
// are C++, is the checker's to say.
void read_kernels(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'kernels'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    const std::string key = entry.first.Scalar();
    if (key == "include") {
      spec.kernel_includes = r.string_list(entry.second, "kernels: include");
    } else if (auto function = r.string_value(entry.second, "kernels: " + key)) {
      spec.existing_kernels.push_back({{key, r.loc(entry.first)}, {*function, r.loc(entry.second)}});
    }
  }
}

const std::vector<std::string> kSampleKeys = {"args", "dims"};
const std::vector<std::string> kSampleTensorKeys = {"shape", "dtype", "device", "range"};

std::optional<model::SampleTensor> read_sample_tensor(Reader& r, const YAML::Node& node) {
  if (!r.check_keys(node, kSampleTensorKeys, "a sample tensor")) return std::nullopt;
  model::SampleTensor t;
  t.loc = r.loc(node);
  const YAML::Node shape = node["shape"];
  if (!shape || !shape.IsSequence()) {
    r.diags().error(Code::SampleShapeMismatch, shape ? r.loc(shape) : t.loc,
                    "a sample tensor needs a 'shape': a list of sizes or dim names");
    return std::nullopt;
  }
  for (const YAML::Node& dim : shape) {
    // A size, kept in decimal (so the checker and the emitters tell it from
    // a name by its first character), or a dim name.
    if (auto size = yaml_integer(dim); size && *size >= 0) {
      t.shape.push_back(std::to_string(*size));
    } else if (yaml_type(dim) == YamlType::String && model::is_identifier(dim.Scalar())) {
      t.shape.push_back(dim.Scalar());
    } else {
      r.wrong_type(dim, "shape entry", "a size (an integer, 0 or more) or a dim name");
      return std::nullopt;
    }
  }
  if (auto n = node["dtype"]; n && r.expect_string(n, "dtype")) t.dtype = n.Scalar();
  if (auto n = node["device"]; n && r.expect_string(n, "device")) t.device = n.Scalar();
  if (auto n = node["range"]) {
    std::optional<double> low, high;
    if (n.IsSequence() && n.size() == 2) {
      low = yaml_number(n[0]);
      high = yaml_number(n[1]);
    }
    if (low && high && *low < *high) {
      t.low = *low;
      t.high = *high;
    } else {
      r.diags().error(Code::SampleValueMismatch, r.loc(n), "'range' must be [low, high], two numbers with low < high");
    }
  }
  return t;
}

// One argument's sample value. Its meaning (a tensor, a list of tensors, a
// plain value) is checked against the schema by the checker.
std::optional<model::SampleValue> read_sample_value(Reader& r, const YAML::Node& node) {
  model::SampleValue v;
  v.loc = r.loc(node);
  if (node.IsNull()) {
    v.kind = model::SampleValue::Kind::None;
  } else if (node.IsMap()) {
    auto t = read_sample_tensor(r, node);
    if (!t) return std::nullopt;
    v.kind = model::SampleValue::Kind::Tensor;
    v.tensor = std::move(*t);
  } else if (node.IsSequence() && node.size() > 0 && node[0].IsMap()) {
    v.kind = model::SampleValue::Kind::TensorList;
    for (const YAML::Node& item : node) {
      auto t = item.IsMap() ? read_sample_tensor(r, item) : std::nullopt;
      if (!t) {
        if (!item.IsMap())
          r.diags().error(Code::WrongValueType, r.loc(item), "a list of sample tensors holds only mappings");
        return std::nullopt;
      }
      v.list.push_back(std::move(*t));
    }
  } else if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const YAML::Node& item : node) {
      const YamlType type = yaml_type(item);
      if (type != YamlType::Int && type != YamlType::Float && type != YamlType::Bool) {
        r.wrong_type(item, "sample list entry", "a number or a boolean");
        return std::nullopt;
      }
      items.push_back(canonical_scalar(item));
    }
    v.literal = fmt::format("[{}]", fmt::join(items, ", "));
  } else {
    v.string = yaml_type(node) == YamlType::String;
    v.literal = v.string ? node.Scalar() : canonical_scalar(node);
  }
  return v;
}

void read_samples(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!node.IsSequence()) {
    r.diags().error(Code::WrongValueType, r.loc(node), "'samples' must be a list of samples, each with 'args'");
    return;
  }
  spec.samples_given = true;
  for (const YAML::Node& item : node) {
    if (!r.check_keys(item, kSampleKeys, "a sample")) continue;
    model::Sample sample;
    sample.loc = r.loc(item);
    if (auto args = item["args"]; args && r.check_keys(args, {}, "a sample's 'args'")) {
      for (const auto& entry : args) {
        if (yaml_type(entry.first) != YamlType::String) continue;
        if (auto value = read_sample_value(r, entry.second))
          sample.args.emplace_back(Located<std::string>{entry.first.Scalar(), r.loc(entry.first)}, std::move(*value));
      }
    }
    if (auto dims = item["dims"]; dims && r.check_keys(dims, {}, "a sample's 'dims'")) {
      for (const auto& entry : dims) {
        if (yaml_type(entry.first) != YamlType::String) continue;
        if (!model::is_identifier(entry.first.Scalar())) {
          r.diags().error(Code::WrongValueType, r.loc(entry.first),
                          fmt::format("'{}' cannot name a dim: a dim's name is an identifier", entry.first.Scalar()));
          continue;
        }
        // A dim is a size: a negative one made the generated test build an impossible tensor.
        auto size = [](const YAML::Node& n) {
          auto v = yaml_integer(n);
          return v && *v >= 0 ? v : std::nullopt;
        };
        std::vector<int64_t> values;
        bool ok = true;
        if (entry.second.IsSequence()) {
          for (const YAML::Node& item : entry.second) {
            if (auto v = size(item))
              values.push_back(*v);
            else
              ok = false;
          }
        } else if (auto v = size(entry.second)) {
          values.push_back(*v);
        }
        if (ok && !values.empty())
          sample.dims.emplace_back(Located<std::string>{entry.first.Scalar(), r.loc(entry.first)}, values);
        else
          r.diags().error(Code::WrongValueType, r.loc(entry.second),
                          "a dim takes a size (an integer, 0 or more) or a non-empty list of sizes");
      }
    }
    spec.samples.push_back(std::move(sample));
  }
}

// The root of the second YAML document in `text`, if there is one. Throws
// YAML::ParserException where the parser is stuck (see DocumentRoots).
std::optional<YAML::Mark> second_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentRoots documents;
  while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
  }
  if (documents.starts.size() < 2) return std::nullopt;
  const YAML::Mark& stuck = documents.starts[1];
  if (stuck.pos == documents.starts[0].pos) {
    const size_t pos = static_cast<size_t>(stuck.pos);
    const bool printable = pos < text.size() && text[pos] > ' ' && text[pos] < 0x7f;
    throw YAML::ParserException(stuck, printable ? fmt::format("unexpected '{}'", text[pos]) : "unexpected character");
  }
  return documents.roots.size() > 1 ? documents.roots[1] : documents.starts[1];
}

struct KeyHandler {
  std::string key;
  std::function<void(Reader&, const YAML::Node&, OpSpec&)> read;
};

// Every top-level key, in documentation order (docs/spec.md).
const std::vector<KeyHandler>& key_handlers() {
  static const std::vector<KeyHandler> handlers = {
      {"schema", read_schema},
      {"doc",
       [](Reader& r, const YAML::Node& n, OpSpec& s) {
         s.doc = r.string_value(n, "doc").value_or("");
         std::string trimmed = s.doc;
         while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
         if (auto why = uncarriable(trimmed, true))
           r.diags().error(Code::TextNotCarriable, r.loc(n), "'doc' cannot be copied into generated code: " + *why);
       }},
      {"abi", read_abi},
      {"dispatch", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.dispatch = r.string_list(n, "dispatch"); }},
      {"kernels", read_kernels},
      {"tags", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.tags = r.string_list(n, "tags"); }},
      {"cudagraph",
       [](Reader& r, const YAML::Node& n, OpSpec& s) {
         if (auto text = r.string_value(n, "cudagraph")) s.cudagraph = Located<std::string>{*text, r.loc(n)};
       }},
      {"mutates", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.mutates = r.string_list(n, "mutates"); }},
      {"symm_mem", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.symm_mem = r.string_list(n, "symm_mem"); }},
      {"checks", read_checks},
      {"require", [](Reader& r, const YAML::Node& n, OpSpec& s) { read_rules(r, n, s.require, "require"); }},
      {"let", read_let},
      {"fake", read_fake},
      {"autograd", read_autograd},
      {"autocast", read_autocast},
      {"flops", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.flops = r.rule(n, "flops"); }},
      {"compile", read_compile},
      {"samples", read_samples},
  };
  return handlers;
}

}  // namespace

const std::vector<std::string>& spec_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& handler : key_handlers()) out.push_back(handler.key);
    return out;
  }();
  return keys;
}

std::optional<model::OpSpec> load_spec_text(const std::string& text, const std::string& display_path,
                                            Diagnostics& diags) {
  Reader r(text, display_path, diags);
  if (auto why = uncarriable(display_path, false)) {
    // The path is named in every generated file's header.
    diags.error(Code::TextNotCarriable, {display_path, 0, 0}, "the spec's path cannot be named in generated code: " + *why)
        .notes.push_back({"rename the file"});
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
    if (auto second = second_document(text)) {
      // YAML::Load reads the first and drops the rest without a word.
      diags.error(Code::SeveralYamlDocuments, r.loc(*second),
                  "a spec file holds one YAML document: a second one starts here")
          .notes.push_back({"put each op in a file of its own, named after it"});
      return std::nullopt;
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for it is "bad file".
    diags.error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid YAML: nested {} levels deep", e.depth()))
        .notes.push_back({"a spec needs a few levels; nothing in one nests this deep"});
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    diags.error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid YAML: {}", e.msg));
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    diags.error(Code::InvalidYaml, {display_path, 1, 1}, fmt::format("invalid YAML: {}", e.what()));
    return std::nullopt;
  }

  OpSpec spec;
  spec.display_path = display_path;
  spec.file_loc = {display_path, 0, 0};
  spec.stem = std::filesystem::path(display_path).stem().string();
  if (!root.IsMap()) {
    diags.error(Code::SpecNotMapping, {display_path, 1, 1},
                "a spec must be a YAML mapping with at least a 'schema' key");
    return std::nullopt;
  }
  size_t errors_before = diags.error_count();
  if (!r.check_keys(root, spec_keys(), "the spec")) return std::nullopt;
  try {
    for (const auto& handler : key_handlers())
      if (const YAML::Node node = root[handler.key]) handler.read(r, node, spec);
  } catch (const YAML::Exception& e) {
    diags.error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid spec: {}", e.msg));
    return std::nullopt;
  }
  if (!root["schema"]) {
    diags.error(Code::MissingSchemaKey, {display_path, 1, 1}, "missing required key 'schema'");
    return std::nullopt;
  }
  // The checker sees only specs that loaded cleanly, so it never reports a
  // consequence of an error already reported here.
  if (diags.error_count() > errors_before) return std::nullopt;
  return spec;
}

}  // namespace opgen::load
