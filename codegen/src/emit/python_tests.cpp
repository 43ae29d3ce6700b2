// tests/test_<pkg>_ops.py: the generated test suite. For every op and every
// sample of its spec: opcheck, torch.compile(fullgraph=True) with static and
// dynamic shapes (no graph break, no recompilation beyond the expected),
// fake vs real outputs, the declared input checks as negative tests, and
// gradcheck where the op has autograd and takes float64, the autocast rules
// (the dtypes the kernel sees under torch.autocast) and the FLOP formula
// (FlopCounterMode's count against opgen's own evaluation of the rule).
#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "model/expr_eval.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

// The suite's fixed part. The checks themselves live in opgen.testing (the
// tool's Python package), so a suite holds only what its specs say.
constexpr const char* kPrologue = R"py(
"""Generated tests of the $ns$ ops, from the `samples` of their specs.

Run with pytest; `$pkg$` and opgen (whose `opgen.testing` runs the checks)
must be importable. Each case is an op, a sample, and the sizes its named
dims take.
"""

import pytest
import torch

import $pkg$  # noqa: F401  (registers the ops)
from opgen import testing as _testing
from opgen.testing import Case as _Case
from opgen.testing import tensor as _tensor

_testing.require_contract($contract$)
)py";

// The opgen.testing CONTRACT this emitter writes suites for (python/opgen/testing.py).
constexpr int kTestingContract = 3;

std::string python_literal(const model::Argument& arg, const std::string& text) {
  const std::string key = model::type_key(*arg.type);
  const std::string base = key.back() == '?' ? key.substr(0, key.size() - 1) : key;
  if (base == "bool") return text == "true" ? "True" : "False";
  if (base == "str") return python_string_literal(text);
  if (base == "ScalarType") return std::string(model::find_dtype(text)->python);
  return text;
}

std::string tensor_expr(const model::SampleTensor& t) {
  std::vector<std::string> dims;
  for (const auto& d : t.shape) dims.push_back(std::isdigit(static_cast<unsigned char>(d[0])) ? d : "d[\"" + d + "\"]");
  return fmt::format("_tensor(({}{}), {}, \"{}\", {}, {})", fmt::join(dims, ", "), dims.size() == 1 ? "," : "",
                     model::find_dtype(t.dtype)->python, t.device, t.low, t.high);
}

std::string value_expr(const model::Argument& arg, const model::SampleValue& v) {
  using Kind = model::SampleValue::Kind;
  switch (v.kind) {
    case Kind::None: return "None";
    case Kind::Tensor: return tensor_expr(v.tensor);
    case Kind::TensorList: {
      std::vector<std::string> items;
      for (const auto& t : v.list) items.push_back(tensor_expr(t));
      return fmt::format("[{}]", fmt::join(items, ", "));
    }
    case Kind::TensorLists: {
      std::vector<std::string> lists;
      for (const auto& list : v.lists) {
        std::vector<std::string> items;
        for (const auto& t : list) items.push_back(tensor_expr(t));
        lists.push_back(fmt::format("[{}]", fmt::join(items, ", ")));
      }
      return fmt::format("[{}]", fmt::join(lists, ", "));
    }
    case Kind::Literal: return python_literal(arg, v.literal);
    case Kind::HostObject: break;  // lowered into its fields' samples (check/host_objects.h)
  }
  return "None";
}

// "[{"N": 4}, {"N": 9}]": the sizes a sample runs at (one empty dict when it
// names no dims).
std::string sizes_expr(const model::Sample& sample) {
  size_t variants = sample.dims.empty() ? 1 : sample.dims.front().second.size();
  std::vector<std::string> dicts;
  for (size_t i = 0; i < variants; ++i) {
    std::vector<std::string> entries;
    for (const auto& [name, values] : sample.dims) entries.push_back(fmt::format("\"{}\": {}", name.value, values.at(i)));
    dicts.push_back(fmt::format("{{{}}}", fmt::join(entries, ", ")));
  }
  return fmt::format("[{}]", fmt::join(dicts, ", "));
}

const model::SampleValue* sample_value(const model::Sample& sample, const std::string& name) {
  for (const auto& [arg, value] : sample.args)
    if (arg.value == name) return &value;
  return nullptr;
}

// A carried object of a sample (`carry:`): its class called with the fields
// the sample gives (`Class(field=value, ...)`), None when an optional
// one is not given; nullopt when the sample leaves it out.
std::optional<std::string> carried_object_expr(const model::Library& lib, const model::OpSpec& op,
                                               const model::HostArgument& host, const model::Sample& sample) {
  if (host.optional) {
    const auto* given = sample_value(sample, host.given_name());
    if (!given) return std::nullopt;
    if (given->literal == "false") return std::string("None");
  }
  std::vector<std::string> fields;
  for (const auto& field : lib.host_class(host.cls)->fields) {
    const std::string flat = host.field_name(field);
    const auto* v = sample_value(sample, flat);
    if (!v) continue;
    for (const auto& a : op.schema.arguments)
      if (a.name == flat) fields.push_back(fmt::format("{}={}", field.name.value, value_expr(a, *v)));
  }
  if (fields.empty() && !host.optional) return std::nullopt;
  return fmt::format("{}({})", host.carried_type.substr(host.carried_type.rfind('.') + 1), fmt::join(fields, ", "));
}

// "from mylib.gemm import GemmRunner": what a sample's carried objects need.
std::vector<std::string> carried_imports(const model::OpSpec& op) {
  std::set<std::string> lines;
  for (const auto& host : op.host_args) {
    if (!host.carry) continue;
    const size_t dot = host.carried_type.rfind('.');
    lines.insert(fmt::format("from {} import {}", host.carried_type.substr(0, dot), host.carried_type.substr(dot + 1)));
  }
  return {lines.begin(), lines.end()};
}

// Where each output's fake comes from, for a fake-vs-real failure to name.
std::vector<std::string> fake_sources(const model::OpSpec& op) {
  std::vector<std::string> sources;
  if (op.fake_python) {
    for (size_t i = 0; i < op.schema.returns.size(); ++i)
      sources.push_back(fmt::format("{}: the handwritten fake {}", op.fake_python->loc.to_string(),
                                    op.fake_python->value));
    return sources;
  }
  const auto rules = fake_rule_of_each_result(op);
  for (size_t i = 0; i < op.schema.returns.size(); ++i) {
    const auto& ret = op.schema.returns[i];
    if (const model::Argument* bound = model::bound_argument(op.schema, ret)) {
      sources.push_back(fmt::format("the argument '{}' itself (the op writes into it and returns it)", bound->name));
    } else if (rules[i]) {
      std::string source = fmt::format("{}: {}", rules[i]->loc.to_string(), rules[i]->text);
      if (const model::Argument* aliased = model::aliased_argument(op.schema, ret))
        source += fmt::format(" (when '{}' is None; otherwise '{}' itself)", aliased->name, aliased->name);
      sources.push_back(source);
    }
  }
  return sources;
}

struct CaseLists {
  std::vector<std::string> cases, input_checks, gradchecks, autocasts, flops;
};

std::optional<int64_t> parse_int(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A sample tensor's shape at one set of dim sizes.
model::EvalTensor eval_tensor(const model::SampleTensor& t, const std::map<std::string, int64_t>& dims) {
  model::EvalTensor out{{}, t.dtype};
  for (const auto& d : t.shape) {
    if (auto it = dims.find(d); it != dims.end()) out.shape.push_back(it->second);
    else out.shape.push_back(parse_int(d).value_or(0));
  }
  return out;
}

// An argument's value as a literal (a sample's YAML scalar or the schema's
// default), for the rule evaluator; nullopt where rules cannot read it.
std::optional<model::EvalValue> eval_literal(const model::Argument& arg, const std::string& text, bool from_default) {
  const std::string key = model::type_key(*arg.type);
  const std::string base = key.back() == '?' ? key.substr(0, key.size() - 1) : key;
  if (text == "None") return model::EvalValue{model::EvalNone{}};
  if (base == "int" || base == "SymInt") {
    if (auto v = parse_int(text)) return model::EvalValue{*v};
  } else if (base == "float") {
    return model::EvalValue{std::strtod(text.c_str(), nullptr)};
  } else if (base == "bool") {
    return model::EvalValue{text == (from_default ? "True" : "true")};
  } else if (base == "str") {
    return model::EvalValue{text};
  } else if (base == "ScalarType") {
    if (model::find_dtype(text)) return model::EvalValue{model::EvalDType{text}};
  } else if (base == "int[]" || base == "SymInt[]") {
    model::EvalShape shape;
    std::string items = text.size() >= 2 ? text.substr(1, text.size() - 2) : "";
    std::replace(items.begin(), items.end(), ',', ' ');
    std::istringstream in(items);
    for (std::string item; in >> item;) {
      auto v = parse_int(item);
      if (!v) return std::nullopt;
      shape.sizes.push_back(*v);
    }
    return model::EvalValue{shape};
  }
  return std::nullopt;
}

// What the op's `flops` rule counts for one sample at each of its sizes,
// computed here from the spec (not by the formula the suite tests): nullopt
// where the evaluator cannot (an argument it cannot read).
std::vector<std::optional<int64_t>> expected_flops(const model::OpSpec& op, const model::Sample& sample) {
  std::vector<std::optional<int64_t>> counts;
  const size_t variants = sample.dims.empty() ? 1 : sample.dims.front().second.size();
  for (size_t i = 0; i < variants; ++i) {
    std::map<std::string, int64_t> dims;
    for (const auto& [name, values] : sample.dims) dims[name.value] = values.at(i);
    model::EvalBindings bindings;
    for (const auto& arg : op.schema.arguments) {
      const model::SampleValue* v = nullptr;
      for (const auto& [name, value] : sample.args)
        if (name.value == arg.name) v = &value;
      std::optional<model::EvalValue> value;
      if (v && v->kind == model::SampleValue::Kind::Tensor) {
        value = model::EvalValue{eval_tensor(v->tensor, dims)};
      } else if (v && v->kind == model::SampleValue::Kind::TensorList) {
        std::vector<model::EvalTensor> list;
        for (const auto& t : v->list) list.push_back(eval_tensor(t, dims));
        value = model::EvalValue{std::move(list)};
      } else if (v && v->kind == model::SampleValue::Kind::TensorLists) {
        // Rules have no value for a nested list: a rule naming one is not evaluated here.
      } else if (v && v->kind == model::SampleValue::Kind::None) {
        value = model::EvalValue{model::EvalNone{}};
      } else if (v && v->literal == "[]" && model::type_key(*arg.type) == "Tensor[]") {
        value = model::EvalValue{std::vector<model::EvalTensor>{}};  // `extras: []` reads as a literal
      } else if (v) {
        value = eval_literal(arg, v->literal, false);
      } else if (arg.default_value) {
        const auto& d = *arg.default_value;
        const bool string = d.kind == model::DefaultValue::Kind::String;
        value = eval_literal(arg, string ? d.value : d.to_python(), true);
      }
      if (value) bindings.emplace(arg.name, std::move(*value));
    }
    counts.push_back(model::evaluate_int(*op.flops->expr, bindings));
  }
  return counts;
}

void emit_op_cases(Printer& p, const model::Library& lib, const model::OpSpec& op, CaseLists& lists) {
  const auto& s = op.schema;
  const std::string op_expr = fmt::format("torch.ops.{}.{}.{}", lib.ns, s.name.name,
                                          s.name.overload.empty() ? "default" : s.name.overload);
  const std::string id = op_identifier(op);
  // Backward arguments that take a gradient name the differentiable outputs.
  std::vector<size_t> differentiable_outputs;
  if (op.autograd) {
    if (const auto* bwd = lib.find(op.autograd->backward.value)) {
      std::set<size_t> outs;
      for (const auto& a : bwd->schema.arguments)
        if (auto i = gradient_of_output(s, a.name)) outs.insert(*i);
      differentiable_outputs.assign(outs.begin(), outs.end());
    }
  }
  // The op is called with its registered arguments: a carried object whole.
  const model::FunctionSchema registered = op.registered_schema();
  for (size_t n = 0; n < op.samples.size(); ++n) {
    const auto& sample = op.samples[n];
    const std::string make = fmt::format("_make_{}_{}", id, n);
    std::vector<std::optional<std::string>> given;  // each registered argument's value, if the sample gives one
    for (const auto& a : registered.arguments) {
      auto host = std::find_if(op.host_args.begin(), op.host_args.end(),
                               [&](const model::HostArgument& h) { return h.carry && h.name == a.name; });
      const auto* v = sample_value(sample, a.name);
      if (host != op.host_args.end())
        given.push_back(carried_object_expr(lib, op, *host, sample));
      else
        given.push_back(v ? std::optional<std::string>(value_expr(a, *v)) : std::nullopt);
    }
    // Positional arguments up to the last one the sample gives; earlier ones
    // it leaves out take their defaults. Keyword-only ones go by name.
    size_t last_positional = 0;
    for (size_t i = 0; i < registered.arguments.size(); ++i)
      if (!registered.arguments[i].kwarg_only && given[i]) last_positional = i + 1;
    std::vector<std::string> args, kwargs;
    std::map<std::string, std::string> where;  // argument -> index or quoted name
    for (size_t i = 0; i < registered.arguments.size(); ++i) {
      const auto& a = registered.arguments[i];
      if (a.kwarg_only) {
        if (given[i]) kwargs.push_back(fmt::format("\"{}\": {}", a.name, *given[i]));
        if (given[i]) where[a.name] = "\"" + a.name + "\"";
      } else if (i < last_positional) {
        args.push_back(given[i] ? *given[i] : a.default_value->to_python());
        where[a.name] = std::to_string(args.size() - 1);
      }
    }
    const std::string sizes = sizes_expr(sample);
    const std::string case_id = fmt::format("{}-{}", op.op_name(), n);
    const std::string case_var = fmt::format("_case_{}_{}", id, n);
    std::vector<std::string> fakes;
    for (const auto& source : fake_sources(op)) fakes.push_back(python_string_literal(source));
    p.line();
    p.line();
    p.line(fmt::format("def {}(d):", make));
    for (const auto& line : carried_imports(op)) p.line("    " + line);
    p.line(fmt::format("    return ({}{}), {{{}}}", fmt::join(args, ", "), args.size() == 1 ? "," : "",
                       fmt::join(kwargs, ", ")));
    p.line();
    p.line();
    std::string eager_only = op.eager_only.empty() ? "" : ", eager_only=" + python_string_literal(op.eager_only);
    // A fake reading a carried object's fields needs PyTorch >= 2.11 to trace.
    if (eager_only.empty() && std::any_of(op.host_args.begin(), op.host_args.end(), [&](const auto& host) {
          return host.carry && !traced_fields(lib, op, host).empty();
        }))
      eager_only = ", eager_only=_testing.untraceable_carried_fields()";
    p.line(fmt::format("{} = _Case({}, \"{}\", {}, {}, differentiable={}, fakes=[{}], name=\"{}\"{})", case_var,
                       op_expr, qualified_name(lib, op), make, sizes, op.autograd ? "True" : "False",
                       fmt::join(fakes, ", "), case_id, eager_only));
    lists.cases.push_back(fmt::format("pytest.param({}, id=\"{}\")", case_var, case_id));
    for (const auto& rule : op.autocast)
      lists.autocasts.push_back(fmt::format("pytest.param({}, \"{}\", {}, id=\"{}-{}\")", case_var, rule.device.value,
                                            model::find_dtype(rule.cast_inputs.value)->python, case_id,
                                            rule.device.value));
    if (op.flops) {
      std::vector<std::string> counts;
      for (const auto& count : expected_flops(op, sample)) counts.push_back(count ? std::to_string(*count) : "None");
      lists.flops.push_back(fmt::format("pytest.param({}, [{}], id=\"{}\")", case_var, fmt::join(counts, ", "), case_id));
    }
    for (const auto& check : op.checks) {
      const auto* v = sample_value(sample, check.arg.value);
      if (!v || v->kind != model::SampleValue::Kind::Tensor || !where.count(check.arg.value)) continue;
      std::vector<std::pair<std::string, std::string>> kinds;
      if (!check.dtypes.empty()) {
        std::vector<std::string> allowed;
        for (const auto& d : check.dtypes) allowed.push_back(python_string_literal(d.value));
        kinds.emplace_back("dtype", fmt::format("[{}]", fmt::join(allowed, ", ")));
      }
      if (check.dim) kinds.emplace_back("dim", "[]");
      if (check.contiguous) kinds.emplace_back("contiguous", "[]");
      if (check.same_dtype_as) kinds.emplace_back("same_dtype", "[]");
      if (check.same_device_as) kinds.emplace_back("same_device", "[]");
      for (const auto& [kind, allowed] : kinds) {
        lists.input_checks.push_back(fmt::format("pytest.param({}, {}, \"{}\", \"{}\", {}, id=\"{}-{}-{}\")",
                                                 case_var, where[check.arg.value], check.arg.value, kind, allowed,
                                                 case_id, check.arg.value, kind));
      }
    }
    if (!differentiable_outputs.empty()) {
      // gradcheck needs float64: only where the op's dtype checks allow it.
      bool takes_float64 = true;
      for (const auto& check : op.checks) {
        if (check.dtypes.empty()) continue;
        takes_float64 &= std::any_of(check.dtypes.begin(), check.dtypes.end(),
                                     [](const auto& d) { return d.value == "float64"; });
      }
      std::vector<std::string> inputs;
      for (const auto& g : op.autograd->grads) {
        auto it = where.find(g.value);
        const auto* v = sample_value(sample, g.value);
        if (it != where.end() && v && v->kind == model::SampleValue::Kind::Tensor && it->second[0] != '"')
          inputs.push_back(it->second);
      }
      if (takes_float64 && !inputs.empty()) {
        std::vector<std::string> outs;
        for (size_t o : differentiable_outputs) outs.push_back(std::to_string(o));
        lists.gradchecks.push_back(fmt::format("pytest.param({}, [{}], [{}], id=\"{}\")", case_var,
                                               fmt::join(inputs, ", "), fmt::join(outs, ", "), case_id));
      }
    }
  }
}

void emit_list(Printer& p, const std::string& name, const std::vector<std::string>& items) {
  p.line();
  p.line();
  if (items.empty()) {
    p.line(name + " = []");
    return;
  }
  p.line(name + " = [");
  for (const auto& item : items) p.line("    " + item + ",");
  p.line("]");
}

}  // namespace

std::string python_tests_path(const model::Library& lib) { return fmt::format("tests/test_{}_ops.py", lib.python_package); }

std::string python_tests(const model::Library& lib) {
  Printer p;
  p.emit(generated_header("#", lib));
  p.emit(kPrologue, {{"ns", lib.ns}, {"pkg", lib.python_package}, {"contract", std::to_string(kTestingContract)}});
  CaseLists lists;
  for (const auto& op : lib.ops) emit_op_cases(p, lib, op, lists);
  emit_list(p, "_CASES", lists.cases);
  emit_list(p, "_INPUT_CHECKS", lists.input_checks);
  emit_list(p, "_GRADCHECKS", lists.gradchecks);
  emit_list(p, "_AUTOCASTS", lists.autocasts);
  emit_list(p, "_FLOPS", lists.flops);
  p.emit(R"py(

@pytest.mark.parametrize("case", _CASES)
def test_opcheck(case):
    _testing.check_opcheck(case)


@pytest.mark.parametrize("case", _CASES)
def test_compile_static(case):
    _testing.check_compile(case, dynamic=False)


@pytest.mark.parametrize("case", _CASES)
def test_compile_dynamic(case):
    _testing.check_compile(case, dynamic=True)


@pytest.mark.parametrize("case", _CASES)
def test_fake_matches_real(case):
    _testing.check_fake_matches_real(case)


@pytest.mark.parametrize("case, where, name, check, allowed", _INPUT_CHECKS)
def test_input_check(case, where, name, check, allowed):
    _testing.check_input_check(case, where, name, check, allowed)


@pytest.mark.parametrize("case, inputs, outputs", _GRADCHECKS)
def test_gradcheck(case, inputs, outputs):
    _testing.check_gradcheck(case, inputs, outputs)


@pytest.mark.parametrize("case, device_type, cast_inputs", _AUTOCASTS)
def test_autocast(case, device_type, cast_inputs):
    _testing.check_autocast(case, device_type, cast_inputs)


@pytest.mark.parametrize("case, counts", _FLOPS)
def test_flops(case, counts):
    _testing.check_flops(case, counts)
)py");
  return p.str();
}

}  // namespace opgen::emit
