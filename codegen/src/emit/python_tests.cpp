// tests/test_<pkg>_ops.py: the generated test suite. For every op and every
// sample of its spec: opcheck, torch.compile(fullgraph=True) with static and
// dynamic shapes (no graph break, no recompilation beyond the expected),
// fake vs real outputs, the declared input checks as negative tests, and
// gradcheck where the op has autograd and takes float64.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

// The suite's fixed part: the checks each generated case runs.
constexpr const char* kHelpers = R"py(
"""Generated tests of the $ns$ ops, from the `samples` of their specs.

Run with pytest; `$pkg$` must be importable. Each case is an op, a sample,
and the sizes its named dims take.
"""

import pytest
import torch
import torch._dynamo.testing
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._pytree import tree_leaves, tree_map_only

import $pkg$  # noqa: F401  (registers the ops)

_FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def _tensor(shape, dtype, device, low, high):
    if device.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("this sample needs a CUDA device")
    if dtype.is_floating_point:
        return torch.empty(shape, dtype=torch.float32, device=device).uniform_(low, high).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    return torch.randint(int(low), int(high), shape, device=device).to(dtype)


def _clone(value):
    return tree_map_only(torch.Tensor, lambda t: t.detach().clone(), value)


def _call(op, args, kwargs):
    return op(*args, **kwargs)


def _run_opcheck(op, make, sizes, differentiable):
    args, kwargs = make(sizes[0])
    if differentiable:
        args, kwargs = tree_map_only(
            torch.Tensor, lambda t: t.requires_grad_() if t.is_floating_point() else t, (args, kwargs)
        )
    torch.library.opcheck(op, args, kwargs)


def _run_compile(op, make, sizes, dynamic):
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(_call, fullgraph=True, dynamic=dynamic, backend=counter)
    compiles_after_first = None
    for dims in sizes:
        args, kwargs = make(dims)
        eager_args, eager_kwargs = _clone((args, kwargs))
        expected = (_call(op, eager_args, eager_kwargs), eager_args, eager_kwargs)
        got = (compiled(op, args, kwargs), args, kwargs)
        # Mutated arguments are compared too.
        torch.testing.assert_close(got, expected, equal_nan=True)
        if compiles_after_first is None:
            compiles_after_first = counter.frame_count
    assert compiles_after_first >= 1, "nothing was compiled"
    # Dynamic shapes: the later sizes reuse the first compilation.
    assert counter.frame_count == compiles_after_first, f"recompiled for sizes {sizes}"


def _same_size(fake, real):
    """A fake size or stride is an int, or, for a data-dependent size (a
    `dynamic()` rule), an unbacked SymInt, which stands for any real value."""
    return isinstance(fake, torch.SymInt) or fake == real


def _run_fake(op, make, sizes):
    for dims in sizes:
        args, kwargs = make(dims)
        real = _call(op, *_clone((args, kwargs)))
        # The ShapeEnv lets a fake make data-dependent sizes; the inputs keep int sizes.
        with FakeTensorMode(shape_env=ShapeEnv(), static_shapes=True) as mode:
            fake = _call(op, *tree_map_only(torch.Tensor, mode.from_tensor, (args, kwargs)))
        real_leaves = [t for t in tree_leaves(real) if isinstance(t, torch.Tensor)]
        fake_leaves = [t for t in tree_leaves(fake) if isinstance(t, torch.Tensor)]
        assert len(real_leaves) == len(fake_leaves)
        for r, f in zip(real_leaves, fake_leaves):
            assert (f.dtype, f.device) == (r.dtype, r.device), (f, r)
            assert f.dim() == r.dim() and all(map(_same_size, f.shape, r.shape)), (f.shape, r.shape)
            if r.numel() > 1:
                assert all(map(_same_size, f.stride(), r.stride())), (f.stride(), r.stride())


def _break(check, tensor, allowed):
    """A variant of `tensor` that fails `check`."""
    if check == "dtype":
        bad = [d for d in (torch.int32, torch.float64, torch.float32, torch.int64) if str(d)[6:] not in allowed]
        return tensor.to(bad[0])
    if check == "dim":
        return tensor.unsqueeze(0)
    if check == "contiguous":
        if tensor.numel() < 2:
            pytest.skip("a tensor of fewer than two elements is always contiguous")
        wide = torch.empty((*tensor.shape, 2), dtype=tensor.dtype, device=tensor.device)
        return wide[..., 0].copy_(tensor)
    if check == "same_dtype":
        return tensor.to(torch.float64 if tensor.dtype != torch.float64 else torch.float32)
    if check == "same_device":
        if not torch.cuda.is_available():
            pytest.skip("needs a second device")
        return tensor.to("cpu" if tensor.is_cuda else "cuda")
    raise AssertionError(check)


def _run_input_check(op, qualified, make, sizes, where, name, check, allowed):
    args, kwargs = make(sizes[0])
    args = list(args)
    if isinstance(where, int):
        args[where] = _break(check, args[where], allowed)
    else:
        kwargs[where] = _break(check, kwargs[where], allowed)
    pattern = rf"{qualified}.*'{name}'"
    with pytest.raises(RuntimeError, match=pattern):
        _call(op, args, kwargs)
    with FakeTensorMode() as mode, pytest.raises(RuntimeError, match=pattern):
        _call(op, *tree_map_only(torch.Tensor, mode.from_tensor, (args, kwargs)))


def _run_gradcheck(op, make, sizes, inputs, outputs):
    args, kwargs = make(sizes[0])
    args = [a.detach().double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    leaves = [args[i].requires_grad_() for i in inputs]

    def fn(*xs):
        full = list(args)
        for i, x in zip(inputs, xs):
            full[i] = x
        out = _call(op, full, kwargs)
        out = out if isinstance(out, tuple) else (out,)
        return tuple(out[i] for i in outputs)

    assert torch.autograd.gradcheck(fn, leaves)
)py";

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
    case Kind::Literal: return python_literal(arg, v.literal);
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

struct CaseLists {
  std::vector<std::string> cases, input_checks, gradchecks;
};

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
  for (size_t n = 0; n < op.samples.size(); ++n) {
    const auto& sample = op.samples[n];
    const std::string make = fmt::format("_make_{}_{}", id, n);
    // Positional arguments up to the last one the sample gives; earlier ones
    // it leaves out take their defaults. Keyword-only ones go by name.
    size_t last_positional = 0;
    for (size_t i = 0; i < s.arguments.size(); ++i)
      if (!s.arguments[i].kwarg_only && sample_value(sample, s.arguments[i].name)) last_positional = i + 1;
    std::vector<std::string> args, kwargs;
    std::map<std::string, std::string> where;  // argument -> index or quoted name
    for (size_t i = 0; i < s.arguments.size(); ++i) {
      const auto& a = s.arguments[i];
      const auto* v = sample_value(sample, a.name);
      if (a.kwarg_only) {
        if (v) kwargs.push_back(fmt::format("\"{}\": {}", a.name, value_expr(a, *v)));
        if (v) where[a.name] = "\"" + a.name + "\"";
      } else if (i < last_positional) {
        args.push_back(v ? value_expr(a, *v) : a.default_value->to_python());
        where[a.name] = std::to_string(args.size() - 1);
      }
    }
    p.line();
    p.line();
    p.line(fmt::format("def {}(d):", make));
    p.line(fmt::format("    return ({}{}), {{{}}}", fmt::join(args, ", "), args.size() == 1 ? "," : "",
                       fmt::join(kwargs, ", ")));
    const std::string sizes = sizes_expr(sample);
    const std::string case_id = fmt::format("{}-{}", op.op_name(), n);
    lists.cases.push_back(fmt::format("pytest.param({}, {}, {}, {}, id=\"{}\")", op_expr, make, sizes,
                                      op.autograd ? "True" : "False", case_id));
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
        lists.input_checks.push_back(fmt::format(
            "pytest.param({}, \"{}\", {}, {}, {}, \"{}\", \"{}\", {}, id=\"{}-{}-{}\")", op_expr,
            qualified_name(lib, op), make, sizes, where[check.arg.value], check.arg.value, kind, allowed, case_id,
            check.arg.value, kind));
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
        lists.gradchecks.push_back(fmt::format("pytest.param({}, {}, {}, [{}], [{}], id=\"{}\")", op_expr, make, sizes,
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
  p.emit(kHelpers, {{"ns", lib.ns}, {"pkg", lib.python_package}});
  CaseLists lists;
  for (const auto& op : lib.ops) emit_op_cases(p, lib, op, lists);
  emit_list(p, "_CASES", lists.cases);
  emit_list(p, "_INPUT_CHECKS", lists.input_checks);
  emit_list(p, "_GRADCHECKS", lists.gradchecks);
  p.emit(R"py(

@pytest.mark.parametrize("op, make, sizes, differentiable", _CASES)
def test_opcheck(op, make, sizes, differentiable):
    _run_opcheck(op, make, sizes, differentiable)


@pytest.mark.parametrize("op, make, sizes, differentiable", _CASES)
def test_compile_static(op, make, sizes, differentiable):
    _run_compile(op, make, sizes[:1], dynamic=False)


@pytest.mark.parametrize("op, make, sizes, differentiable", _CASES)
def test_compile_dynamic(op, make, sizes, differentiable):
    _run_compile(op, make, sizes, dynamic=True)


@pytest.mark.parametrize("op, make, sizes, differentiable", _CASES)
def test_fake_matches_real(op, make, sizes, differentiable):
    _run_fake(op, make, sizes)


@pytest.mark.parametrize("op, qualified, make, sizes, where, name, check, allowed", _INPUT_CHECKS)
def test_input_check(op, qualified, make, sizes, where, name, check, allowed):
    _run_input_check(op, qualified, make, sizes, where, name, check, allowed)


@pytest.mark.parametrize("op, make, sizes, inputs, outputs", _GRADCHECKS)
def test_gradcheck(op, make, sizes, inputs, outputs):
    _run_gradcheck(op, make, sizes, inputs, outputs)
)py");
  return p.str();
}

}  // namespace opgen::emit
