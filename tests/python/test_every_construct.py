"""Whatever `opgen check` accepts builds, loads and passes its own generated
suite, shown mechanically for every construct of the rule language (issue 21,
class 4): each construct is rendered in every place a rule can stand, through
the C++ compiler and PyTorch.

- `require:` rules are C++ (on both ABIs) and Python (in the fake). Every
  construct the C++ subset allows is a probe: a Bool rule true on input set A
  (the sample, so the generated suite runs it) and judged on input set B,
  where some probes are false. Each probe is guarded by `sel != K or ...`,
  so calling with `sel=K` on set B tests probe K alone: the compiled check and
  the fake must both raise exactly when Python's own evaluation of the rule
  (the reference: rules are Python) is false.
- `fake:` rules are Python only (one ABI suffices): every construct of
  shapes, dtypes, devices, memory formats, `let` and the Output builtins is
  an output of one op, whose kernel makes outputs of the shapes, strides and
  dtypes Python's evaluation of the same rules gives (passed in as `int[]`
  arguments). The generated suite then compares the fake with the kernel.
- `flops:` runs in FlopCounterMode against the tool's own evaluator (the
  generated suite's test_flops).

The generated library is compiled as its two unity shards (`--shards 1`: one
per ABI), with two ops of the same signature and checks in each, and
loaded; its generated suite runs in a subprocess. Every spec key is used
here or in the in-tree library (whose suite runs in test_ops): a test holds
that. Every builtin, tensor member and operator of docs/fake-rules.md is in
a probe: another holds that, so a new construct needs a probe.

Needs the built tool and a C++ compiler:
OPGEN_BIN=build/codegen/opgen pytest tests/python/test_every_construct.py
"""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import yaml12
from cli_helpers import OPGEN_BIN, SCHEMAS, SOURCE_DIR, requires_opgen, run_opgen

pytestmark = requires_opgen

NAMESPACE = "constructs"

# ---------------------------------------------------------------------------
# Inputs. Set A is the sample (every probe true); set B flips many probes.
# ---------------------------------------------------------------------------

REQUIRE_ARGS = ("Tensor x, Tensor y, Tensor? opt, Tensor? none_opt, Tensor[] xs, int n, int m, float f, bool flag, "
                "str s, str s2, ScalarType dt, ScalarType? odt, ScalarType? none_dt, int[] sizes, int sel")
SET_A = dict(x=((2, 3, 4, 5), torch.float32), y=((3, 4), torch.float32), opt=((5,), torch.float32), none_opt=None,
             xs=[((2,), torch.float32), ((3, 2), torch.float32)], n=7, m=-3, f=0.5, flag=True, s="abc", s2="abc",
             dt=torch.float16, odt=torch.bfloat16, none_dt=None, sizes=[2, 3])
SET_B = dict(x=((3, 2, 2, 6), torch.float32), y=((2, 4), torch.float32), opt=None, none_opt=((1,), torch.float32),
             xs=[((4,), torch.float32), ((1, 2, 2), torch.float32)], n=-7, m=4, f=-1.5, flag=False, s="abc",
             s2="xyz", dt=torch.float32, odt=None, none_dt=torch.int64, sizes=[5])

# Bool probes over REQUIRE_ARGS: true on SET_A. One construct (or pairing) each.
REQUIRE_PROBES = [
    "x.size(0) == 2",
    "x.size(-1) != 4",
    "x.stride(0) > x.stride(1)",
    "x.dim() >= 4",
    "x.numel() < 1000",
    "x.ndim <= 4",
    "x.shape[1] == y.size(0)",
    "x.shape[-1] == 5",
    "x.dtype == float32",
    "y.dtype == x.dtype",
    "dt == float16",
    "dt != bfloat16",
    "(odt or x.dtype) == bfloat16",
    "(none_dt or x.dtype) == float32",
    "odt is not None",
    "none_dt is None",
    "opt is not None and opt.size(0) == 5",
    "none_opt is None or none_opt.size(0) == 99",
    "(opt.numel() == 5 if opt is not None else False)",
    "not (opt is None)",
    "flag and not n < 0",
    "flag or n > 100",
    "len(xs) == 2",
    "xs[0].size(0) == 2",
    "xs[1].dim() == 2",
    "len(sizes) == 2",
    "n + m == 4",
    "n - m == 10",
    "n * m == -21",
    "-n == -7",
    "m // 2 == -2",
    "m % 2 == 1",
    "n // m == -3",
    "n % m == -2",
    "x.size(1) % 2 == 1",
    "x.numel() // 7 == 17",
    "ceil_div(x.size(3), 2) == 3",
    "round_up(x.size(3), 4) == 8",
    "min(n, m) == -3",
    "max(n, m) == 7",
    "f * 2 == 1.0",
    "f > 0.25",
    "f + n > 7",
    "-f < 0",
    "1e-6 < f",
    ".5 == f",
    "f != 1.",
    "s == s2",
    "(n if flag else m) == 7",
    "flag == True",
    "flag != False",
    "n - m * 2 == 13",
    "(n - m) * 2 == 20",
    "n - (m - 1) == 11",
    "n < 9223372036854775807",
    "x.numel() * 1000000 > 0",
    "2 * 3 == 6",
    "x.size(0) * x.size(1) == 6 and (x.size(2) == 4 or x.size(3) == 0)",
]

# Output probes: one fake rule each, over FAKE_ARGS (evaluated on SET_A).
FAKE_ARGS = ("Tensor x, Tensor y, Tensor? opt, Tensor[] xs, int n, int m, bool flag, ScalarType dt, ScalarType? odt, "
             "ScalarType? none_dt, int[] sizes")
FAKE_LETS = {"k": "x.size(0) * n", "j": "k + len(sizes)"}
FAKE_PROBES = [
    "empty([x.size(0), n])",
    "empty(x.shape)",
    "empty(x.shape[1:])",
    "empty(x.shape[:-1])",
    "empty(x.shape[1:3])",
    "empty(x.shape[-2:])",
    "empty([*x.shape[:-1], n])",
    "empty([n, *y.shape])",
    "empty([])",
    "empty(sizes)",
    "empty([sizes[0], sizes[-1], len(sizes)])",
    "empty([len(xs), sum_numel(xs)])",
    "empty([ceil_div(n, 2), round_up(n, 4)])",
    "empty([min(n, 3), max(n, 3)])",
    "empty([n // 2, n % 3, -m, n - 1, n * 2 + m])",
    "empty([k, j])",
    "empty([n if flag else 1, x.numel() // 30])",
    "empty([x.ndim, x.dim(), x.stride(0)])",
    "empty([2], dtype=dt)",
    "empty([2], dtype=odt or x.dtype)",
    "empty([2], dtype=none_dt or float64)",
    "empty([2], dtype=float16 if flag else float32)",
    "empty([2], dtype=xs[0].dtype)",
    "empty([2], dtype=int64, device=y)",
    "empty([2], dtype=bool)",
    "empty([2, 3], dtype=uint8)",
    "like(x)",
    "like(y, dtype=float64)",
    "like(xs[-1])",
    "like(x, memory_format=channels_last)",
    "like(x, memory_format=contiguous_format)",
    "like(x, memory_format=preserve_format)",
    "empty(x.shape, memory_format=channels_last)",
    "empty([1, 2, 3, 4, 5], memory_format=channels_last_3d)",
    "empty_strided([3, 4], [1, 3])",
    "empty_strided([n, 2], [1, n], dtype=float64)",
    "like(opt) if opt is not None else empty([1])",
]
FLOPS = "x.numel() + sum_numel(xs) + len(sizes) * max(n, 0) + ceil_div(x.numel(), 3) + round_up(y.numel(), 8)"

# c10::ScalarType's enumerators, for the kernel's dtype codes.
SCALAR_TYPE = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
               torch.float32: 6, torch.float64: 7, torch.complex64: 9, torch.complex128: 10, torch.bool: 11,
               torch.bfloat16: 15}
DTYPE_NAMES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
               "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "uint8": torch.uint8,
               "int8": torch.int8, "int16": torch.int16, "bool": torch.bool, "complex64": torch.complex64,
               "complex128": torch.complex128}


def reference_namespace(values):
    """Rules are Python: this is what they mean, from docs/fake-rules.md's
    tables, with real tensors. The generated code must agree."""
    default = next(v for v in values.values() if isinstance(v, torch.Tensor))

    def empty(shape, dtype=None, device=None, memory_format=torch.contiguous_format):
        return torch.empty(tuple(shape), dtype=dtype or default.dtype,
                           device=(device if device is not None else default).device, memory_format=memory_format)

    def empty_strided(shape, stride, dtype=None, device=None):
        return torch.empty_strided(tuple(shape), tuple(stride), dtype=dtype or default.dtype,
                                   device=(device if device is not None else default).device)

    def like(t, dtype=None, device=None, memory_format=torch.preserve_format):
        return torch.empty_like(t, dtype=dtype, device=None if device is None else device.device,
                                memory_format=memory_format)

    return {**DTYPE_NAMES, "contiguous_format": torch.contiguous_format, "channels_last": torch.channels_last,
            "channels_last_3d": torch.channels_last_3d, "preserve_format": torch.preserve_format,
            "ceil_div": lambda a, b: (a + b - 1) // b, "round_up": lambda a, b: (a + b - 1) // b * b,
            "sum_numel": lambda xs: sum(t.numel() for t in xs), "empty": empty, "empty_strided": empty_strided,
            "like": like, **values}


def evaluate(rule, values, lets=()):
    scope = reference_namespace(values)
    for name, text in lets:
        scope[name] = eval(text, {}, scope)  # noqa: S307 (the rules of this file)
    return eval(rule, {}, scope)  # noqa: S307


def materialize(value_set, generator=None):
    def one(v):
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], torch.dtype):
            return torch.rand(v[0], generator=generator).to(v[1])
        if isinstance(v, list) and v and isinstance(v[0], tuple):
            return [one(t) for t in v]
        return v
    return {k: one(v) for k, v in value_set.items()}


# ---------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------

def sample_yaml(value_set, names, extra):
    """A sample's `args` mapping for the arguments `names`, as YAML flow."""
    items = []
    for name in names:
        if name in extra:
            continue
        v = value_set[name]
        if v is None:
            items.append(f"{name}: null")
        elif isinstance(v, tuple):
            items.append(f"{name}: {{shape: {list(v[0])}, dtype: {str(v[1]).removeprefix('torch.')}}}")
        elif isinstance(v, list) and v and isinstance(v[0], tuple):
            tensors = ", ".join(f"{{shape: {list(s)}, dtype: {str(d).removeprefix('torch.')}}}" for s, d in v)
            items.append(f"{name}: [{tensors}]")
        elif isinstance(v, torch.dtype):
            items.append(f"{name}: {str(v).removeprefix('torch.')}")
        elif isinstance(v, bool):
            items.append(f"{name}: {'true' if v else 'false'}")
        elif isinstance(v, str):
            items.append(f'{name}: "{v}"')
        else:
            items.append(f"{name}: {v}")
    items += [f"{k}: {v}" for k, v in extra.items()]
    return "{" + ", ".join(items) + "}"


def arg_names(args):
    return [a.split()[-1] for a in args.split(", ")]


def require_spec(op, abi):
    rules = "\n".join(f"  - {yaml_string(f'sel != {k} or {p}')}" for k, p in enumerate(REQUIRE_PROBES))
    tags = "tags: [pt2_compliant_tag]\n" if abi == "unstable" else ""
    return (f'schema: "{op}({REQUIRE_ARGS}) -> Tensor"\n'
            f"doc: Every construct of the C++ subset of the rule language, as a require rule ({abi} ABI).\n"
            f"abi: {abi}\ndispatch: [CPU]\n{tags}"
            "checks:\n"
            "  x: {dtype: [float32, float64], dim: 4, contiguous: true}\n"
            "  y: {same_dtype: x, same_device: x, dim: 2}\n"
            f"require:\n{rules}\n"
            "fake: empty([1])\n"
            f"samples:\n  - args: {sample_yaml(SET_A, arg_names(REQUIRE_ARGS), {'sel': -1})}\n")


def yaml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def outputs_spec(op):
    values = materialize(SET_A)
    outs = [evaluate(rule, values, FAKE_LETS.items()) for rule in FAKE_PROBES]
    expect = [s for t in outs for s in t.shape]
    strides = [s for t in outs for s in t.stride()]
    extra = {"expect": expect, "ranks": [t.dim() for t in outs], "strides": strides,
             "dtypes": [SCALAR_TYPE[t.dtype] for t in outs]}
    returns = ", ".join(["Tensor"] * len(FAKE_PROBES))
    lets = "\n".join(f"  {k}: {yaml_string(v)}" for k, v in FAKE_LETS.items())
    fakes = "\n".join(f"  - {yaml_string(r)}" for r in FAKE_PROBES)
    return (f'schema: "{op}({FAKE_ARGS}, int[] expect, int[] ranks, int[] strides, int[] dtypes) -> ({returns})"\n'
            "abi: unstable\ndispatch: [CPU]\n"
            f"let:\n{lets}\nfake:\n{fakes}\n"
            f"flops: {yaml_string(FLOPS)}\n"
            f"samples:\n  - args: {sample_yaml(SET_A, arg_names(FAKE_ARGS), extra)}\n")


EACH_SPEC = """schema: "{op}(Tensor[] xs) -> (Tensor[], Tensor[])"
abi: {abi}
dispatch: [CPU]
require: [len(xs) >= 1]
fake:
  - like_each(xs)
  - like_each(xs, dtype=float64, memory_format=contiguous_format)
samples:
  - args: {{xs: [{{shape: [2, 3]}}, {{shape: [4]}}]}}
"""

DYNAMIC_SPEC = """schema: "{op}(Tensor x, int rows) -> Tensor"
abi: {abi}
dispatch: [CPU]
let:
  k: dynamic(min=0, max=64)
fake: empty([k, x.size(1)])
samples:
  - args: {{x: {{shape: [4, 3]}}, rows: 5}}
"""

PYTHON_FAKE_SPEC = """schema: "{op}(Tensor x) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:twice_rows"}}
samples:
  - args: {{x: {{shape: [3, 2]}}}}
"""

# Outputs that are values, computed by rules from the inputs (an unbacked `dynamic()` where only the kernel knows).
VALUES_SPEC = """schema: "{op}(Tensor x, int n, bool flag, float f) -> (int, SymInt, bool, float, int[])"
abi: {abi}
dispatch: [CPU]
fake:
  - x.size(0) * n
  - dynamic(min=0)
  - flag and n > 3
  - f * 2
  - x.shape[1:]
samples:
  - args: {{x: {{shape: [2, 3, 4]}}, n: 5, flag: true, f: 0.25}}
"""

# A write annotation on a value, as PyTorch registers it (W0402): eager checks run, opcheck and compile skip.
EAGER_ONLY_SPEC = """schema: "{op}(Tensor x, int(a!)? n=None) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: like(x)
samples:
  - args: {{x: {{shape: [3, 2]}}, n: 4}}
"""

# A nested list (int[][]): carried on both ABIs; samples cannot give one, so the test below calls it.
NESTED_SPEC = """schema: "{op}(Tensor x, int[][] groups) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:nested"}}
samples: []
"""

# Results that are optional arguments the op writes, when given (FBGEMM's permute_2D_sparse_preallocated_out):
# `Tensor(c!)?` is None where the argument is not given. Eager only (W0401); the test below calls it.
OPTIONAL_OUT_SPEC = """schema: "{op}(Tensor values, Tensor? weights=None, Tensor(a!)? values_out=None, Tensor(c!)? weights_out=None) -> (Tensor(a!), Tensor(c!)?)"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:optional_out"}}
samples: []
"""

# A result that is a view of its argument (DeepSpeed's wait_allgather): eager only (W0403); the test below calls it.
VIEW_SPEC = """schema: "{op}(Tensor(a) x, int graph_id) -> Tensor(a)"
abi: {abi}
dispatch: [CPU]
fake: like(x)
samples: []
"""

# vLLM's CPU shared-memory ops: an argument in an alias set no result shares (shm_send_tensor_list, W0405), a
# result in a set no argument has (shm_recv_tensor_list, W0404). PyTorch takes both, eagerly; the test below
# calls them.
HELD_SEND_SPEC = """schema: "{op}(int handle, Tensor(a)[] ts, int dst) -> ()"
abi: {abi}
dispatch: [CPU]
samples: []
"""
HELD_RECV_SPEC = """schema: "{op}(Tensor buf, int src) -> Tensor[](a)"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:held_recv"}}
samples: []
"""

# Two positional arguments of one name (DeepSpeed's offload_tensor): the second is id_2 in the kernel and the
# Python; the registered schema keeps both `id`. Eager only (W0307); the test below calls it.
TWO_IDS_SPEC = """schema: "{op}(Tensor a, int id, int id) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:two_ids"}}
samples: []
"""

# Lists of dtypes (DeepSpeed's prefetch_params_fused takes `ScalarType[]? dtypes = None`).
DTYPES_SPEC = """schema: "{op}(Tensor x, ScalarType[] dtypes, ScalarType[]? more=None) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:dtypes"}}
samples: []
"""

# A list of strings as the result (vLLM's machete_supported_schedules): the unstable ABI returns it.
STRS_SPEC = """schema: "{op}(Tensor x, int n) -> str[]"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:strs"}}
samples: []
"""

# Pairs of ints (vLLM's static_scaled_fp8_quant takes `(int, int)? group_shape=None`): the unstable ABI
# carries them as std::tuple (the stable ABI has no tuple, E0310).
PAIRS_SPEC = """schema: "{op}(Tensor x, (int, int) lo, (int, int)? hi=None) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:pairs"}}
samples: []
"""

# Any (DeepSpeed's end_backward takes `Any deps`): the unstable ABI hands the kernel the IValue.
ANY_SPEC = """schema: "{op}(Tensor x, Any deps) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: like(x)
samples: []
"""

# Dicts keyed by str and lists of string triples (pyg-lib's heterogeneous samplers): unstable ABI only, eager
# only (W0312), each result a c10::Dict or its optional.
DICTS_SPEC = """schema: "{op}(Tensor x, Dict(str, Tensor) named, Dict(str, int) counts, Dict(str, int[][]) rows, (str, str, str)[] edges, Dict(str, Tensor)? extra=None) -> (Dict(str, Tensor), Dict(str, Tensor)?, Dict(str, int[]))"
abi: {abi}
dispatch: [CPU]
fake: {{python: "constructs_fakes:dicts"}}
samples: []
"""

# Lists of lists of strings and optional bool lists: unstable ABI only.
STR_LISTS_SPEC = """schema: "{op}(Tensor x, str[][] names, bool[]? flags=None) -> Tensor"
abi: {abi}
dispatch: [CPU]
fake: like(x)
samples: []
"""

MUTATING_SPEC = """schema: "{op}(Tensor(a!) x, Tensor src) -> ()"
abi: {abi}
dispatch: [CPU]
mutates: [x]
checks:
  src: {{same_dtype: x}}
require: x.numel() == src.numel()
samples:
  - args: {{x: {{shape: [3, 2]}}, src: {{shape: [6]}}}}
"""

PYTHON_FAKES = '''import torch


def twice_rows(x):
    return x.new_empty((2 * x.size(0), x.size(1)))


def nested(x, groups):
    return x.new_empty((sum(sum(g) for g in groups),))


def dicts(x, named, counts, rows, edges, extra=None):
    return ({k: torch.empty_like(v) for k, v in named.items()}, None if extra is None else dict(extra),
            {src: [len(rel), len(dst)] for src, rel, dst in edges})


def pairs(x, lo, hi=None):
    return x.new_empty((lo[0] + (hi[0] if hi is not None else 0), lo[1] + (hi[1] if hi is not None else 0)))


def strs(x, n):
    return [f"s{i}" for i in range(n)]


def held_recv(buf, src):
    return [torch.empty_like(buf) for _ in range(src)]


def dtypes(x, dtypes, more=None):
    return x.new_empty((len(dtypes), len(more) if more is not None else 0))


def two_ids(a, id, id_2):
    return a.new_empty((id, id_2))


def optional_out(values, weights=None, values_out=None, weights_out=None):
    v = values_out if values_out is not None else values.new_empty(values.shape)
    if weights is None:
        return v, None
    return v, weights_out if weights_out is not None else weights.new_empty(weights.shape)
'''

# ---------------------------------------------------------------------------
# Kernels: written against the declarations opgen generated.
# ---------------------------------------------------------------------------

UNSTABLE_HELPERS = """
#include <ATen/ATen.h>
#include <tuple>
#include <utility>
#include <vector>
namespace {
// The outputs of the probe op: shapes, strides and dtypes as the test computed them.
std::vector<at::Tensor> probe_outputs(const at::Tensor& like, at::IntArrayRef expect, at::IntArrayRef ranks,
                                      at::IntArrayRef strides, at::IntArrayRef dtypes) {
  std::vector<at::Tensor> outs;
  size_t offset = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    auto shape = expect.slice(offset, ranks[i]);
    auto stride = strides.slice(offset, ranks[i]);
    offset += ranks[i];
    outs.push_back(at::zeros(shape, like.options().dtype(static_cast<at::ScalarType>(dtypes[i])))
                       .as_strided(shape, stride));
    outs.back().zero_();
  }
  return outs;
}
template <class Tuple, size_t... I>
Tuple as_tuple(const std::vector<at::Tensor>& v, std::index_sequence<I...>) { return Tuple(v.at(I)...); }
}  // namespace
"""


def kernel_declarations(out, op):
    header = (out / "include" / NAMESPACE / "kernels" / f"{op}.h").read_text()
    (decl,) = re.findall(rf"^(.*? {op}_cpu\(.*\));$", header, re.M)
    return decl


# Existing functions as kernels (`kernels:`), with the signatures projects
# give them: by value, by non-const reference, int for int, float for float,
# std::vector for lists, a template's instantiation, a qualified name.
EXISTING_SPECS = {
    "stable": """schema: "{op}(Tensor x, int n, float alpha) -> Tensor"
abi: stable
dispatch: [CPU]
kernels:
  include: legacy_stable.h
  CPU: legacy::filled_like<2>
fake:
  - like(x)
samples:
  - args: {{x: {{shape: [2, 3]}}, n: 3, alpha: 0.5}}
""",
    "unstable": """schema: "{op}(Tensor x, Tensor[] xs, int n, float alpha, int[] sizes, Tensor? bias=None) -> Tensor"
abi: unstable
dispatch: [CPU]
kernels:
  include: [legacy_aten.h]
  CPU: ::legacy::axpy_sum
fake:
  - like(x)
samples:
  - args: {{x: {{shape: [2, 3]}}, xs: [{{shape: [2]}}], n: 2, alpha: 0.5, sizes: [1, 2], bias: {{shape: [2, 3]}}}}
""",
    "stable_into": """schema: "{op}(Tensor(a!) out, Tensor src) -> ()"
abi: stable
dispatch: [CPU]
kernels: {{include: legacy_stable.h, CPU: legacy::stable_copy_into}}
samples:
  - args: {{out: {{shape: [4]}}, src: {{shape: [4]}}}}
""",
    "unstable_into": """schema: "{op}(Tensor(a!) out, Tensor src) -> ()"
abi: unstable
dispatch: [CPU]
kernels: {{include: legacy_aten.h, CPU: legacy::aten_copy_into}}
samples:
  - args: {{out: {{shape: [4]}}, src: {{shape: [4]}}}}
""",
}
# The project's headers (the generated code includes them) and definitions.
LEGACY_HEADERS = {
    "legacy_stable.h": """#pragma once
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
namespace legacy {
template <int K>
torch::stable::Tensor filled_like(torch::stable::Tensor x, int n, float alpha) {
  torch::stable::Tensor out = torch::stable::new_zeros(x, x.sizes());
  torch::stable::fill_(out, K * n * alpha);
  return out;
}
void stable_copy_into(torch::stable::Tensor& out, torch::stable::Tensor src);
}  // namespace legacy
""",
    "legacy_aten.h": """#pragma once
#include <ATen/ATen.h>
#include <vector>
namespace legacy {
at::Tensor axpy_sum(at::Tensor& x, std::vector<at::Tensor> xs, int n, float alpha, const std::vector<int64_t>& sizes,
                    c10::optional<at::Tensor> bias);
void aten_copy_into(at::Tensor& out, const at::Tensor& src);
}  // namespace legacy
""",
}
LEGACY_SOURCES = {
    "stable": """void legacy::stable_copy_into(torch::stable::Tensor& out, torch::stable::Tensor src) {
  torch::stable::copy_(out, src);
}
""",
    "unstable": """at::Tensor legacy::axpy_sum(at::Tensor& x, std::vector<at::Tensor> xs, int n, float alpha,
                            const std::vector<int64_t>& sizes, c10::optional<at::Tensor> bias) {
  at::Tensor out = x * alpha + static_cast<double>(n * static_cast<int64_t>(sizes.size()) +
                                                   static_cast<int64_t>(xs.size()));
  return bias ? out + *bias : out;
}
void legacy::aten_copy_into(at::Tensor& out, const at::Tensor& src) { out.copy_(src); }
""",
}


# Each kind's kernel body: (stable ABI, unstable ABI); None where the kind has one ABI only.
KERNEL_BODIES = {
    "require": ("return torch::stable::new_zeros(x, {1});", "return at::zeros({1}, x.options());"),
    # Storage of the real extent (zeros), then the strides the test computed.
    "outputs": (None, "auto outs = probe_outputs(x, expect, ranks, strides, dtypes);\n"
                      f"  return as_tuple<$ret$>(outs, std::make_index_sequence<{len(FAKE_PROBES)}>());"),
    "each": ("std::vector<torch::stable::Tensor> a, b;\n"
             "  for (const auto& t : xs) {\n"
             "    a.push_back(torch::stable::new_zeros(t, t.sizes()));\n"
             "    b.push_back(torch::stable::new_zeros(t, t.sizes(), torch::headeronly::ScalarType::Double));\n"
             "  }\n  return {a, b};",
             "std::vector<at::Tensor> a, b;\n"
             "  for (const auto& t : xs) { a.push_back(at::zeros_like(t)); "
             "b.push_back(at::zeros(t.sizes(), t.options().dtype(at::kDouble))); }\n  return {a, b};"),
    "dynamic": ("return torch::stable::new_zeros(x, {rows, x.size(1)});",
                "return at::zeros({rows, x.size(1)}, x.options());"),
    "values": (None, "return {x.size(0) * n, 7, flag && n > 3, f * 2, "
                     "std::vector<int64_t>(x.sizes().begin() + 1, x.sizes().end())};"),
    "eager_only": ("return torch::stable::new_zeros(x, x.sizes());", "return at::zeros_like(x);"),
    "nested": ("int64_t total = 0;\n  for (const auto& group : groups)\n    for (int64_t v : group) total += v;\n"
               "  return torch::stable::new_zeros(x, {total});",
               "int64_t total = 0;\n  for (size_t i = 0; i < groups.size(); ++i) {\n"
               "    c10::List<int64_t> group = groups.get(i);\n"
               "    for (size_t j = 0; j < group.size(); ++j) total += group.get(j);\n  }\n"
               "  return at::zeros({total}, x.options());"),
    # (dtypes given, more given): each a dtype's position in the list when it is float32, else 9.
    "dtypes": ("int64_t first = -1;\n  for (size_t i = 0; i < dtypes.size() && first < 0; ++i)\n"
               "    if (dtypes[i] == torch::headeronly::ScalarType::Float) first = static_cast<int64_t>(i);\n"
               "  return torch::stable::new_zeros(x, {first < 0 ? 9 : first, more.has_value() ? "
               "static_cast<int64_t>(more->size()) : 0});",
               "int64_t first = -1;\n  for (size_t i = 0; i < dtypes.size() && first < 0; ++i)\n"
               "    if (dtypes[i] == at::kFloat) first = static_cast<int64_t>(i);\n"
               "  return at::zeros({first < 0 ? 9 : first, more.has_value() ? static_cast<int64_t>(more->size()) : 0}, "
               "x.options());"),
    "pairs": (None, "auto [r, c] = lo;\n  if (hi) {\n    r += std::get<0>(*hi);\n    c += std::get<1>(*hi);\n  }\n"
                    "  return at::zeros({r, c}, x.options());"),
    # Each named tensor + its count (+ x), extra passed back, per edge the lengths of its relation and
    # destination names, per rows key the lengths of its lists.
    "dicts": (None, "c10::Dict<std::string, at::Tensor> out;\n"
                    "  for (const auto& item : named) out.insert(item.key(), item.value() + counts.at(item.key()) + x);\n"
                    "  c10::Dict<std::string, std::vector<int64_t>> sizes;\n"
                    "  for (const auto& [src, rel, dst] : edges)\n"
                    "    sizes.insert(src, std::vector<int64_t>{static_cast<int64_t>(rel.size()), "
                    "static_cast<int64_t>(dst.size())});\n"
                    "  for (const auto& item : rows) {\n"
                    "    std::vector<int64_t> lengths;\n"
                    "    for (const auto& row : item.value()) lengths.push_back(static_cast<int64_t>(row.size()));\n"
                    "    sizes.insert(item.key(), lengths);\n"
                    "  }\n"
                    "  return {out, extra, sizes};"),
    # x + the characters of every name, + 100 per true flag.
    "str_lists": (None, "int64_t n = 0;\n"
                        "  for (const auto& row : names)\n"
                        "    for (const auto& name : row) n += static_cast<int64_t>(name.size());\n"
                        "  if (flags)\n"
                        "    for (bool flag : *flags) n += flag ? 100 : 0;\n"
                        "  return x + n;"),
    # x + the int deps, or + the number of tensors of a list; + 100 for None.
    "any": (None, "if (deps.isInt()) return x + deps.toInt();\n"
                  "  if (deps.isTensorList()) return x + static_cast<int64_t>(deps.toTensorList().size());\n"
                  "  return x + (deps.isNone() ? 100 : -1);"),
    "strs": ("std::vector<std::string> out;\n  for (int64_t i = 0; i < n; ++i) out.push_back(\"s\" + std::to_string(i));\n"
             "  return out;",
             "std::vector<std::string> out;\n  for (int64_t i = 0; i < n; ++i) out.push_back(\"s\" + std::to_string(i));\n"
             "  return out;"),
    "two_ids": ("return torch::stable::new_zeros(a, {id, id_2});", "return at::zeros({id, id_2}, a.options());"),
    "view": ("(void)graph_id;\n  return x;", "(void)graph_id;\n  return x.view(x.sizes());"),
    # Refuses a list of another length than dst; src tensors shaped as buf, each filled with its index.
    "held_send": ("(void)handle;\n  STD_TORCH_CHECK(static_cast<int64_t>(ts.size()) == dst, \"held_send: \", ts.size());",
                  "(void)handle;\n  TORCH_CHECK(static_cast<int64_t>(ts.size()) == dst, \"held_send: \", ts.size());"),
    "held_recv": ("std::vector<torch::stable::Tensor> out;\n  for (int64_t i = 0; i < src; ++i) {\n"
                  "    out.push_back(torch::stable::new_zeros(buf, buf.sizes()));\n"
                  "    torch::stable::fill_(out.back(), static_cast<double>(i));\n  }\n  return out;",
                  "std::vector<at::Tensor> out;\n"
                  "  for (int64_t i = 0; i < src; ++i) out.push_back(at::full_like(buf, static_cast<double>(i)));\n"
                  "  return out;"),
    "mutating": ("torch::stable::Tensor out = x;\n  torch::stable::zero_(out);", "x.zero_();"),
    # The outs given are returned (zeroed), new ones where not; no weights, no second result.
    "optional_out": ("torch::stable::Tensor v = values_out.has_value() ? *values_out : "
                     "torch::stable::new_zeros(values, values.sizes());\n  torch::stable::zero_(v);\n"
                     "  std::optional<torch::stable::Tensor> w;\n  if (weights.has_value()) {\n"
                     "    w = weights_out.has_value() ? *weights_out : torch::stable::new_zeros(*weights, weights->sizes());\n"
                     "    torch::stable::zero_(*w);\n  }\n  return {v, w};",
                     "at::Tensor v = values_out ? *values_out : at::empty_like(values);\n  v.zero_();\n"
                     "  std::optional<at::Tensor> w;\n  if (weights) {\n"
                     "    w = weights_out ? *weights_out : at::empty_like(*weights);\n    w->zero_();\n  }\n"
                     "  return {v, w};"),
    "python": ("return torch::stable::new_zeros(x, {2 * x.size(0), x.size(1)});",
               "return at::zeros({2 * x.size(0), x.size(1)}, x.options());"),
}


def kernel_source(out, op, kind, abi):
    decl = kernel_declarations(out, op)
    ret = decl.split(f" {op}_cpu(")[0]
    body = KERNEL_BODIES[kind][abi == "unstable"].replace("$ret$", ret)
    return f"{decl.removesuffix(';')} {{\n  {body}\n}}\n"


OPS = {  # op -> (kind, abi)
    "req_stable": ("require", "stable"),
    "req_unstable": ("require", "unstable"),
    "outputs": ("outputs", "unstable"),
    "each_stable": ("each", "stable"),
    "each_unstable": ("each", "unstable"),
    # Twins: the same signature and checks in one unity TU must not clash.
    "each_twin_stable": ("each", "stable"),
    "each_twin_unstable": ("each", "unstable"),
    "dynamic_stable": ("dynamic", "stable"),
    "dynamic_unstable": ("dynamic", "unstable"),
    "python_fake": ("python", "unstable"),
    "values": ("values", "unstable"),
    "nested_stable": ("nested", "stable"),
    "nested_unstable": ("nested", "unstable"),
    "eager_only_stable": ("eager_only", "stable"),
    "eager_only_unstable": ("eager_only", "unstable"),
    "optional_out_stable": ("optional_out", "stable"),
    "optional_out_unstable": ("optional_out", "unstable"),
    "pairs_unstable": ("pairs", "unstable"),
    "dicts_unstable": ("dicts", "unstable"),
    "str_lists_unstable": ("str_lists", "unstable"),
    "any_unstable": ("any", "unstable"),
    "strs_stable": ("strs", "stable"),
    "strs_unstable": ("strs", "unstable"),
    "dtypes_stable": ("dtypes", "stable"),
    "dtypes_unstable": ("dtypes", "unstable"),
    "two_ids_stable": ("two_ids", "stable"),
    "two_ids_unstable": ("two_ids", "unstable"),
    "view_stable": ("view", "stable"),
    "view_unstable": ("view", "unstable"),
    "held_send_stable": ("held_send", "stable"),
    "held_send_unstable": ("held_send", "unstable"),
    "held_recv_stable": ("held_recv", "stable"),
    "held_recv_unstable": ("held_recv", "unstable"),
    "zero_stable_": ("mutating", "stable"),
    "zero_unstable_": ("mutating", "unstable"),
    "existing_stable": ("existing", "stable"),
    "existing_unstable": ("existing", "unstable"),
    "existing_into_stable_": ("existing_into", "stable"),
    "existing_into_unstable_": ("existing_into", "unstable"),
}


def spec_text(op, kind, abi):
    if kind == "require":
        return require_spec(op, abi)
    if kind == "outputs":
        return outputs_spec(op)
    if kind.startswith("existing"):
        return EXISTING_SPECS[abi + kind.removeprefix("existing")].format(op=op)
    template = {"each": EACH_SPEC, "dynamic": DYNAMIC_SPEC, "python": PYTHON_FAKE_SPEC, "mutating": MUTATING_SPEC,
                "values": VALUES_SPEC, "eager_only": EAGER_ONLY_SPEC, "nested": NESTED_SPEC,
                "optional_out": OPTIONAL_OUT_SPEC, "view": VIEW_SPEC, "held_send": HELD_SEND_SPEC,
                "held_recv": HELD_RECV_SPEC, "two_ids": TWO_IDS_SPEC, "dtypes": DTYPES_SPEC, "strs": STRS_SPEC, "pairs": PAIRS_SPEC, "any": ANY_SPEC,
                "dicts": DICTS_SPEC, "str_lists": STR_LISTS_SPEC}[kind]
    return template.format(op=op, abi=abi)


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("constructs")
    specs = root / "specs"
    specs.mkdir()
    for op, (kind, abi) in OPS.items():
        (specs / f"{op}.yaml").write_text(spec_text(op, kind, abi))
    out = root / "out"
    options = ["--namespace", NAMESPACE, "--source-root", root]
    check = run_opgen("check", *options, specs)
    assert check.returncode == 0, check.stderr
    generate = run_opgen("generate", *options, "--shards", "1", "-o", out, specs)
    assert generate.returncode == 0, generate.stderr

    # The two shards, as opgen_add_library compiles them, each followed by its ABI's kernels.
    units = {abi: [f"csrc/{NAMESPACE}-{abi}-shard0.cpp"] for abi in ("stable", "unstable")}
    kernels = {"stable": "", "unstable": UNSTABLE_HELPERS}
    for op, (kind, abi) in OPS.items():
        kernels[abi] += f'#include "{NAMESPACE}/kernels/{op}.h"\n'
    kernels["stable"] += "#include <torch/csrc/stable/ops.h>\n"
    for op, (kind, abi) in OPS.items():
        if not kind.startswith("existing"):
            kernels[abi] += f"namespace {NAMESPACE}::kernels {{\n{kernel_source(out, op, kind, abi)}}}\n"
    for abi, source in LEGACY_SOURCES.items():
        kernels[abi] += source
    for name, text in LEGACY_HEADERS.items():
        (out / "include" / name).write_text(text)
    torch_dir = os.path.dirname(torch.__file__)
    flags = ["-std=c++20", "-fPIC", "-O0", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
             "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{out}", f"-I{out / 'include'}", "-isystem", f"{torch_dir}/include",
             "-isystem", f"{torch_dir}/include/torch/csrc/api/include"]

    def compile_unit(abi):
        unit = out / f"unity_{abi}.cpp"
        # The kernels after the generated TUs: a stable TU's first include must be its kernel header.
        unit.write_text("".join(f'#include "{u}"\n' for u in units[abi]) + kernels[abi])
        obj = out / f"unity_{abi}.o"
        proc = subprocess.run(["c++", *flags, "-c", str(unit), "-o", str(obj)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{abi}: the generated code does not compile:\n{proc.stderr[-8000:]}"
        return obj

    with ThreadPoolExecutor(2) as pool:
        objects = list(pool.map(compile_unit, ["stable", "unstable"]))
    package = out / "python" / NAMESPACE
    library_file = package / f"lib{NAMESPACE}_ops.so"
    lib_dir = f"{torch_dir}/lib"
    link = subprocess.run(["c++", "-shared", *map(str, objects), "-o", str(library_file), f"-L{lib_dir}",
                           f"-Wl,-rpath,{lib_dir}", "-ltorch", "-ltorch_cpu", "-lc10"], capture_output=True, text=True)
    assert link.returncode == 0, link.stderr
    (package / "__init__.py").write_text("from ._ops import *  # noqa: F401,F403\n")  # as opgen_add_library writes it
    (out / "python" / "constructs_fakes.py").write_text(PYTHON_FAKES)
    return out


def test_every_construct_passes_the_generated_suite(library):
    suite = next((library / "tests").glob("test_*.py"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(library / "python"), str(SOURCE_DIR / "python")])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-x", str(suite)],
                          capture_output=True, text=True, env=env, cwd=library, timeout=900)
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-3000:]
    counts = re.search(r"(\d+) passed", proc.stdout)
    assert counts and int(counts[1]) >= 20, proc.stdout[-2000:]
    # The eager-only ops skip exactly opcheck and the two compile tests, each.
    eager_skips = re.findall(r"^SKIPPED \[(\d+)\] .*eager_only_(?:un)?stable works in eager calls only", proc.stdout, re.M)
    assert sum(map(int, eager_skips)) == 6, proc.stdout[-3000:]


def load_library(library):
    # Left on the path: the package imports its handwritten fakes' module (constructs_fakes) when fake tensors
    # first call them.
    if str(library / "python") not in sys.path:
        sys.path.insert(0, str(library / "python"))
    import constructs  # noqa: F401  (registers the ops)


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_compiled_and_python_require_rules_agree_with_python(library, abi):
    """Each probe on set B (sel=K): the C++ check and the fake raise exactly
    where Python's own evaluation of the rule is false."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"req_{abi}").default
    names = arg_names(REQUIRE_ARGS)
    values = materialize(SET_B)
    flipped, wrong = 0, []
    for k, probe in enumerate(REQUIRE_PROBES):
        expected = bool(evaluate(probe, values))
        flipped += not expected
        args = [values[name] for name in names[:-1]] + [k]
        for where in ("kernel", "fake"):
            try:
                if where == "kernel":
                    op(*args)
                else:
                    with FakeTensorMode() as mode:
                        op(*[mode.from_tensor(a) if isinstance(a, torch.Tensor) else
                             [mode.from_tensor(t) for t in a] if isinstance(a, list) and a and
                             isinstance(a[0], torch.Tensor) else a for a in args])
                passed = True
            except RuntimeError:
                passed = False
            if passed != expected:
                wrong.append(f"{where}: `{probe}` is {expected} in Python, the {where} {'passed' if passed else 'raised'}")
    assert not wrong, "\n".join(wrong)
    assert flipped >= 20, f"set B makes only {flipped} probes false"


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_a_nested_list_reaches_the_kernel(library, abi):
    """int[][] (PyTorch parses it; the stable ABI carries nested vectors): each value arrives."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"nested_{abi}").default
    x = torch.ones(2)
    assert op(x, [[1, 2], [3], []]).shape == (6,)
    torch.library.opcheck(op, (x, [[1, 2], [3]]))


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_an_optional_result_is_the_optional_argument_it_writes(library, abi):
    """`-> (Tensor(a!), Tensor(c!)?)` over `Tensor(a!)? values_out=None, Tensor(c!)? weights_out=None`: each
    result is its argument when given (the same storage), a new tensor otherwise, and None without weights."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"optional_out_{abi}").default
    values, weights = torch.ones(3, 2), torch.ones(4)
    values_out, weights_out = torch.full((3, 2), 5.0), torch.full((4,), 5.0)
    v, w = op(values, weights, values_out, weights_out)
    assert v.data_ptr() == values_out.data_ptr() and w.data_ptr() == weights_out.data_ptr()
    assert values_out.eq(0).all() and weights_out.eq(0).all()
    v, w = op(values, weights)
    assert v.shape == (3, 2) and w.shape == (4,) and v.eq(0).all() and w.eq(0).all()
    v, w = op(values)
    assert w is None and v.shape == (3, 2)


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_a_view_result_shares_its_arguments_memory(library, abi):
    """`Tensor(a) x -> Tensor(a)`: the kernel's view is what the caller gets, writes through it reach x."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"view_{abi}").default
    x = torch.zeros(3, 2)
    y = op(x, 7)
    assert y.data_ptr() == x.data_ptr() and y.shape == x.shape
    y.fill_(3.0)
    assert x.eq(3.0).all()


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_alias_sets_only_one_side_has_are_registered_as_written_and_called(library, abi):
    """vLLM's shm ops: `Tensor(a)[] ts -> ()` (W0405) and `-> Tensor[](a)` (W0404) keep their annotations in torch."""
    load_library(library)
    send = getattr(torch.ops.constructs, f"held_send_{abi}").default
    recv = getattr(torch.ops.constructs, f"held_recv_{abi}").default
    assert "Tensor(a)[] ts" in str(send._schema) and str(recv._schema).endswith("-> Tensor[](a)"), (send, recv)
    send(0, [torch.ones(2), torch.ones(3)], 2)
    with pytest.raises(RuntimeError, match="held_send: 1"):
        send(0, [torch.ones(2)], 2)
    out = recv(torch.ones(2), 3)
    assert [t.tolist() for t in out] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]


def test_any_reaches_the_kernel_as_it_was_passed(library):
    """Any on the unstable ABI: the kernel gets the IValue of whatever the caller passed."""
    load_library(library)
    op = torch.ops.constructs.any_unstable.default
    x = torch.zeros(2)
    assert op(x, 3).tolist() == [3.0, 3.0]
    assert op(x, [torch.ones(1), torch.ones(1)]).tolist() == [2.0, 2.0]
    assert op(x, None).tolist() == [100.0, 100.0]


def test_dicts_and_string_triples_reach_the_kernel_and_come_back(library):
    """Dict(str, ...) arguments and results and (str, str, str)[] on the unstable ABI: each value arrives,
    each result comes back as a dict (None for an absent optional one)."""
    load_library(library)
    op = torch.ops.constructs.dicts_unstable.default
    assert "Dict(str, Tensor)? extra=None" in str(op._schema)
    x = torch.ones(2)
    named, sizes_given = {"a": torch.zeros(2), "b": torch.full((2,), 2.0)}, {"a": 1, "b": 10}
    out, extra, sizes = op(x, named, sizes_given, {"r": [[1, 2, 3], []]}, [("paper", "cites", "author")])
    assert {k: v.tolist() for k, v in out.items()} == {"a": [2.0, 2.0], "b": [13.0, 13.0]}
    assert extra is None and sizes == {"paper": [5, 6], "r": [3, 0]}, sizes
    _, extra, _ = op(x, named, sizes_given, {}, [], {"t": torch.arange(3)})
    assert extra["t"].tolist() == [0, 1, 2]


def test_lists_of_string_lists_and_optional_bool_lists_reach_the_kernel(library):
    """str[][] and bool[]? on the unstable ABI: each value arrives, None too."""
    load_library(library)
    op = torch.ops.constructs.str_lists_unstable.default
    assert "str[][] names, bool[]? flags=None" in str(op._schema)
    x = torch.zeros(2)
    assert op(x, [["a", "bb"], [], ["ccc"]], [True, False, True]).tolist() == [206.0, 206.0]
    assert op(x, []).tolist() == [0.0, 0.0]


def test_pairs_of_ints_reach_the_kernel(library):
    """(int, int) and (int, int)? on the unstable ABI: each pair arrives, None too."""
    load_library(library)
    op = torch.ops.constructs.pairs_unstable.default
    assert "(int, int)? hi=None" in str(op._schema)
    assert op(torch.ones(1), (2, 3)).shape == (2, 3)
    assert op(torch.ones(1), (2, 3), (1, 4)).shape == (3, 7)


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_a_list_of_strings_is_returned(library, abi):
    """-> str[] on both ABIs: the kernel's strings, in order."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"strs_{abi}").default
    assert op(torch.ones(1), 3) == ["s0", "s1", "s2"] and op(torch.ones(1), 0) == []


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_lists_of_dtypes_reach_the_kernel(library, abi):
    """ScalarType[] and ScalarType[]? (PyTorch parses them; DeepSpeed registers one): each dtype arrives."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"dtypes_{abi}").default
    x = torch.ones(1)
    assert op(x, [torch.bfloat16, torch.float32]).shape == (1, 0)
    assert op(x, [torch.int8], [torch.float16, torch.float32, torch.int64]).shape == (9, 3)
    assert op(x, [], []).shape == (9, 0)


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_two_arguments_of_one_name_arrive_in_order(library, abi):
    """`(Tensor a, int id, int id)`, registered as written: each value reaches its parameter."""
    load_library(library)
    op = getattr(torch.ops.constructs, f"two_ids_{abi}").default
    assert "int id, int id)" in str(op._schema)
    assert op(torch.ones(1), 2, 3).shape == (2, 3)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        assert op(mode.from_tensor(torch.ones(1)), 2, 3).shape == (2, 3)  # the fake takes id_2 too


def test_existing_functions_get_the_converted_arguments(library):
    """`kernels:` functions take the arguments as their own types, and what
    they compute (or write) arrives."""
    load_library(library)
    ops = torch.ops.constructs
    x = torch.randn(2, 3)
    assert torch.equal(ops.existing_stable(x, 3, 0.5), torch.full((2, 3), 3.0))  # filled_like<2>: 2 * 3 * 0.5
    bias = torch.randn(2, 3)
    got = ops.existing_unstable(x, [torch.ones(2), torch.ones(1)], 2, 0.25, [1, 2, 3], bias)
    torch.testing.assert_close(got, x * 0.25 + (2 * 3 + 2) + bias)
    torch.testing.assert_close(ops.existing_unstable(x, [], 1, 1.0, []), x)
    for abi in ("stable", "unstable"):
        out, src = torch.zeros(4), torch.arange(4.0)
        getattr(ops, f"existing_into_{abi}_")(out, src)
        assert torch.equal(out, src), abi


def test_every_spec_key_is_used_here_or_in_tree():
    """With the in-tree library (built, and its generated suite run, by test_ops)."""
    keys = set(yaml12.load((SOURCE_DIR / "codegen" / "spec.schema.json").read_text())["properties"])
    used = set()
    for op, (kind, abi) in OPS.items():
        used |= set(yaml12.load(spec_text(op, kind, abi)))
    for path in SCHEMAS.glob("*.yaml"):
        used |= set(yaml12.load(path.read_text()))
    # The doc pages whose examples their own tests build and run (test_existing_kernels, test_compile_fallback).
    for page in ("existing-kernels.md", "compile.md"):
        for body in re.findall(r"^```yaml\n(# schemas/\w+\.yaml\n.*?)^```", (SOURCE_DIR / "docs" / page).read_text(),
                               re.M | re.S):
            used |= set(yaml12.load(body))
    # Specs another suite builds and runs through PyTorch: test_python_kernels' ops defined through custom_op and
    # triton_op (`define:`), which a library with C++ kernels has no use for.
    from test_python_kernels import DEFINED

    for path, text in DEFINED.items():
        if path.endswith(".yaml"):
            used |= set(yaml12.load(text))
    assert keys <= used, f"spec keys no built and tested spec uses: {sorted(keys - used)}"


def test_every_documented_construct_has_a_probe():
    """docs/fake-rules.md's builtins, tensor members and operators: each in some probe."""
    doc = (SOURCE_DIR / "docs" / "fake-rules.md").read_text()
    section = lambda title: doc.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]  # noqa: E731
    builtins = set(re.findall(r"^\| `(\w+)\(", section("Builtins"), re.M))
    members = set(re.findall(r"^\| `x\.(\w+)", section("Tensor members"), re.M))
    operators = {"+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "not", "is", "is not",
                 "if", "else", "*x"}
    assert {"ceil_div", "like_each", "dynamic", "empty_strided"} <= builtins and {"size", "ndim"} <= members
    text = "\n".join(REQUIRE_PROBES + FAKE_PROBES + list(FAKE_LETS.values()) + [FLOPS] + [
        EACH_SPEC, DYNAMIC_SPEC])
    missing = [b for b in builtins if not re.search(rf"\b{b}\(", text)]
    missing += [f"x.{m}" for m in members if not re.search(rf"\.{m}\b", text)]
    missing += [o for o in operators if o not in text]
    # min and max appear in the table as one row.
    assert "min(" in text and "max(" in text
    assert not missing, f"constructs without a probe: {missing}"
