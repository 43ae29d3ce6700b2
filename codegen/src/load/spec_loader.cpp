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
#include "load/yaml_reader.h"

namespace opgen::load {
namespace {

using model::Located;
using model::OpSpec;
using model::RuleText;

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

}  // namespace

const std::vector<std::string>& check_keys() {
  static const std::vector<std::string> keys = {"dtype", "same_dtype", "same_device", "dim", "contiguous"};
  return keys;
}

const std::vector<std::string>& autograd_keys() {
  static const std::vector<std::string> keys = {"backward", "grads", "bind"};
  return keys;
}

namespace {

const std::vector<std::string>& kCheckKeys = check_keys();
const std::vector<std::string>& kAutogradKeys = autograd_keys();
const std::vector<std::string> kFakeKeys = {"python", "meta", "decomposes"};

void read_schema(Reader& r, const YAML::Node& node, OpSpec& spec) {
  auto text = r.string_value(node, "schema");
  if (!text) return;
  spec.schema_text = {*text, r.loc(node)};
  auto [start, exact] = r.value_start(node);
  spec.schema_value_loc = start;
  spec.schema_columns_exact = exact;
  model::ParseOptions options;
  options.host_classes = r.host_classes;
  auto parsed = model::parse_schema(*text, options);
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
    if (!r.check_keys(node, kFakeKeys, "'fake'")) return;
    if ((node["python"] ? 1 : 0) + (node["meta"] ? 1 : 0) + (node["decomposes"] ? 1 : 0) > 1) {
      r.diags()
          .error(Code::WrongValueType, r.loc(node),
                 "'fake' is one of a Python function, a Meta kernel or a decomposing kernel, not two")
          .notes.push_back({"keep one: fake tensors run a Meta kernel, or the kernel of an op that decomposes, and "
                            "torch 2.11 refuses a fake beside either"});
      return;
    }
    if (auto n = node["python"]; n && r.expect_string(n, "python"))
      spec.fake_python = Located<std::string>{n.Scalar(), r.loc(n)};
    if (auto n = node["meta"]; n && r.expect_string(n, "meta")) {
      if (n.Scalar().empty())
        r.diags()
            .error(Code::WrongValueType, r.loc(n), "'fake: {meta: ...}' names where its Meta kernel is registered")
            .notes.push_back({"e.g. `fake: {meta: \"csrc/ops_meta.cpp:40\"}`"});
      else
        spec.fake_meta = Located<std::string>{n.Scalar(), r.loc(n)};
    }
    if (auto n = node["decomposes"]; n && r.expect_string(n, "decomposes")) {
      if (n.Scalar().empty())
        r.diags()
            .error(Code::WrongValueType, r.loc(n),
                   "'fake: {decomposes: ...}' names where its CompositeImplicitAutograd kernel is registered")
            .notes.push_back({"e.g. `fake: {decomposes: \"csrc/nvcc_info.cu:14\"}`"});
      else
        spec.fake_decomposes = Located<std::string>{n.Scalar(), r.loc(n)};
    }
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
  if (auto n = node["bind"]; n && r.check_keys(n, {}, "'bind'")) {
    for (const auto& entry : n) {
      if (yaml_type(entry.first) != YamlType::String) continue;
      if (auto rule = r.rule(entry.second, "bind"))
        autograd.bind.push_back({{entry.first.Scalar(), r.loc(entry.first)}, std::move(*rule)});
    }
  }
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

// `result_meta: {<return>: {<field>: <rule>}}`: a tensor-subclass result's
// metadata. Which returns are subclasses, and their fields, is the checker's.
void read_result_meta(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'result_meta'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    model::ResultMeta meta;
    meta.result = {entry.first.Scalar(), r.loc(entry.first)};
    meta.loc = r.loc(entry.second);
    const std::string what = fmt::format("'result_meta: {}'", meta.result.value);
    if (!r.check_keys(entry.second, {}, what)) continue;
    for (const auto& field : entry.second) {
      if (yaml_type(field.first) != YamlType::String) continue;
      auto rule = r.rule(field.second, fmt::format("{}.{}", what, field.first.Scalar()));
      if (rule) meta.fields.push_back({{field.first.Scalar(), r.loc(field.first)}, std::move(*rule)});
    }
    spec.result_meta.push_back(std::move(meta));
  }
}

// `kernels:` maps dispatch keys to existing functions, or to Python
// functions (`{python: "module:function"}`); `include` names the headers that
// declare the C++ ones. Which keys are dispatched, and whether the names
// are C++, is the checker's to say.
void read_kernels(Reader& r, const YAML::Node& node, OpSpec& spec) {
  if (!r.check_keys(node, {}, "'kernels'")) return;
  for (const auto& entry : node) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    const std::string key = entry.first.Scalar();
    if (key == "include") {
      spec.kernel_includes = r.string_list(entry.second, "kernels: include");
    } else if (entry.second.IsMap()) {  // {python: "module:function"}
      if (!r.check_keys(entry.second, {"python"}, fmt::format("'kernels: {}'", key))) continue;
      if (auto n = entry.second["python"]; !n)  // `CUDA: {}` bound nothing, without a word
        r.diags().error(Code::WrongValueType, r.loc(entry.second),
                        fmt::format("'kernels: {}' as a mapping takes 'python: \"module:function\"'", key));
      else if (r.expect_string(n, "python"))
        spec.python_kernels.push_back({{key, r.loc(entry.first)}, {n.Scalar(), r.loc(n)}});
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
// A YAML list of sample tensors (a Tensor[] argument's, or one list of a Tensor[][]'s).
std::optional<std::vector<model::SampleTensor>> read_sample_tensors(Reader& r, const YAML::Node& list) {
  std::vector<model::SampleTensor> tensors;
  for (const YAML::Node& item : list) {
    auto t = item.IsMap() ? read_sample_tensor(r, item) : std::nullopt;
    if (!t) {
      if (!item.IsMap())
        r.diags().error(Code::WrongValueType, r.loc(item), "a list of sample tensors holds only mappings");
      return std::nullopt;
    }
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

std::optional<model::SampleValue> read_sample_value(Reader& r, const YAML::Node& node) {
  model::SampleValue v;
  v.loc = r.loc(node);
  if (node.IsNull()) {
    v.kind = model::SampleValue::Kind::None;
  } else if (node.IsMap() && node["fields"]) {  // a host object: its declared fields
    if (!r.check_keys(node, {"fields"}, "a host object's sample") ||
        !r.check_keys(node["fields"], {}, "a host object's 'fields'"))
      return std::nullopt;
    v.kind = model::SampleValue::Kind::HostObject;
    for (const auto& entry : node["fields"]) {
      if (yaml_type(entry.first) != YamlType::String) continue;
      if (entry.second.IsMap() && entry.second["fields"]) {
        r.diags().error(Code::SampleValueMismatch, r.loc(entry.second), "a host object's field is no host object");
        return std::nullopt;
      }
      auto field = read_sample_value(r, entry.second);
      if (!field) return std::nullopt;
      v.fields.push_back({Located<std::string>{entry.first.Scalar(), r.loc(entry.first)}, std::move(*field)});
    }
  } else if (node.IsMap()) {
    auto t = read_sample_tensor(r, node);
    if (!t) return std::nullopt;
    v.kind = model::SampleValue::Kind::Tensor;
    v.tensor = std::move(*t);
  } else if (node.IsSequence() && node.size() > 0 && node[0].IsSequence() &&
             (node[0].size() == 0 || node[0][0].IsMap())) {
    // [[{shape: ...}, ...], [...]]: a Tensor[][] argument's lists.
    v.kind = model::SampleValue::Kind::TensorLists;
    for (const YAML::Node& inner : node) {
      if (!inner.IsSequence()) {
        r.diags().error(Code::WrongValueType, r.loc(inner), "a list of tensor lists holds only lists");
        return std::nullopt;
      }
      auto list = read_sample_tensors(r, inner);
      if (!list) return std::nullopt;
      v.lists.push_back(std::move(*list));
    }
  } else if (node.IsSequence() && node.size() > 0 && node[0].IsMap()) {
    v.kind = model::SampleValue::Kind::TensorList;
    auto list = read_sample_tensors(r, node);
    if (!list) return std::nullopt;
    v.list = std::move(*list);
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
      {"dispatch", [](Reader& r, const YAML::Node& n, OpSpec& s) {
         s.dispatch = r.string_list(n, "dispatch");
         s.dispatch_written = true;
       }},
      {"kernels", read_kernels},
      {"tags", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.tags = r.string_list(n, "tags"); }},
      {"cudagraph",
       [](Reader& r, const YAML::Node& n, OpSpec& s) {
         if (auto text = r.string_value(n, "cudagraph")) s.cudagraph = Located<std::string>{*text, r.loc(n)};
       }},
      {"define",
       [](Reader& r, const YAML::Node& n, OpSpec& s) {
         if (auto text = r.string_value(n, "define")) s.define = Located<std::string>{*text, r.loc(n)};
       }},
      {"mutates", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.mutates = r.string_list(n, "mutates"); }},
      {"carry", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.carry = r.string_list(n, "carry"); }},
      {"symm_mem", [](Reader& r, const YAML::Node& n, OpSpec& s) { s.symm_mem = r.string_list(n, "symm_mem"); }},
      {"checks", read_checks},
      {"require", [](Reader& r, const YAML::Node& n, OpSpec& s) { read_rules(r, n, s.require, "require"); }},
      {"let", read_let},
      {"fake", read_fake},
      {"result_meta", read_result_meta},
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
                                            Diagnostics& diags, const std::vector<std::string>& host_classes) {
  Reader r(text, display_path, diags);
  r.host_classes = host_classes;
  if (auto why = uncarriable(display_path, false)) {
    // The path is named in every generated file's header.
    diags.error(Code::TextNotCarriable, {display_path, 0, 0}, "the spec's path cannot be named in generated code: " + *why)
        .notes.push_back({"rename the file"});
    return std::nullopt;
  }
  auto document = load_document(r, text, "a spec file", "put each op in a file of its own, named after it");
  if (!document) return std::nullopt;
  const YAML::Node root = *document;

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
