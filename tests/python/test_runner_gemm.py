"""Host objects passed whole (`carry:`, docs/host-objects.md), through
PyTorch itself, on CuTeDSL's pattern: opgen::runner_gemm takes a compiled
GEMM runner object (opgen_ops.gemm.GemmRunner, `kind: symbolic` in
schemas/_types.yaml) and its kernel is Python on every device: it calls the
runner it is given. The package registers the class with PyTorch as an
opaque type, guarded on the one field the fake reads (out_dtype).

- eager against PyTorch (dtypes, tiles smaller and larger than the matrix,
  a bias), the kernel calling the very object given;
- opcheck with a runner; fake against real;
- torch.compile(fullgraph=True), aot_eager and inductor: the runner is a
  graph input, so two runners with other tiles share one graph and each is
  the one called at run time; a runner with another out_dtype (the field
  the fake reads) recompiles and gets the right dtype; a field no rule
  reads (tile_m) changed after compiling is read at run time;
- mode="reduce-overhead" over fresh inputs (CPU: the skip is counted);
- a library of only such an op, generated and imported in a fresh
  interpreter with nothing built: no warning as the class registers, the
  same graph sharing, and its own generated suite (runners built from the
  samples' fields);
- misuse: the spec's checks run before the runner; another object where a
  runner belongs is a TypeError naming op, argument and class (PyTorch
  passes any object through an opaque argument);
- autograd (runner_gemm_backward takes the forward's runner whole): the
  gradients against PyTorch's, by the same runner; opcheck with gradients;
  compiled forward and backward, one graph for two runners, each running
  both; the AOT backward graph holds the backward op with the runner.
"""

import subprocess
import sys

import pytest
import torch
import torch._dynamo.testing

import opgen_ops
from helpers import aot_call_targets, assert_fake_matches_real
from opgen_ops.gemm import GemmRunner

OP = torch.ops.opgen.runner_gemm.default


def reference(a, b, runner, bias=None):
    out = a.float() @ b.float()
    return (out if bias is None else out + bias.float()).to(runner.out_dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("tiles", [(1, 1), (2, 3), (64, 64)])
def test_eager_calls_the_runner_given(dtype, tiles):
    torch.manual_seed(0)
    a, b, bias = torch.randn(7, 12, dtype=dtype), torch.randn(12, 5, dtype=dtype), torch.randn(5)
    runner = GemmRunner(dtype, *tiles)
    torch.testing.assert_close(opgen_ops.runner_gemm(a, b, runner), reference(a, b, runner))
    torch.testing.assert_close(opgen_ops.runner_gemm(a, b, runner, bias), reference(a, b, runner, bias))
    assert runner.calls == 2


def test_a_runner_pickles_as_its_configuration():
    """Inductor's FX graph cache pickles graph inputs into its key."""
    import pickle

    runner = GemmRunner(torch.bfloat16, 3, 5)
    copy = pickle.loads(pickle.dumps(runner))
    assert (copy.out_dtype, copy.tile_m, copy.tile_n) == (torch.bfloat16, 3, 5)
    a, b = torch.randn(7, 4), torch.randn(4, 6)
    torch.testing.assert_close(copy(a, b), reference(a, b, runner))


def test_the_registered_schema_takes_the_object():
    assert [a.name for a in OP._schema.arguments] == ["a", "b", "runner", "bias"]
    assert str(OP._schema.arguments[2].type) == "PyObject"  # how PyTorch prints an opaque type


def test_opcheck_and_fake():
    a, b = torch.randn(6, 4, requires_grad=False), torch.randn(4, 3)
    for runner in (GemmRunner(torch.float32, 2, 2), GemmRunner(torch.bfloat16)):
        torch.library.opcheck(OP, (a, b, runner))
        assert_fake_matches_real(OP, (a, b, runner, torch.randn(3)))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_one_graph_for_runners_whose_read_fields_are_equal(backend):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    f = torch.compile(lambda a, b, r: opgen_ops.runner_gemm(a, b, r) * 2, backend=counter, fullgraph=True)
    a, b = torch.randn(9, 8), torch.randn(8, 6)
    runners = [GemmRunner(torch.float32, 2, 2), GemmRunner(torch.float32, 4, 3), GemmRunner(torch.float32, 64, 64)]
    for r in runners:
        torch.testing.assert_close(f(a, b, r), reference(a, b, r) * 2)
    assert counter.frame_count == 1  # tiles differ: no rule reads them
    assert [r.calls for r in runners] == [1, 1, 1]  # each call ran the runner it was given
    # A field the fake reads (the output's dtype) is guarded: another graph.
    half = GemmRunner(torch.bfloat16, 2, 2)
    out = f(a, b, half)
    assert out.dtype == torch.bfloat16 and counter.frame_count == 2
    torch.testing.assert_close(out, reference(a, b, half) * 2)
    # A field no rule reads is the kernel's business, read at run time.
    runners[0].tile_m = 5
    runners[0]._kernel = runners[0]._compile()
    torch.testing.assert_close(f(a, b, runners[0]), reference(a, b, runners[0]) * 2)
    assert counter.frame_count == 2 and runners[0].calls == 2


def test_the_runner_is_a_graph_input():
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(lambda a, b, r: opgen_ops.runner_gemm(a, b, r), backend=keep, fullgraph=True)(
        torch.randn(3, 4), torch.randn(4, 2), GemmRunner())
    (gm,) = graphs
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert len(placeholders) == 3  # a, b and the runner
    assert [n.target for n in calls] == [OP]
    # The runner, a graph input (the binding reads it first, for its class check).
    assert calls[0].args[2] in placeholders and calls[0].args[2].name == "l_r_"


def test_checks_run_before_the_runner():
    runner = GemmRunner()
    with pytest.raises(RuntimeError, match=r"opgen::runner_gemm: requires a.size\(1\) == b.size\(0\): 4 vs 5"):
        opgen_ops.runner_gemm(torch.randn(3, 4), torch.randn(5, 2), runner)
    assert runner.calls == 0
    # PyTorch passes any object through an opaque argument: the kernel's wrapper checks it.
    with pytest.raises(TypeError, match=r"opgen::runner_gemm: argument 'runner' must be a opgen_ops.gemm.GemmRunner, "
                                        r"not object"):
        opgen_ops.runner_gemm(torch.randn(3, 4), torch.randn(4, 2), object())


class Lookalike:
    """Every field a GemmRunner has, and not one."""

    def __init__(self):
        self.out_dtype, self.tile_m, self.tile_n, self.calls = torch.float32, 4, 4, 0


@pytest.mark.parametrize("fullgraph", [True, False])
@pytest.mark.parametrize("wrong", [Lookalike, object])
def test_another_class_under_compile_is_named_with_the_argument(fullgraph, wrong):
    """Under torch.compile the binding is traced: another class's object failed
    in Dynamo naming neither argument nor class (a lookalike with the fields
    traced, and failed only when run). The binding's class check now raises
    the TypeError the eager call raises, which Dynamo reports with its text."""
    compiled = torch.compile(lambda a, b, r: opgen_ops.runner_gemm(a, b, r), fullgraph=fullgraph, backend="aot_eager")
    message = ("opgen::runner_gemm: argument 'runner' must be a opgen_ops.gemm.GemmRunner, "
               f"not {wrong.__name__}")
    with pytest.raises(Exception) as raised:
        compiled(torch.randn(3, 4), torch.randn(4, 2), wrong())
    assert message in str(raised.value), raised.value


# --- autograd: the backward op takes the forward's runner whole ---

BACKWARD = torch.ops.opgen.runner_gemm_backward.default


def reference_grads(a, b, bias, grad):
    a, b, bias = (t.detach().clone().requires_grad_() for t in (a, b, bias))
    ((a.float() @ b.float() + bias.float()) * grad).sum().backward()
    return a.grad, b.grad, bias.grad


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gradients_by_the_same_runner(dtype):
    torch.manual_seed(0)
    a = torch.randn(7, 12, dtype=dtype, requires_grad=True)
    b = torch.randn(12, 5, dtype=dtype, requires_grad=True)
    bias = torch.randn(5, requires_grad=True)
    runner = GemmRunner(torch.float32, 2, 3)
    grad = torch.randn(7, 5)
    opgen_ops.runner_gemm(a, b, runner, bias).backward(grad)
    assert runner.calls == 2  # the forward, then the backward
    for got, want in zip((a.grad, b.grad, bias.grad), reference_grads(a, b, bias, grad)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want, **({} if dtype == torch.float32 else {"atol": 2e-2, "rtol": 2e-2}))
    # Without a bias, its gradient is not asked for.
    a.grad = b.grad = None
    opgen_ops.runner_gemm(a, b, runner).sum().backward()
    assert a.grad is not None and b.grad is not None


def test_opcheck_with_gradients():
    a, b = torch.randn(6, 4, requires_grad=True), torch.randn(4, 3, requires_grad=True)
    torch.library.opcheck(OP, (a, b, GemmRunner(torch.float32, 2, 2), torch.randn(3, requires_grad=True)))
    torch.library.opcheck(BACKWARD, (torch.randn(6, 3), a.detach(), b.detach(), GemmRunner()))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_forward_and_backward_share_a_graph_across_runners(backend):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    f = torch.compile(lambda a, b, r: opgen_ops.runner_gemm(a, b, r).square().sum(), backend=counter, fullgraph=True)
    a, b = torch.randn(9, 8, requires_grad=True), torch.randn(8, 6, requires_grad=True)
    runners = [GemmRunner(torch.float32, 2, 2), GemmRunner(torch.float32, 4, 3)]
    for r in runners:
        a.grad = b.grad = None
        f(a, b, r).backward()
        a2, b2 = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
        (a2 @ b2).square().sum().backward()
        torch.testing.assert_close(a.grad, a2.grad)
        torch.testing.assert_close(b.grad, b2.grad)
    assert counter.frame_count == 1
    assert [r.calls for r in runners] == [2, 2]  # each runner ran its forward and its backward


def test_the_backward_graph_passes_the_runner_on():
    calls = aot_call_targets(lambda a, b, r: opgen_ops.runner_gemm(a, b, r).sum(), torch.randn(3, 4, requires_grad=True),
                             torch.randn(4, 2, requires_grad=True), GemmRunner(), backward=True)
    assert OP in calls["forward"] and BACKWARD not in calls["forward"], calls
    assert BACKWARD in calls["backward"] and OP not in calls["backward"], calls


# --- a library of only this op, generated and imported with nothing built ---

TYPES = """\
host_objects:
  GemmRunner:
    class: pyrunner.GemmRunner
    kind: symbolic
    fields: {out_dtype: ScalarType, tile_m: int, tile_n: int}
"""

SPEC = """\
schema: "gemm(Tensor a, Tensor b, GemmRunner runner, Tensor? bias=None) -> Tensor"
carry: [runner]
dispatch: [CPU]
kernels:
  CPU: {python: "pyrunner:run"}
tags: [pt2_compliant_tag]
require: [a.size(1) == b.size(0)]
fake: empty([a.size(0), b.size(1)], dtype=runner.out_dtype)
samples:
  - args:
      a: {shape: [5, 8]}
      b: {shape: [8, 6]}
      runner: {fields: {out_dtype: float32, tile_m: 2, tile_n: 4}}
"""

# In a fresh interpreter: the package registers the class as it is imported,
# before defining the op, with no warning on this torch (>= 2.11).
CHECKS = r"""
import warnings
import torch
import torch._dynamo.testing

with warnings.catch_warnings():
    warnings.simplefilter("error")
    import pyg
from pyrunner import GemmRunner

a, b = torch.randn(9, 8), torch.randn(8, 6)
runners = [GemmRunner(torch.float32, 2, 2), GemmRunner(torch.float32, 4, 3), GemmRunner(torch.bfloat16, 2, 2)]
counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
f = torch.compile(lambda a, b, r: pyg.gemm(a, b, r) * 2, backend=counter, fullgraph=True)
for r in runners:
    torch.testing.assert_close(pyg.gemm(a, b, r), (a @ b).to(r.out_dtype))
    torch.testing.assert_close(f(a, b, r), ((a @ b) * 2).to(r.out_dtype))
assert counter.frame_count == 2, counter.frame_count
assert [r.calls for r in runners] == [2, 2, 2]
print("ok")
"""


def test_a_python_only_library_carries_runners(tmp_path):
    from cli_helpers import SOURCE_DIR, run_opgen

    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "_types.yaml").write_text(TYPES)
    (tmp_path / "schemas" / "gemm.yaml").write_text(SPEC)
    (tmp_path / "pyrunner.py").write_text((SOURCE_DIR / "python" / "opgen_ops" / "gemm.py").read_text())
    result = run_opgen("generate", "--namespace", "pyg", "-o", tmp_path / "gen", tmp_path / "schemas")
    assert result.returncode == 0, result.stderr
    env = {"PYTHONPATH": f"{tmp_path / 'gen' / 'python'}:{tmp_path}:{SOURCE_DIR / 'python'}", "PATH": "/usr/bin:/bin"}
    for code in (CHECKS, "import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'gen/tests']))"):
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr


def test_reduce_overhead_over_fresh_inputs():
    """mode="reduce-overhead": right over several calls with fresh inputs. On
    the CPU Inductor skips CUDA graphs and counts the skip; the device check
    runs the CUDA samples."""
    from torch._dynamo.utils import counters

    counters.clear()
    runner = GemmRunner(torch.float32, 4, 4)
    f = torch.compile(lambda a, b, r: opgen_ops.runner_gemm(a, b, r) + 1, mode="reduce-overhead", fullgraph=True)
    for _ in range(3):
        a, b = torch.randn(6, 8), torch.randn(8, 5)
        torch.testing.assert_close(f(a, b, runner), a @ b + 1)
    assert runner.calls == 3
    assert counters["inductor"]["cudagraph_skips"] == 1
