"""Tensor subclasses at the op boundary (docs/host-objects.md), through
PyTorch itself, on TransformerEngine's Linear: fp8_linear takes two
Float8Quantizers and an optional ProcessGroup and returns the output and
both quantized operands as Float8Tensors (schemas/_types.yaml, a wrapper
subclass in opgen_ops.quantization); fp8_linear_backward takes them back,
bound by name by the spec's autograd, their metadata too. The registered
ops are flat: the forward returns each Float8Tensor's inner tensors, the
backward takes them and the metadata; the package's bindings rebuild and
flatten the objects.

- eager: forward and gradients against PyTorch through the dequantized
  operands; the results are Float8Tensors with the metadata the spec's
  result_meta gives; the backward's binding taken with them; a plain tensor
  where a Float8Tensor belongs is a TypeError naming op, argument and class;
- opcheck on the flat forward (with autograd) and the flat backward; fake
  against real;
- torch.compile(fullgraph=True), aot_eager and inductor: Float8Tensor
  results returned from the graph, Float8Tensor graph inputs, built in-graph
  and consumed; the AOT graphs hold only the flat ops (forward and backward
  one op each); equal metadata reuses a graph, other metadata recompiles;
  mode="reduce-overhead" over fresh inputs (CPU: the skip is counted);
- the row-parallel group (gloo, one rank).
"""

import pytest
import torch
import torch._dynamo.testing

import opgen_ops
from helpers import assert_fake_matches_real
from opgen_ops.quantization import Float8Quantizer, Float8Tensor

OPS = torch.ops.opgen
FP8_MAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}
QX, QW = Float8Quantizer(torch.float8_e4m3fn), Float8Quantizer(torch.float8_e4m3fn, force_pow_2_scales=True)


def quantize(x, quantizer):
    """cast_to_fp8's math in PyTorch (test_host_objects.py checks the op against it)."""
    fp8_max = FP8_MAX[quantizer.fp8_dtype]
    v = x.float()
    amax = v.abs().amax()
    scale_inv = torch.where(amax > 0, amax.clamp_min(quantizer.amax_epsilon) / fp8_max, torch.ones_like(amax))
    if quantizer.force_pow_2_scales:
        scale_inv = torch.exp2(torch.ceil(torch.log2(scale_inv)))
    return (v / scale_inv).clamp(-fp8_max, fp8_max).to(quantizer.fp8_dtype), scale_inv


def linear_reference(x, w, qx, qw):
    """The forward in PyTorch: both operands through the quantizers' casts,
    dequantized, a float32 GEMM; and the dequantized operands (what the
    gradients are taken through, straight through the casts)."""
    x_fp8, x_scale_inv = quantize(x, qx)
    w_fp8, w_scale_inv = quantize(w, qw)
    x_deq, w_deq = x_fp8.float() * x_scale_inv, w_fp8.float() * w_scale_inv
    return (x_deq @ w_deq.t()).to(x.dtype), x_deq, w_deq


def tolerance(dtype):
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1e-2, "atol": 1e-4}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_forward_returns_float8_tensors_and_backward_takes_them(dtype):
    torch.manual_seed(0)
    x = torch.randn(3, 5, 16, dtype=dtype, requires_grad=True)
    w = (torch.randn(8, 16) / 4).to(dtype).requires_grad_()
    out, x_fp8, w_fp8 = opgen_ops.fp8_linear(x, w, QX, QW)
    expected, x_deq, w_deq = linear_reference(x.detach(), w.detach(), QX, QW)
    torch.testing.assert_close(out, expected, **tolerance(dtype))
    for t, q, deq in ((x_fp8, QX, x_deq), (w_fp8, QW, w_deq)):
        assert type(t) is Float8Tensor and not t.requires_grad
        # result_meta: the quantizer's format, the operand's dtype.
        assert (t.fp8_dtype, t.orig_dtype, t.dtype) == (q.fp8_dtype, dtype, dtype)
        assert t._data.dtype == torch.uint8 and t._scale_inv.dtype == torch.float32 and t.shape == deq.shape
        torch.testing.assert_close(t.dequantize(torch.float32), deq, rtol=0, atol=0)
    grad = torch.randn_like(out)
    out.backward(grad)
    g = grad.float()
    grad_x, grad_w = (g @ w_deq).to(dtype), (g.reshape(-1, 8).t() @ x_deq.reshape(-1, 16)).to(dtype)
    torch.testing.assert_close(x.grad, grad_x, **tolerance(dtype))
    torch.testing.assert_close(w.grad, grad_w, **tolerance(dtype))
    # The backward's own binding takes the Float8Tensors.
    bx, bw = opgen_ops.fp8_linear_backward(grad, x_fp8, w_fp8)
    torch.testing.assert_close(bx, x.grad, rtol=0, atol=0)
    torch.testing.assert_close(bw, w.grad, rtol=0, atol=0)


def test_a_subclass_result_is_rebuilt_from_the_flat_results():
    x, w = torch.randn(4, 16), torch.randn(8, 16)
    flat = OPS.fp8_linear.default(x, w, torch.float8_e4m3fn, 0.0, False, torch.float8_e5m2, 0.0, True)
    assert len(flat) == 5 and all(type(t) is torch.Tensor for t in flat)
    out, x_fp8, w_fp8 = opgen_ops.fp8_linear(x, w, QX, Float8Quantizer(torch.float8_e5m2, force_pow_2_scales=True))
    for t, (data, scale_inv) in ((x_fp8, flat[1:3]), (w_fp8, flat[3:5])):
        assert torch.equal(t._data, data) and torch.equal(t._scale_inv, scale_inv)
    assert w_fp8.fp8_dtype == torch.float8_e5m2
    # The object flattens back the way torch.compile flattens it.
    names, meta = x_fp8.__tensor_flatten__()
    assert names == ["_data", "_scale_inv"] and meta == {"fp8_dtype": torch.float8_e4m3fn, "orig_dtype": torch.float32}


def test_a_plain_tensor_where_a_subclass_belongs_is_a_type_error():
    grad, x_fp8, w_fp8 = torch.randn(4, 8), *opgen_ops.fp8_linear(torch.randn(4, 16), torch.randn(8, 16), QX, QW)[1:]
    with pytest.raises(TypeError, match=r"opgen::fp8_linear_backward: argument 'input_fp8' must be a "
                                        r"opgen_ops.quantization.Float8Tensor \(with the fields _data, _scale_inv, "
                                        r"fp8_dtype, orig_dtype\), not Tensor"):
        opgen_ops.fp8_linear_backward(grad, torch.randn(4, 16), w_fp8)


def test_opcheck_and_fake_on_the_flat_ops():
    x, w = torch.randn(4, 16, requires_grad=True), torch.randn(8, 16, requires_grad=True)
    forward = (x, w, torch.float8_e4m3fn, 0.0, False, torch.float8_e5m2, 0.0, True)
    torch.library.opcheck(OPS.fp8_linear.default, forward)
    assert_fake_matches_real(OPS.fp8_linear.default, forward)
    _, x_fp8, w_fp8 = opgen_ops.fp8_linear(x.detach(), w.detach(), QX, QW)
    backward = (torch.randn(4, 8), x_fp8._data, x_fp8._scale_inv, x_fp8.fp8_dtype, x_fp8.orig_dtype,
                w_fp8._data, w_fp8._scale_inv, w_fp8.fp8_dtype, w_fp8.orig_dtype)
    torch.library.opcheck(OPS.fp8_linear_backward.default, backward)
    assert_fake_matches_real(OPS.fp8_linear_backward.default, backward)


def opgen_nodes(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function" and "opgen" in str(n.target)]


def keeping_graphs(graphs):
    """An aot_eager-like backend that keeps the AOT forward and backward graphs."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    def keep(name):
        def compiler(gm, example_inputs):
            graphs[name] = gm
            return make_boxed_func(gm.forward)
        return compiler

    return aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_forward_and_backward_are_one_op_each(backend):
    """TE's promise: under torch.compile(fullgraph=True) the forward and the
    backward are each a single op of their graphs, the quantizers constants,
    the Float8Tensors flattened."""
    graphs = {}
    x = torch.randn(6, 16, requires_grad=True)
    w = torch.randn(8, 16, requires_grad=True)
    f = torch.compile(lambda x, w: opgen_ops.fp8_linear(x, w, QX, QW)[0].sum(),
                      backend=keeping_graphs(graphs) if backend == "aot_eager" else backend, fullgraph=True)
    loss = f(x, w)
    loss.backward()
    expected, x_deq, w_deq = linear_reference(x.detach(), w.detach(), QX, QW)
    torch.testing.assert_close(loss, expected.sum())
    torch.testing.assert_close(x.grad, torch.ones(6, 8) @ w_deq)
    torch.testing.assert_close(w.grad, torch.ones(6, 8).t() @ x_deq)
    if backend == "aot_eager":
        assert opgen_nodes(graphs["forward"]) == [OPS.fp8_linear.default]
        assert opgen_nodes(graphs["backward"]) == [OPS.fp8_linear_backward.default]


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_returns_float8_tensors(backend):
    x, w = torch.randn(4, 16), torch.randn(8, 16)
    eager = opgen_ops.fp8_linear(x, w, QX, QW)
    compiled = torch.compile(lambda x, w: opgen_ops.fp8_linear(x, w, QX, QW), backend=backend, fullgraph=True)(x, w)
    for e, c in zip(eager[1:], compiled[1:]):
        assert type(c) is Float8Tensor and (c.fp8_dtype, c.orig_dtype) == (e.fp8_dtype, e.orig_dtype)
        assert torch.equal(c._data, e._data) and torch.equal(c._scale_inv, e._scale_inv)
    torch.testing.assert_close(compiled[0], eager[0])


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_takes_float8_tensor_inputs(backend):
    """Float8Tensor graph inputs: the graph holds only the flat backward op;
    equal metadata reuses the graph, another fp8_dtype recompiles."""
    graphs = {}
    counter = torch._dynamo.testing.CompileCounterWithBackend(keeping_graphs(graphs) if backend == "aot_eager" else backend)
    step = torch.compile(lambda g, a, b: opgen_ops.fp8_linear_backward(g, a, b), backend=counter, fullgraph=True)
    grad = torch.randn(4, 8)
    for qw in (QW, QW, Float8Quantizer(torch.float8_e5m2)):
        _, x_fp8, w_fp8 = opgen_ops.fp8_linear(torch.randn(4, 16), torch.randn(8, 16), QX, qw)
        for got, want in zip(step(grad, x_fp8, w_fp8), opgen_ops.fp8_linear_backward(grad, x_fp8, w_fp8)):
            torch.testing.assert_close(got, want)
    assert counter.frame_count == 2  # the e5m2 weight: a field the op reads changed
    if backend == "aot_eager":
        assert opgen_nodes(graphs["forward"]) == [OPS.fp8_linear_backward.default]


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_builds_and_consumes_float8_tensors_in_graph(backend):
    x, w, grad = torch.randn(4, 16), torch.randn(8, 16), torch.randn(4, 8)

    def both(x, w, grad):
        out, x_fp8, w_fp8 = opgen_ops.fp8_linear(x, w, QX, QW)
        return out, *opgen_ops.fp8_linear_backward(grad, x_fp8, w_fp8)

    for got, want in zip(torch.compile(both, backend=backend, fullgraph=True)(x, w, grad), both(x, w, grad)):
        torch.testing.assert_close(got, want)


def test_row_parallel_group(gloo_group):
    x, w = torch.randn(4, 16), torch.randn(8, 16)
    alone = opgen_ops.fp8_linear(x, w, QX, QW)[0]
    torch.testing.assert_close(opgen_ops.fp8_linear(x, w, QX, QW, tp_group=gloo_group)[0], alone)  # one rank
    compiled = torch.compile(lambda x, w, g: opgen_ops.fp8_linear(x, w, QX, QW, g)[0], backend="aot_eager",
                             fullgraph=True)
    torch.testing.assert_close(compiled(x, w, gloo_group), alone)


def test_reduce_overhead_over_fresh_inputs():
    """mode="reduce-overhead" with Float8Tensor results: right over several
    calls with fresh inputs (on the CPU Inductor skips CUDA graphs and counts
    the skip)."""
    from torch._dynamo.utils import counters

    counters.clear()
    f = torch.compile(lambda x, w: opgen_ops.fp8_linear(x, w, QX, QW), mode="reduce-overhead", fullgraph=True)
    for _ in range(3):
        x, w = torch.randn(4, 16), torch.randn(8, 16)
        got, want = f(x, w), opgen_ops.fp8_linear(x, w, QX, QW)
        torch.testing.assert_close(got[0], want[0])
        for g, e in zip(got[1:], want[1:]):
            assert type(g) is Float8Tensor and torch.equal(g._data, e._data) and torch.equal(g._scale_inv, e._scale_inv)
    assert counters["inductor"]["cudagraph_skips"] == 1
