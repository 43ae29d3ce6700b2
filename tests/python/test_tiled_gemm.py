"""Host objects carried to C++ kernels (`carry:` on an op with C++ kernels,
docs/host-objects.md), through PyTorch itself: opgen::tiled_gemm takes the
same GemmRunner as runner_gemm, but its kernel is C++ (stable ABI). The C++
library registers the flat op opgen::tiled_gemm_flat, which takes the
runner's fields; the package defines opgen::tiled_gemm in Python around it,
reading the fields each time the op runs.

- eager against PyTorch (dtypes, tiles smaller and larger than the matrix,
  a bias), the flat op called with the fields giving the same;
- both registered schemas;
- opcheck and fake against real on both ops;
- torch.compile(fullgraph=True), aot_eager and inductor: the runner is a
  graph input and the graph holds the op, not the flat op; runners with
  other tiles share one graph; another out_dtype (the field the fake reads)
  recompiles; a tile changed after compiling reaches the C++ kernel (it
  refuses a tile of 0, which the class itself would not build);
- FlopCounterMode counts the op once (the flat op inside it is not seen);
- misuse: the spec's checks (in the flat op's C++ wrapper), and another
  object where a runner belongs is a TypeError naming op, argument and class.
"""

import pytest
import torch
import torch._dynamo.testing

import opgen_ops
from helpers import aot_call_targets, assert_fake_matches_real
from opgen_ops.gemm import GemmRunner

OP = torch.ops.opgen.tiled_gemm.default
FLAT = torch.ops.opgen.tiled_gemm_flat.default


def reference(a, b, runner, bias=None):
    out = a.float() @ b.float()
    return (out if bias is None else out + bias.float()).to(runner.out_dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tiles", [(1, 1), (2, 3), (64, 64)])
def test_eager_matches_pytorch(dtype, tiles):
    torch.manual_seed(0)
    a, b, bias = torch.randn(7, 12, dtype=dtype), torch.randn(12, 5, dtype=dtype), torch.randn(5)
    for out_dtype in (torch.float32, dtype):
        runner = GemmRunner(out_dtype, *tiles)
        out = opgen_ops.tiled_gemm(a, b, runner)
        assert out.dtype == out_dtype
        torch.testing.assert_close(out, reference(a, b, runner))
        torch.testing.assert_close(opgen_ops.tiled_gemm(a, b, runner, bias), reference(a, b, runner, bias))
        # The flat op is the C++ registration: the fields, passed by hand.
        torch.testing.assert_close(FLAT(a, b, out_dtype, *tiles, bias), reference(a, b, runner, bias))


def test_empty_and_non_contiguous_inputs():
    runner = GemmRunner(torch.float32, 3, 2)
    a, b = torch.randn(8, 6)[:, ::2], torch.randn(5, 3).t()
    torch.testing.assert_close(opgen_ops.tiled_gemm(a, b, runner), reference(a, b, runner))
    assert opgen_ops.tiled_gemm(torch.randn(0, 4), torch.randn(4, 3), runner).shape == (0, 3)
    torch.testing.assert_close(opgen_ops.tiled_gemm(torch.randn(2, 0), torch.randn(0, 3), runner), torch.zeros(2, 3))


def test_the_registered_schemas():
    assert [a.name for a in OP._schema.arguments] == ["a", "b", "runner", "bias"]
    assert str(OP._schema.arguments[2].type) == "PyObject"  # how PyTorch prints an opaque type
    assert str(FLAT._schema) == ("opgen::tiled_gemm_flat(Tensor a, Tensor b, ScalarType runner_out_dtype, "
                                 "int runner_tile_m, int runner_tile_n, Tensor? bias=None) -> Tensor")
    assert torch.Tag.pt2_compliant_tag in OP.tags  # the flat op has none on the 2.10 stable ABI


def test_opcheck_and_fake_on_both_ops():
    a, b, bias = torch.randn(6, 4), torch.randn(4, 3), torch.randn(3)
    for runner in (GemmRunner(torch.float32, 2, 2), GemmRunner(torch.bfloat16)):
        torch.library.opcheck(OP, (a, b, runner))
        torch.library.opcheck(FLAT, (a, b, runner.out_dtype, runner.tile_m, runner.tile_n, bias))
        assert_fake_matches_real(OP, (a, b, runner, bias))
        assert_fake_matches_real(FLAT, (a, b, runner.out_dtype, runner.tile_m, runner.tile_n, bias))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_one_graph_for_runners_whose_read_fields_are_equal(backend):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    f = torch.compile(lambda a, b, r: opgen_ops.tiled_gemm(a, b, r) * 2, backend=counter, fullgraph=True)
    a, b = torch.randn(9, 8), torch.randn(8, 6)
    runners = [GemmRunner(torch.float32, 2, 2), GemmRunner(torch.float32, 4, 3), GemmRunner(torch.float32, 64, 64)]
    for r in runners:
        torch.testing.assert_close(f(a, b, r), reference(a, b, r) * 2)
    assert counter.frame_count == 1  # tiles differ: no rule reads them
    # A field the fake reads (the output's dtype) is guarded: another graph.
    half = GemmRunner(torch.bfloat16, 2, 2)
    out = f(a, b, half)
    assert out.dtype == torch.bfloat16 and counter.frame_count == 2
    torch.testing.assert_close(out, reference(a, b, half) * 2)
    # A field no rule reads reaches the C++ kernel as it is when the graph runs.
    runners[0].tile_n = 0
    with pytest.raises(RuntimeError, match=r"opgen::tiled_gemm: the runner's tiles must be positive, not 2x0"):
        f(a, b, runners[0])
    assert counter.frame_count == 2


def test_the_graph_holds_the_op_and_the_runner_is_an_input():
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(lambda a, b, r: opgen_ops.tiled_gemm(a, b, r), backend=keep, fullgraph=True)(
        torch.randn(3, 4), torch.randn(4, 2), GemmRunner())
    (gm,) = graphs
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert len(placeholders) == 3  # a, b and the runner
    assert [n.target for n in calls] == [OP]
    # The runner, a graph input (the binding reads it first, for its class check).
    assert calls[0].args[2] in placeholders and calls[0].args[2].name == "l_r_"

    # AOTAutograd keeps it too: CompositeExplicitAutograd is not decomposed.
    targets = aot_call_targets(lambda a, b, r: opgen_ops.tiled_gemm(a, b, r), torch.randn(3, 4), torch.randn(4, 2),
                               GemmRunner())["forward"]
    assert OP in targets and FLAT not in targets, targets


def test_flop_counter_counts_the_op_once():
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        opgen_ops.tiled_gemm(torch.randn(5, 8), torch.randn(8, 3), GemmRunner())
    assert counter.get_total_flops() == 2 * 5 * 8 * 3


def test_misuse():
    runner = GemmRunner()
    with pytest.raises(RuntimeError, match=r"opgen::tiled_gemm: requires a.size\(1\) == b.size\(0\): 4 vs 5"):
        opgen_ops.tiled_gemm(torch.randn(3, 4), torch.randn(5, 2), runner)
    with pytest.raises(RuntimeError, match=r"opgen::tiled_gemm: .*same dtype"):
        opgen_ops.tiled_gemm(torch.randn(3, 4), torch.randn(4, 2, dtype=torch.bfloat16), runner)
    # PyTorch passes any object through an opaque argument: the op's kernel checks it.
    with pytest.raises(TypeError, match=r"opgen::tiled_gemm: argument 'runner' must be a opgen_ops.gemm.GemmRunner, "
                                        r"not object"):
        opgen_ops.tiled_gemm(torch.randn(3, 4), torch.randn(4, 2), object())
