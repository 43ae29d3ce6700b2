#include "check/samples.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "check/arguments.h"
#include "model/types.h"

namespace opgen::check {
namespace {

using model::Argument;
using model::OpSpec;

// A decimal integer within int64, as Python and C++ both read it.
std::optional<int64_t> parse_int64(std::string_view s) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (s.size() > 1 && (s[0] == '0' || (s[0] == '-' && s[1] == '0'))) return std::nullopt;  // Python rejects 007
  return value;
}

class SampleChecker {
 public:
  SampleChecker(const OpSpec& op, Diagnostics& diags) : op_(op), diags_(diags) {}

  void run() {
    if (op_.samples.empty()) return;  // check_library says which ops have none, in one line
    for (const auto& sample : op_.samples) {
      std::set<std::string> dims;
      std::optional<size_t> variants;
      for (const auto& [name, values] : sample.dims) {
        if (!dims.insert(name.value).second)
          error(Code::SampleShapeMismatch, name.loc, fmt::format("dim '{}' is given twice", name.value));
        if (variants && *variants != values.size())
          error(Code::SampleShapeMismatch, name.loc,
                fmt::format("dim '{}' has {} values but an earlier dim has {}: each variant takes one "
                            "value of every dim",
                            name.value, values.size(), *variants));
        variants = values.size();
      }
      std::set<std::string> given;
      for (const auto& [name, value] : sample.args) {
        const Argument* arg = find_arg(op_.schema, name.value);
        if (!arg) {
          report_unknown_argument(diags_, op_, name, "a sample");
          continue;
        }
        given.insert(name.value);
        check_sample_value(*arg, value, dims);
      }
      for (const Argument& a : op_.schema.arguments) {
        if (!given.count(a.name) && !a.default_value)
          error(Code::SampleMissingArgument, sample.loc,
                fmt::format("the sample gives no value for '{}', which has no default", a.name));
      }
    }
  }

 private:
  void check_sample_tensor(const model::SampleTensor& t, const std::set<std::string>& dims) {
    if (!model::find_dtype(t.dtype)) {
      auto& d = error(Code::UnknownDtype, t.loc, fmt::format("unknown dtype '{}' in a sample", t.dtype));
      if (auto guess = closest_match(t.dtype, model::dtype_names()); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    }
    const bool cuda_index = t.device.starts_with("cuda:") && parse_int64(t.device.substr(5)) &&
                            *parse_int64(t.device.substr(5)) >= 0;
    if (t.device != "cpu" && t.device != "cuda" && !cuda_index)
      error(Code::SampleValueMismatch, t.loc,
            fmt::format("sample device must be 'cpu', 'cuda' or 'cuda:<index>', not '{}'", t.device));
    if (!std::isfinite(t.low) || !std::isfinite(t.high))
      error(Code::SampleValueMismatch, t.loc, "a sample's 'range' must be finite");
    for (const auto& dim : t.shape) {
      const bool digits =
          !dim.empty() && std::all_of(dim.begin(), dim.end(), [](unsigned char c) { return std::isdigit(c); });
      if (digits && !parse_int64(dim)) {
        error(Code::SampleShapeMismatch, t.loc, fmt::format("shape entry '{}' is past the range of int64", dim));
        continue;
      }
      const bool number = digits;
      if (!number && !dims.count(dim))
        error(Code::SampleShapeMismatch, t.loc,
              fmt::format("shape entry '{}' is neither a size nor a dim of the sample's 'dims'", dim));
    }
  }

  // What a sample of a plain type is, in words.
  static std::string sample_kind(const std::string& base) {
    if (base == "int" || base == "SymInt") return "an integer within int64";
    if (base == "float") return "a finite number";
    if (base == "bool") return "true or false";
    if (base == "str") return "a string";
    if (base == "ScalarType") return "a dtype name such as float32";
    if (base == "int[]" || base == "SymInt[]") return "a list of integers within int64";
    if (base == "float[]") return "a list of finite numbers";
    return "a type samples support (tensors, int, float, bool, str, ScalarType, int[], float[])";
  }

  void check_sample_value(const Argument& arg, const model::SampleValue& value, const std::set<std::string>& dims) {
    using Kind = model::SampleValue::Kind;
    const std::string key = model::type_key(*arg.type);
    auto mismatch = [&](const std::string& want) {
      error(Code::SampleValueMismatch, value.loc,
            fmt::format("sample value for '{}' ({}) must be {}", arg.name, key, want));
    };
    if (key == "Tensor" || key == "Tensor?") {
      if (value.kind == Kind::Tensor) return check_sample_tensor(value.tensor, dims);
      if (value.kind == Kind::None && key == "Tensor?") return;
      return mismatch(key == "Tensor" ? "a tensor: {shape: [...], dtype: ...}" : "a tensor or null");
    }
    if (key == "Tensor[][]") {
      if (value.kind == Kind::TensorLists) {
        for (const auto& list : value.lists)
          for (const auto& t : list) check_sample_tensor(t, dims);
        return;
      }
      if (value.kind == Kind::Literal && value.literal == "[]") return;
      return mismatch("a list of tensor lists: [[{shape: [...]}, ...], ...]");
    }
    if (key == "Tensor[]") {
      if (value.kind == Kind::TensorList) {
        for (const auto& t : value.list) check_sample_tensor(t, dims);
        return;
      }
      if (value.kind == Kind::Literal && value.literal == "[]") return;
      return mismatch("a list of tensors");
    }
    if (value.kind == Kind::None) {
      if (key.back() == '?') return;
      return mismatch("a value, not null");
    }
    if (value.kind != Kind::Literal) return mismatch("a plain value");
    const std::string& text = value.literal;
    // The text goes into the generated test as Python source: only forms
    // that mean the same number there, within int64 and finite.
    auto is_int = [](std::string_view s) { return parse_int64(s).has_value(); };
    auto is_float = [](std::string_view s) {
      double d = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      return !s.empty() && ec == std::errc() && end == s.data() + s.size() && std::isfinite(d);
    };
    auto all_items = [&](const auto& is_item) {
      if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
      const std::string_view inner = std::string_view(text).substr(1, text.size() - 2);
      if (inner.empty()) return true;
      for (size_t start = 0;;) {
        const size_t comma = inner.find(", ", start);
        if (!is_item(inner.substr(start, comma == std::string_view::npos ? comma : comma - start))) return false;
        if (comma == std::string_view::npos) return true;
        start = comma + 2;
      }
    };
    const std::string base = key.back() == '?' ? key.substr(0, key.size() - 1) : key;
    // A YAML string is a str's or a dtype's value, never a number's: `"3"` is no int.
    const bool wants_string = base == "str" || base == "ScalarType";
    if (value.string && !wants_string) return mismatch(fmt::format("{}, not a string", sample_kind(base)));
    if (!value.string && wants_string)
      return mismatch(fmt::format("{}, not `{}` (a string is quoted: \"{}\")", sample_kind(base), text, text));
    bool ok = base == "str";
    if (base == "int" || base == "SymInt") ok = is_int(text);
    else if (base == "float") ok = is_float(text);
    else if (base == "bool") ok = text == "true" || text == "false";
    else if (base == "ScalarType") ok = model::find_dtype(text) != nullptr;
    else if (base == "int[]" || base == "SymInt[]") ok = all_items(is_int);
    else if (base == "float[]") ok = all_items(is_float);
    if (!ok) mismatch(sample_kind(base));
  }

  // Type-checks a rule; reports its problems at their columns.

  Diagnostic& error(Code code, const SourceLoc& loc, std::string message) {
    return diags_.error(code, loc, std::move(message));
  }

  const OpSpec& op_;
  Diagnostics& diags_;
};

}  // namespace

void check_samples(const model::OpSpec& op, Diagnostics& diags) { SampleChecker(op, diags).run(); }

// One warning for every op without samples (`samples: []` says none on
// purpose): a project of 132 such ops got 132 lines on every run.
void warn_about_missing_samples(const model::Library& library, Diagnostics& diags) {
  std::vector<const OpSpec*> missing;
  for (const OpSpec& op : library.ops)
    if (op.samples.empty() && !op.samples_given) missing.push_back(&op);
  if (missing.empty()) return;
  if (missing.size() == 1) {
    diags.warning(Code::NoSamples, missing[0]->schema_text.loc,
                  fmt::format("{} has no 'samples': the generated test suite skips it", missing[0]->op_name()));
    return;
  }
  constexpr size_t kNamed = 6;
  std::vector<std::string> names;
  for (size_t i = 0; i < missing.size() && i < kNamed; ++i) names.push_back(missing[i]->op_name());
  const std::string more = missing.size() > kNamed ? fmt::format(" and {} more", missing.size() - kNamed) : "";
  diags.warning(Code::NoSamples, missing[0]->schema_text.loc,
                fmt::format("{} ops have no 'samples' ({}{}): the generated test suite skips them", missing.size(),
                            fmt::join(names, ", "), more))
      .notes.push_back({"give each op samples, or 'samples: []' where it can have none"});
}

}  // namespace opgen::check
