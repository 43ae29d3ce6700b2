"""Every in-tree op through PyTorch itself: numerics against a reference,
opcheck, fake vs real, torch.compile(fullgraph=True) static and dynamic,
gradients, and clear errors on bad input."""

import pytest
import torch

import opgen_ops
from helpers import assert_fake_matches_real, clone_args, compile_fullgraph

OPS = torch.ops.opgen
SHAPES = [(4, 32), (3, 5, 33), (2, 1), (0, 16), (7, 1031)]
FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]


def tol(dtype):
    return {
        torch.float64: dict(atol=1e-10, rtol=1e-10),
        torch.float32: dict(atol=1e-5, rtol=1e-5),
        torch.float16: dict(atol=2e-3, rtol=2e-3),
        torch.bfloat16: dict(atol=2e-2, rtol=2e-2),
    }[dtype]


def ref_rms_norm(x, w, eps):
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(acc)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.to(acc)).to(x.dtype)


# ---------------------------------------------------------------- rms_norm


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_rms_norm_numerics(shape, dtype):
    x = torch.randn(shape, dtype=dtype)
    w = torch.randn(shape[-1], dtype=dtype)
    torch.testing.assert_close(opgen_ops.rms_norm(x, w, 1e-5), ref_rms_norm(x, w, 1e-5), **tol(dtype))


def test_rms_norm_shim_is_the_overload():
    assert opgen_ops.rms_norm is OPS.rms_norm.default


def test_rms_norm_default_eps():
    x, w = torch.randn(3, 8), torch.randn(8)
    torch.testing.assert_close(opgen_ops.rms_norm(x, w), ref_rms_norm(x, w, 1e-6))


@pytest.mark.parametrize("shape", [(4, 32), (2, 3, 17)])
def test_rms_norm_opcheck(shape):
    x = torch.randn(shape, requires_grad=True)
    w = torch.randn(shape[-1], requires_grad=True)
    torch.library.opcheck(OPS.rms_norm.default, (x, w, 1e-6))


def test_rms_norm_gradcheck():
    x = torch.randn(3, 7, dtype=torch.float64, requires_grad=True)
    w = torch.randn(7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: opgen_ops.rms_norm(a, b, 1e-6), (x, w))


def test_rms_norm_grad_matches_reference():
    x = torch.randn(5, 12, requires_grad=True)
    w = torch.randn(12, requires_grad=True)
    g = torch.randn(5, 12)
    gx, gw = torch.autograd.grad(opgen_ops.rms_norm(x, w, 1e-6), (x, w), g)
    rx, rw = torch.autograd.grad(ref_rms_norm(x, w, 1e-6), (x, w), g)
    torch.testing.assert_close(gx, rx)
    torch.testing.assert_close(gw, rw)


@pytest.mark.parametrize("shape", SHAPES[:3])
def test_rms_norm_fake_matches_real(shape):
    assert_fake_matches_real(OPS.rms_norm.default, (torch.randn(shape), torch.randn(shape[-1]), 1e-6))


@pytest.mark.parametrize("dynamic", [False, True])
def test_rms_norm_compile(dynamic):
    fn = compile_fullgraph(lambda x, w: opgen_ops.rms_norm(x, w, 1e-6) * 2, dynamic)
    for rows in (3, 5, 9):
        x, w = torch.randn(rows, 16), torch.randn(16)
        torch.testing.assert_close(fn(x, w), ref_rms_norm(x, w, 1e-6) * 2)


def test_rms_norm_compile_backward():
    fn = compile_fullgraph(lambda x, w: opgen_ops.rms_norm(x, w, 1e-6).sum(), True)
    x = torch.randn(4, 8, requires_grad=True)
    w = torch.randn(8, requires_grad=True)
    fn(x, w).backward()
    rx, rw = torch.autograd.grad(ref_rms_norm(x, w, 1e-6).sum(), (x, w))
    torch.testing.assert_close(x.grad, rx)
    torch.testing.assert_close(w.grad, rw)


def test_rms_norm_errors_name_op_and_argument():
    with pytest.raises(RuntimeError, match=r"opgen::rms_norm.*'input'.*dtype"):
        opgen_ops.rms_norm(torch.ones(2, 4, dtype=torch.int32), torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match=r"opgen::rms_norm.*'weight'.*same dtype"):
        opgen_ops.rms_norm(torch.ones(2, 4), torch.ones(4, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"opgen::rms_norm.*weight.size\(0\) == input.size\(-1\)"):
        opgen_ops.rms_norm(torch.ones(2, 4), torch.ones(5))
    with pytest.raises(RuntimeError, match=r"opgen::rms_norm.*'weight'.*1 dimension"):
        opgen_ops.rms_norm(torch.ones(2, 4), torch.ones(1, 4))


def test_rms_norm_fake_errors_name_op_and_argument():
    with FakeMode() as mode:
        x = mode.from_tensor(torch.ones(2, 4))
        with pytest.raises(RuntimeError, match=r"opgen::rms_norm.*weight.size\(0\) == input.size\(-1\)"):
            opgen_ops.rms_norm(x, mode.from_tensor(torch.ones(5)))


def FakeMode():
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode()


# ------------------------------------------------------- rms_norm_backward


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rms_norm_backward_numerics(dtype):
    x = torch.randn(6, 40, dtype=dtype)
    w = torch.randn(40, dtype=dtype)
    g = torch.randn(6, 40, dtype=dtype)
    gx, gw = OPS.rms_norm_backward(g, x, w, 1e-6)
    xr = x.double().requires_grad_()
    wr = w.double().requires_grad_()
    rx, rw = torch.autograd.grad(ref_rms_norm(xr, wr, 1e-6), (xr, wr), g.double())
    t = tol(dtype) if dtype != torch.float32 else dict(atol=1e-4, rtol=1e-4)
    if dtype in (torch.float16, torch.bfloat16):
        t = dict(atol=1e-1, rtol=5e-2)
    torch.testing.assert_close(gx.double(), rx, **t)
    torch.testing.assert_close(gw.double(), rw, **t)
    assert gx.dtype == dtype and gw.dtype == dtype


def test_rms_norm_backward_opcheck():
    x, w, g = torch.randn(3, 8), torch.randn(8), torch.randn(3, 8)
    torch.library.opcheck(OPS.rms_norm_backward.default, (g, x, w, 1e-6))


# ------------------------------------------------------ fused_add_rms_norm_


def ref_fused_add_rms_norm(x, r, w, eps):
    r2 = (x.double() + r.double()).to(x.dtype)
    return ref_rms_norm(r2, w, eps), r2


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_fused_add_rms_norm_numerics(shape, dtype):
    x, r = torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype)
    w = torch.randn(shape[-1], dtype=dtype)
    want_x, want_r = ref_fused_add_rms_norm(x, r, w, 1e-6)
    assert opgen_ops.fused_add_rms_norm_(x, r, w, 1e-6) is None
    torch.testing.assert_close(r, want_r, **tol(dtype))
    torch.testing.assert_close(x, want_x, **tol(dtype))


def test_fused_add_rms_norm_opcheck():
    args = (torch.randn(4, 16), torch.randn(4, 16), torch.randn(16), 1e-6)
    torch.library.opcheck(OPS.fused_add_rms_norm_.default, args)


def test_fused_add_rms_norm_schema_has_mutation_annotations():
    # The spec spells it as vLLM does, `Tensor! input`: PyTorch's printed form
    # of that, `Tensor($0! -> )`, does not parse, so registering it would have
    # aborted the load. Registered as written, it means the same schema.
    schema = OPS.fused_add_rms_norm_.default._schema
    written = [a.alias_info is not None and a.alias_info.is_write for a in schema.arguments]
    assert written == [True, True, False, False]
    assert "Tensor($0! -> ) input, Tensor($1! -> ) residual" in str(schema)
    assert schema == torch._C.parse_schema(
        "opgen::fused_add_rms_norm_(Tensor! input, Tensor! residual, Tensor weight, float eps=1e-06) -> ()"
    )


@pytest.mark.parametrize("dynamic", [False, True])
def test_fused_add_rms_norm_compile(dynamic):
    def fn(x, r, w):
        opgen_ops.fused_add_rms_norm_(x, r, w, 1e-6)
        return x + 1, r

    compiled = compile_fullgraph(fn, dynamic)
    for rows in (2, 5):
        x, r, w = torch.randn(rows, 8), torch.randn(rows, 8), torch.randn(8)
        want = fn(*clone_args((x, r, w)))
        got = compiled(x, r, w)
        torch.testing.assert_close(got, want)


def test_fused_add_rms_norm_errors():
    with pytest.raises(RuntimeError, match=r"opgen::fused_add_rms_norm_.*'residual'.*contiguous"):
        opgen_ops.fused_add_rms_norm_(torch.randn(4, 8), torch.randn(8, 4).t(), torch.randn(8))


# ------------------------------------------------------- multi_tensor_scale_


def test_multi_tensor_scale_numerics():
    ts = [torch.randn(5), torch.randn(3, 7, dtype=torch.float16), torch.randn(0), torch.randn(1031, dtype=torch.bfloat16)]
    want = [t.double() * 0.5 for t in ts]
    opgen_ops.multi_tensor_scale_(ts, 0.5)
    for t, w in zip(ts, want):
        torch.testing.assert_close(t.double(), w, **tol(t.dtype))


def test_multi_tensor_scale_opcheck():
    torch.library.opcheck(OPS.multi_tensor_scale_.default, ([torch.randn(4), torch.randn(2, 3)], 2.0))


@pytest.mark.parametrize("dynamic", [False, True])
def test_multi_tensor_scale_compile(dynamic):
    def fn(a, b):
        opgen_ops.multi_tensor_scale_([a, b], 3.0)
        return a.sum() + b.sum()

    a, b = torch.randn(4), torch.randn(6)
    want = (a * 3).sum() + (b * 3).sum()
    torch.testing.assert_close(compile_fullgraph(fn, dynamic)(a, b), want)


# -------------------------------------------------------------- quantize_fp8


def ref_quantize_fp8(x, scale=None):
    if scale is None:
        scale = (x.float().abs().amax().clamp(min=1e-12) / 448.0).reshape(())
    q = (x.float() / scale).clamp(-448, 448).to(torch.float8_e4m3fn)
    return q, scale.float().reshape(())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(4, 32), (3, 5, 33), (1031,)])
def test_quantize_fp8_numerics(shape, dtype):
    x = torch.randn(shape, dtype=dtype) * 10
    q, s = opgen_ops.quantize_fp8(x)
    rq, rs = ref_quantize_fp8(x)
    assert q.dtype == torch.float8_e4m3fn and s.dtype == torch.float32 and s.dim() == 0
    torch.testing.assert_close(s, rs)
    torch.testing.assert_close(q.float(), rq.float(), atol=0, rtol=0.07)


def test_quantize_fp8_with_scale():
    x = torch.randn(8, 16)
    scale = torch.tensor([0.01])
    q, s = opgen_ops.quantize_fp8(x, scale)
    rq, rs = ref_quantize_fp8(x, scale)
    torch.testing.assert_close(s, rs)
    torch.testing.assert_close(q.float(), rq.float(), atol=0, rtol=0.07)


def test_quantize_fp8_opcheck():
    torch.library.opcheck(OPS.quantize_fp8.default, (torch.randn(4, 8),))
    torch.library.opcheck(OPS.quantize_fp8.default, (torch.randn(4, 8), torch.tensor(0.05)))


def test_quantize_fp8_fake_matches_real():
    assert_fake_matches_real(OPS.quantize_fp8.default, (torch.randn(3, 9),))
    assert_fake_matches_real(OPS.quantize_fp8.default, (torch.randn(3, 9), torch.tensor([0.5])))


@pytest.mark.parametrize("dynamic", [False, True])
def test_quantize_fp8_compile(dynamic):
    fn = compile_fullgraph(lambda x: opgen_ops.quantize_fp8(x), dynamic)
    for rows in (2, 3, 6):
        x = torch.randn(rows, 8)
        q, s = fn(x)
        rq, rs = ref_quantize_fp8(x)
        torch.testing.assert_close(s, rs)
        torch.testing.assert_close(q.float(), rq.float(), atol=0, rtol=0.07)


def test_quantize_fp8_errors():
    with pytest.raises(RuntimeError, match=r"opgen::quantize_fp8.*'scale'.*dtype"):
        opgen_ops.quantize_fp8(torch.randn(4), torch.tensor([1.0], dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"opgen::quantize_fp8.*'input'.*dtype"):
        opgen_ops.quantize_fp8(torch.ones(4, dtype=torch.int64))


# -------------------------------------------------------- multi_tensor_l2norm


def test_multi_tensor_l2norm_numerics():
    ts = [torch.randn(5), torch.randn(3, 7, dtype=torch.float16), torch.randn(0), torch.randn(1031, dtype=torch.bfloat16)]
    total, per = opgen_ops.multi_tensor_l2norm(ts)
    want_per = torch.stack([t.double().norm() for t in ts]).float()
    assert total.dtype == torch.float32 and total.dim() == 0
    assert per.shape == (len(ts),)
    torch.testing.assert_close(per, want_per, atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(total, want_per.double().norm().float(), atol=1e-3, rtol=1e-3)


def test_multi_tensor_l2norm_opcheck():
    torch.library.opcheck(OPS.multi_tensor_l2norm.default, ([torch.randn(4), torch.randn(2, 3)],))


def test_multi_tensor_l2norm_fake_matches_real():
    assert_fake_matches_real(OPS.multi_tensor_l2norm.default, ([torch.randn(4), torch.randn(2, 3), torch.randn(1)],))


@pytest.mark.parametrize("dynamic", [False, True])
def test_multi_tensor_l2norm_compile(dynamic):
    fn = compile_fullgraph(lambda a, b: opgen_ops.multi_tensor_l2norm([a, b]), dynamic)
    for n in (3, 5):
        a, b = torch.randn(n), torch.randn(n, 2)
        total, per = fn(a, b)
        torch.testing.assert_close(per, torch.stack([a.norm(), b.norm()]))


def test_a_failed_require_prints_the_values_it_compared():
    # `weight.size(0) == input.size(-1)`: the C++ wrapper and the fake both say 16 vs 33.
    x, w = torch.randn(2, 33), torch.randn(16)
    with pytest.raises(RuntimeError, match=r"opgen::rms_norm: requires weight\.size\(0\) == input\.size\(-1\): 16 vs 33"):
        opgen_ops.rms_norm(x, w)
    with pytest.raises(RuntimeError, match=r"requires weight\.size\(0\) == input\.size\(-1\): 16 vs 33"):
        opgen_ops.rms_norm(x.to("meta"), w.to("meta"))
