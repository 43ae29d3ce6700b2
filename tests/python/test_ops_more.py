"""The second batch of in-tree ops through PyTorch itself: numerics against a
PyTorch reference (dtypes, odd sizes, empty tensors, long rows), gradients
against autograd and gradcheck, opcheck, fake vs real, torch.compile
(fullgraph, static and dynamic shapes) and errors that name the op and the
argument. CPU kernels only (the CUDA kernels run in bench/kernels.py and on a
GPU machine; see the CUDA-only tests at the end)."""

import math

import pytest
import torch
import torch.nn.functional as F

import opgen_ops
from helpers import assert_fake_matches_real, clone_args, compile_fullgraph

OPS = torch.ops.opgen
FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def tol(dtype):
    return {
        torch.float64: dict(atol=1e-10, rtol=1e-10),
        torch.float32: dict(atol=1e-5, rtol=1e-5),
        torch.float16: dict(atol=2e-3, rtol=2e-3),
        torch.bfloat16: dict(atol=2e-2, rtol=2e-2),
    }[dtype]


def grad_tol(dtype):
    """Gradients sum many rounded terms: looser than forward values."""
    return {
        torch.float64: dict(atol=1e-9, rtol=1e-9),
        torch.float32: dict(atol=1e-4, rtol=1e-4),
        torch.float16: dict(atol=2e-2, rtol=2e-2),
        torch.bfloat16: dict(atol=1e-1, rtol=5e-2),
    }[dtype]


def acc(dtype):
    return torch.float64 if dtype == torch.float64 else torch.float32


def fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode()


# ================================================================ layer_norm

LN_SHAPES = [(4, 32), (3, 5, 33), (2, 1), (0, 16), (7, 1031), (2, 5003)]


def ref_layer_norm(x, w, b, eps):
    a = acc(x.dtype)
    xf = x.to(a)
    mean = xf.mean(-1)
    rstd = torch.rsqrt((xf - mean[..., None]).pow(2).mean(-1) + eps)
    y = F.layer_norm(xf, (x.shape[-1],), w.to(a), None if b is None else b.to(a), eps)
    return y.to(x.dtype), mean, rstd


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", LN_SHAPES)
def test_layer_norm_numerics(shape, dtype, with_bias):
    x = torch.randn(shape, dtype=dtype) * 3 + 1
    w = torch.randn(shape[-1], dtype=dtype)
    b = torch.randn(shape[-1], dtype=dtype) if with_bias else None
    y, mean, rstd = opgen_ops.layer_norm(x, w, b, 1e-5)
    ry, rmean, rrstd = ref_layer_norm(x, w, b, 1e-5)
    torch.testing.assert_close(y, ry, **tol(dtype))
    assert mean.dtype == acc(dtype) and rstd.dtype == acc(dtype) and mean.shape == x.shape[:-1]
    stat_tol = tol(torch.float64) if dtype == torch.float64 else dict(atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mean, rmean, **stat_tol)
    torch.testing.assert_close(rstd, rrstd, **stat_tol)


def test_layer_norm_default_bias_and_eps():
    x, w = torch.randn(3, 8), torch.randn(8)
    y, _, rstd = opgen_ops.layer_norm(x, w)
    torch.testing.assert_close(y, ref_layer_norm(x, w, None, 1e-5)[0])
    torch.testing.assert_close(rstd, ref_layer_norm(x, w, None, 1e-5)[2])


def test_layer_norm_large_offset_is_exact():
    # A large common offset: a one-pass sum-of-squares variance would cancel.
    x = torch.randn(4, 4096) + 1e4  # float32 resolves ~1e-3 at 1e4
    w, b = torch.ones(4096), torch.zeros(4096)
    want = F.layer_norm(x.double(), (4096,), w.double(), b.double(), 1e-5)
    torch.testing.assert_close(opgen_ops.layer_norm(x, w, b)[0].double(), want, atol=2e-3, rtol=0)


def test_layer_norm_empty_last_dim():
    x, w = torch.randn(3, 0), torch.randn(0)
    y, mean, rstd = opgen_ops.layer_norm(x, w, None, 1e-4)
    assert y.shape == (3, 0)
    torch.testing.assert_close(mean, torch.zeros(3))
    torch.testing.assert_close(rstd, torch.full((3,), 1 / math.sqrt(1e-4)))


def test_layer_norm_non_contiguous_input():
    x = torch.randn(16, 6).t()  # [6, 16], strides (1, 6)
    w, b = torch.randn(16), torch.randn(16)
    y = opgen_ops.layer_norm(x, w, b)[0]
    assert y.stride() == torch.empty_like(x).stride()
    torch.testing.assert_close(y, ref_layer_norm(x, w, b, 1e-5)[0])


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_grad_matches_reference(dtype, with_bias):
    x = (torch.randn(6, 40, dtype=dtype) * 2).requires_grad_()
    w = torch.randn(40, dtype=dtype).requires_grad_()
    b = torch.randn(40, dtype=dtype).requires_grad_() if with_bias else None
    g = torch.randn(6, 40, dtype=dtype)
    inputs = (x, w) + ((b,) if with_bias else ())
    got = torch.autograd.grad(opgen_ops.layer_norm(x, w, b)[0], inputs, g)
    xr, wr = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    br = b.detach().double().requires_grad_() if with_bias else None
    want = torch.autograd.grad(F.layer_norm(xr, (40,), wr, br, 1e-5), (xr, wr) + ((br,) if with_bias else ()), g.double())
    for got_i, want_i, inp in zip(got, want, inputs):
        assert got_i.dtype == dtype and got_i.shape == inp.shape
        torch.testing.assert_close(got_i.double(), want_i, **grad_tol(dtype))


def test_layer_norm_gradcheck():
    x = torch.randn(3, 2, 7, dtype=torch.float64, requires_grad=True)
    w = torch.randn(7, dtype=torch.float64, requires_grad=True)
    b = torch.randn(7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w, b: opgen_ops.layer_norm(x, w, b, 1e-5)[0], (x, w, b))
    assert torch.autograd.gradcheck(lambda x, w: opgen_ops.layer_norm(x, w, None, 1e-5)[0], (x, w))


def test_layer_norm_statistics_are_not_differentiable():
    x = torch.randn(3, 8, requires_grad=True)
    y, mean, rstd = opgen_ops.layer_norm(x, torch.randn(8), None)
    assert y.requires_grad and not mean.requires_grad and not rstd.requires_grad


def test_layer_norm_backward_rows_zero():
    x, w, g = torch.randn(0, 5), torch.randn(5), torch.randn(0, 5)
    _, mean, rstd = opgen_ops.layer_norm(x, w)
    dx, dw, db = OPS.layer_norm_backward(g, x, mean, rstd, w)
    assert dx.shape == (0, 5)
    torch.testing.assert_close(dw, torch.zeros(5))
    torch.testing.assert_close(db, torch.zeros(5))


@pytest.mark.parametrize("with_bias", [True, False])
def test_layer_norm_opcheck(with_bias):
    x = torch.randn(4, 17, requires_grad=True)
    w = torch.randn(17, requires_grad=True)
    b = torch.randn(17, requires_grad=True) if with_bias else None
    torch.library.opcheck(OPS.layer_norm.default, (x, w, b, 1e-5))


def test_layer_norm_backward_opcheck():
    x, w, g = torch.randn(3, 8), torch.randn(8), torch.randn(3, 8)
    _, mean, rstd = opgen_ops.layer_norm(x, w)
    torch.library.opcheck(OPS.layer_norm_backward.default, (g, x, mean, rstd, w))


@pytest.mark.parametrize("shape", [(4, 32), (3, 5, 33), (0, 16)])
def test_layer_norm_fake_matches_real(shape):
    args = (torch.randn(shape), torch.randn(shape[-1]), torch.randn(shape[-1]), 1e-5)
    assert_fake_matches_real(OPS.layer_norm.default, args)
    assert_fake_matches_real(OPS.layer_norm.default, (torch.randn(shape, dtype=torch.float64),
                                                      torch.randn(shape[-1], dtype=torch.float64), None))


@pytest.mark.parametrize("dynamic", [False, True])
def test_layer_norm_compile(dynamic):
    fn = compile_fullgraph(lambda x, w, b: opgen_ops.layer_norm(x, w, b)[0] * 2, dynamic)
    for rows in (3, 5, 9):
        x, w, b = torch.randn(rows, 16), torch.randn(16), torch.randn(16)
        torch.testing.assert_close(fn(x, w, b), ref_layer_norm(x, w, b, 1e-5)[0] * 2)


def test_layer_norm_compile_backward():
    fn = compile_fullgraph(lambda x, w, b: opgen_ops.layer_norm(x, w, b)[0].pow(2).sum(), True)
    x = torch.randn(4, 8, requires_grad=True)
    w = torch.randn(8, requires_grad=True)
    b = torch.randn(8, requires_grad=True)
    fn(x, w, b).backward()
    rx, rw, rb = torch.autograd.grad(F.layer_norm(x, (8,), w, b).pow(2).sum(), (x, w, b))
    torch.testing.assert_close(x.grad, rx, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(w.grad, rw, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(b.grad, rb, atol=1e-4, rtol=1e-4)


def test_layer_norm_errors_name_op_and_argument():
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm.*'input'.*dtype"):
        opgen_ops.layer_norm(torch.ones(2, 4, dtype=torch.int32), torch.ones(4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm.*'bias'.*same dtype"):
        opgen_ops.layer_norm(torch.ones(2, 4), torch.ones(4), torch.ones(4, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm.*bias.size\(0\) == input.size\(-1\)"):
        opgen_ops.layer_norm(torch.ones(2, 4), torch.ones(4), torch.ones(5))
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm.*weight.size\(0\) == input.size\(-1\)"):
        opgen_ops.layer_norm(torch.ones(2, 4), torch.ones(3))
    # A device mismatch: the meta weight sends the call to the fake, which checks devices.
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm.*'weight'.*same device"):
        opgen_ops.layer_norm(torch.ones(2, 4), torch.ones(4, device="meta"))
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm_backward.*mean.dtype"):
        x = torch.randn(2, 4)
        OPS.layer_norm_backward(x, x, torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64), torch.ones(4))
    with pytest.raises(RuntimeError, match=r"opgen::layer_norm_backward.*'rstd'.*same dtype as 'mean'"):
        OPS.layer_norm_backward(x, x, torch.zeros(2), torch.ones(2, dtype=torch.float64), torch.ones(4))


# ========================================================== rotary_embedding


def ref_rotary(x, cos, sin):
    """x: [..., S, H, D]; cos/sin: [S, R/2] (NeoX rotate-half on the first R dims)."""
    a = acc(x.dtype)
    half = cos.shape[-1]
    c = cos.to(a)[:, None, :]
    s = sin.to(a)[:, None, :]
    xf = x.to(a)
    x1, x2, rest = xf[..., :half], xf[..., half : 2 * half], xf[..., 2 * half :]
    out = torch.cat([x1 * c - x2 * s, x2 * c + x1 * s, rest], dim=-1)
    return out.to(x.dtype)


def rope_inputs(shape_q, heads_k, rot, dtype, cos_dtype=None):
    S, D = shape_q[-3], shape_q[-1]
    q = torch.randn(shape_q, dtype=dtype)
    k = torch.randn((*shape_q[:-2], heads_k, D), dtype=dtype)
    pos = torch.arange(S, dtype=torch.float64)[:, None]
    inv_freq = 1.0 / (10000 ** (torch.arange(rot // 2, dtype=torch.float64) / max(rot // 2, 1)))
    ang = pos * inv_freq
    cd = cos_dtype or dtype
    return q, k, ang.cos().to(cd), ang.sin().to(cd)


ROPE_CASES = [
    ((5, 4, 64), 2, 64),  # [S, H, D], GQA
    ((2, 3, 2, 6), 1, 6),  # [B, S, H, D], head dim not a multiple of the vector width
    ((3, 2, 10), 2, 4),  # partial rotary: dims 4..9 pass through
    ((4, 1, 8), 3, 0),  # no rotary dims at all
    ((0, 2, 16), 2, 16),  # no positions
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape_q,heads_k,rot", ROPE_CASES)
def test_rotary_embedding_numerics(shape_q, heads_k, rot, dtype):
    q, k, cos, sin = rope_inputs(shape_q, heads_k, rot, dtype)
    qo, ko = opgen_ops.rotary_embedding(q, k, cos, sin)
    torch.testing.assert_close(qo, ref_rotary(q, cos, sin), **tol(dtype))
    torch.testing.assert_close(ko, ref_rotary(k, cos, sin), **tol(dtype))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rotary_embedding_float32_cos_sin(dtype):
    q, k, cos, sin = rope_inputs((2, 7, 4, 32), 2, 32, dtype, cos_dtype=torch.float32)
    qo, ko = opgen_ops.rotary_embedding(q, k, cos, sin)
    torch.testing.assert_close(qo, ref_rotary(q, cos, sin), **tol(dtype))
    torch.testing.assert_close(ko, ref_rotary(k, cos, sin), **tol(dtype))


def test_rotary_embedding_non_contiguous_q():
    qkv = torch.randn(5, 3, 4, 16)  # a fused [S, 3, H, D] projection
    q, k = qkv[:, 0], qkv[:, 1]
    _, _, cos, sin = rope_inputs((5, 4, 16), 4, 16, torch.float32)
    qo, ko = opgen_ops.rotary_embedding(q, k, cos, sin)
    torch.testing.assert_close(qo, ref_rotary(q, cos, sin))
    torch.testing.assert_close(ko, ref_rotary(k, cos, sin))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rotary_embedding_grad_matches_reference(dtype):
    q, k, cos, sin = rope_inputs((3, 2, 2, 12), 1, 8, dtype)
    q.requires_grad_()
    k.requires_grad_()
    gq, gk = torch.randn_like(q), torch.randn_like(k)
    qo, ko = opgen_ops.rotary_embedding(q, k, cos, sin)
    got = torch.autograd.grad((qo, ko), (q, k), (gq, gk))
    qr, kr = q.detach().double().requires_grad_(), k.detach().double().requires_grad_()
    want = torch.autograd.grad((ref_rotary(qr, cos, sin), ref_rotary(kr, cos, sin)), (qr, kr), (gq.double(), gk.double()))
    for a, b in zip(got, want):
        torch.testing.assert_close(a.double(), b, **grad_tol(dtype))


def test_rotary_embedding_gradcheck():
    q, k, cos, sin = rope_inputs((4, 2, 10), 1, 6, torch.float64)
    q.requires_grad_()
    k.requires_grad_()
    assert torch.autograd.gradcheck(lambda q, k: opgen_ops.rotary_embedding(q, k, cos, sin), (q, k))


def test_rotary_embedding_one_output_used():
    q, k, cos, sin = rope_inputs((3, 2, 8), 2, 8, torch.float32)
    q.requires_grad_()
    k.requires_grad_()
    opgen_ops.rotary_embedding(q, k, cos, sin)[0].sum().backward()
    torch.testing.assert_close(k.grad, torch.zeros_like(k))
    want = torch.autograd.grad(ref_rotary(q, cos, sin).sum(), q)[0]
    torch.testing.assert_close(q.grad, want)


def test_rotary_embedding_opcheck():
    q, k, cos, sin = rope_inputs((3, 2, 8), 1, 8, torch.float32)
    torch.library.opcheck(OPS.rotary_embedding.default, (q.requires_grad_(), k.requires_grad_(), cos, sin))
    torch.library.opcheck(OPS.rotary_embedding_backward.default, (q.detach(), k.detach(), cos, sin))


def test_rotary_embedding_fake_matches_real():
    for case in ROPE_CASES[:3]:
        assert_fake_matches_real(OPS.rotary_embedding.default, rope_inputs(*case, torch.float32))


@pytest.mark.parametrize("dynamic", [False, True])
def test_rotary_embedding_compile(dynamic):
    fn = compile_fullgraph(lambda q, k, c, s: [t * 2 for t in opgen_ops.rotary_embedding(q, k, c, s)], dynamic)
    for seq in (3, 5, 9):
        q, k, cos, sin = rope_inputs((2, seq, 2, 8), 1, 8, torch.float32)
        qo, ko = fn(q, k, cos, sin)
        torch.testing.assert_close(qo, ref_rotary(q, cos, sin) * 2)
        torch.testing.assert_close(ko, ref_rotary(k, cos, sin) * 2)


def test_rotary_embedding_compile_backward():
    fn = compile_fullgraph(lambda q, k, c, s: sum(t.pow(2).sum() for t in opgen_ops.rotary_embedding(q, k, c, s)), True)
    q, k, cos, sin = rope_inputs((4, 2, 8), 2, 8, torch.float32)
    q.requires_grad_()
    k.requires_grad_()
    fn(q, k, cos, sin).backward()
    want = torch.autograd.grad(ref_rotary(q, cos, sin).pow(2).sum() + ref_rotary(k, cos, sin).pow(2).sum(), (q, k))
    torch.testing.assert_close(q.grad, want[0])
    torch.testing.assert_close(k.grad, want[1])


def test_rotary_embedding_errors_name_op_and_argument():
    q, k, cos, sin = rope_inputs((3, 2, 8), 1, 8, torch.float32)
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*'q'.*dtype"):
        opgen_ops.rotary_embedding(q.int(), k.int(), cos, sin)
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*'k'.*same dtype"):
        opgen_ops.rotary_embedding(q, k.double(), cos, sin)
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*cos.size\(0\) == q.size\(-3\)"):
        opgen_ops.rotary_embedding(q, k, cos[:2], sin[:2])
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*2 \* cos.size\(1\) <= q.size\(-1\)"):
        opgen_ops.rotary_embedding(q, k, torch.ones(3, 5), torch.ones(3, 5))
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*cos.dtype == q.dtype"):
        opgen_ops.rotary_embedding(q, k, cos.double(), sin.double())
    with pytest.raises(RuntimeError, match=r"opgen::rotary_embedding.*'sin'.*same device"):
        opgen_ops.rotary_embedding(q, k, cos, sin.to("meta"))


# ===================================================== scaled_masked_softmax


def ref_softmax(x, mask, scale):
    a = acc(x.dtype)
    v = x.to(a) * scale
    if mask is not None:
        v = v.masked_fill(mask.bool(), -10000.0)
    return torch.softmax(v, -1).to(x.dtype)


def make_mask(kind, B, H, Sq, Sk):
    if kind is None:
        return None
    if kind == "b1":
        return torch.rand(B, 1, Sq, Sk) < 0.3
    if kind == "1h_uint8":
        return (torch.rand(1, H, Sq, Sk) < 0.3).to(torch.uint8)
    return torch.rand(B, H, Sq, Sk) < 0.5


@pytest.mark.parametrize("mask_kind", [None, "b1", "1h_uint8", "full"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("sk", [1, 7, 64, 1031])
def test_scaled_masked_softmax_numerics(sk, dtype, mask_kind):
    B, H, Sq = 2, 3, 5
    x = torch.randn(B, H, Sq, sk, dtype=dtype) * 4
    mask = make_mask(mask_kind, B, H, Sq, sk)
    y = opgen_ops.scaled_masked_softmax(x, mask, 0.5)
    torch.testing.assert_close(y, ref_softmax(x, mask, 0.5), **tol(dtype))


def test_scaled_masked_softmax_long_rows_and_any_shape_without_mask():
    x = torch.randn(3, 20000)
    torch.testing.assert_close(opgen_ops.scaled_masked_softmax(x, None, 2.0), ref_softmax(x, None, 2.0))
    x = torch.randn(6)
    torch.testing.assert_close(opgen_ops.scaled_masked_softmax(x, None, 1.0), ref_softmax(x, None, 1.0))


def test_scaled_masked_softmax_empty():
    assert opgen_ops.scaled_masked_softmax(torch.randn(2, 0, 4, 8), torch.ones(2, 1, 4, 8, dtype=torch.bool), 1.0).shape == (2, 0, 4, 8)
    assert opgen_ops.scaled_masked_softmax(torch.randn(3, 0), None, 1.0).shape == (3, 0)


def test_scaled_masked_softmax_fully_masked_row_is_uniform():
    x = torch.randn(1, 1, 2, 6)
    mask = torch.zeros(1, 1, 2, 6, dtype=torch.bool)
    mask[..., 0, :] = True
    y = opgen_ops.scaled_masked_softmax(x, mask, 1.0)
    torch.testing.assert_close(y[0, 0, 0], torch.full((6,), 1 / 6))
    x.requires_grad_()
    opgen_ops.scaled_masked_softmax(x, mask, 1.0).mul(torch.randn(1, 1, 2, 6)).sum().backward()
    torch.testing.assert_close(x.grad[0, 0, 0], torch.zeros(6))  # masked positions get no gradient


@pytest.mark.parametrize("mask_kind", [None, "b1", "full"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_scaled_masked_softmax_grad_matches_reference(dtype, mask_kind):
    x = (torch.randn(2, 2, 3, 19, dtype=dtype) * 2).requires_grad_()
    mask = make_mask(mask_kind, 2, 2, 3, 19)
    g = torch.randn(2, 2, 3, 19, dtype=dtype)
    got = torch.autograd.grad(opgen_ops.scaled_masked_softmax(x, mask, 0.7), x, g)[0]
    xr = x.detach().double().requires_grad_()
    want = torch.autograd.grad(ref_softmax(xr, mask, 0.7), xr, g.double())[0]
    torch.testing.assert_close(got.double(), want, **grad_tol(dtype))


def test_scaled_masked_softmax_gradcheck():
    x = torch.randn(2, 2, 3, 5, dtype=torch.float64, requires_grad=True)
    mask = torch.rand(2, 1, 3, 5) < 0.3
    assert torch.autograd.gradcheck(lambda x: opgen_ops.scaled_masked_softmax(x, mask, 0.3), (x,))
    assert torch.autograd.gradcheck(lambda x: opgen_ops.scaled_masked_softmax(x, None, 1.5), (x,))


def test_scaled_masked_softmax_opcheck():
    x = torch.randn(2, 2, 3, 9, requires_grad=True)
    torch.library.opcheck(OPS.scaled_masked_softmax.default, (x, torch.rand(2, 1, 3, 9) < 0.5, 0.5))
    torch.library.opcheck(OPS.scaled_masked_softmax.default, (x, None, 0.5))
    y = opgen_ops.scaled_masked_softmax(x.detach(), None, 0.5)
    torch.library.opcheck(OPS.scaled_masked_softmax_backward.default, (torch.randn_like(y), y, None, 0.5))


def test_scaled_masked_softmax_fake_matches_real():
    assert_fake_matches_real(OPS.scaled_masked_softmax.default, (torch.randn(2, 3, 4, 5), torch.rand(1, 3, 4, 5) < 0.5, 1.0))
    assert_fake_matches_real(OPS.scaled_masked_softmax.default, (torch.randn(7, 33), None, 1.0))


@pytest.mark.parametrize("dynamic", [False, True])
def test_scaled_masked_softmax_compile(dynamic):
    fn = compile_fullgraph(lambda x, m: opgen_ops.scaled_masked_softmax(x, m, 0.125) + 1, dynamic)
    for sq in (3, 5, 8):
        x, mask = torch.randn(2, 2, sq, 16), torch.rand(2, 1, sq, 16) < 0.3
        torch.testing.assert_close(fn(x, mask), ref_softmax(x, mask, 0.125) + 1)


def test_scaled_masked_softmax_compile_backward():
    fn = compile_fullgraph(lambda x, m: opgen_ops.scaled_masked_softmax(x, m, 0.5).pow(2).sum(), True)
    x = torch.randn(1, 2, 4, 8, requires_grad=True)
    mask = torch.rand(1, 1, 4, 8) < 0.3
    fn(x, mask).backward()
    want = torch.autograd.grad(ref_softmax(x, mask, 0.5).pow(2).sum(), x)[0]
    torch.testing.assert_close(x.grad, want)


def test_scaled_masked_softmax_errors_name_op_and_argument():
    x = torch.randn(2, 2, 3, 4)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*'input'.*dtype"):
        opgen_ops.scaled_masked_softmax(x.long(), None, 1.0)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*'mask'.*dtype"):
        opgen_ops.scaled_masked_softmax(x, torch.zeros(2, 1, 3, 4), 1.0)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*'mask'.*4 dimension"):
        opgen_ops.scaled_masked_softmax(x, torch.zeros(3, 4, dtype=torch.bool), 1.0)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*mask.size\(2\) == input.size\(2\)"):
        opgen_ops.scaled_masked_softmax(x, torch.zeros(2, 1, 2, 4, dtype=torch.bool), 1.0)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*mask.size\(0\) == 1"):
        opgen_ops.scaled_masked_softmax(x, torch.zeros(3, 1, 3, 4, dtype=torch.bool), 1.0)
    with pytest.raises(RuntimeError, match=r"opgen::scaled_masked_softmax.*'mask'.*same device"):
        opgen_ops.scaled_masked_softmax(x, torch.zeros(2, 1, 3, 4, dtype=torch.bool, device="meta"), 1.0)


# ===================================================== softmax_cross_entropy


def ref_xent(logits, labels, smoothing=0.0, ignore_index=-100):
    a = acc(logits.dtype)
    loss = F.cross_entropy(logits.to(a), labels, reduction="none", label_smoothing=smoothing, ignore_index=ignore_index)
    return loss.to(logits.dtype), torch.logsumexp(logits.to(a), -1)


def xent_inputs(n, c, dtype, ignore_some=True):
    logits = torch.randn(n, c, dtype=dtype) * 3
    labels = torch.randint(0, c, (n,))
    if ignore_some and n > 2:
        labels[1] = -100
    return logits, labels


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("n,c", [(5, 1), (6, 7), (4, 1031), (3, 32003), (0, 10)])
def test_softmax_cross_entropy_numerics(n, c, dtype, smoothing):
    logits, labels = xent_inputs(n, c, dtype)
    losses, lse = opgen_ops.softmax_cross_entropy(logits, labels, smoothing)
    want, want_lse = ref_xent(logits, labels, smoothing)
    assert losses.dtype == dtype and lse.dtype == acc(dtype) and losses.shape == (n,)
    torch.testing.assert_close(losses, want, **tol(dtype))
    torch.testing.assert_close(lse, want_lse, **(tol(torch.float64) if dtype == torch.float64 else dict(atol=1e-5, rtol=1e-5)))


def test_softmax_cross_entropy_custom_ignore_index():
    logits, labels = xent_inputs(6, 9, torch.float32, ignore_some=False)
    labels[2] = 3
    losses, _ = opgen_ops.softmax_cross_entropy(logits, labels, 0.0, 3)
    torch.testing.assert_close(losses, ref_xent(logits, labels, 0.0, 3)[0])


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_cross_entropy_grad_matches_reference(dtype, smoothing):
    logits, labels = xent_inputs(7, 37, dtype)
    logits.requires_grad_()
    g = torch.randn(7, dtype=dtype)
    got = torch.autograd.grad(opgen_ops.softmax_cross_entropy(logits, labels, smoothing)[0], logits, g)[0]
    lr = logits.detach().double().requires_grad_()
    want = torch.autograd.grad(ref_xent(lr, labels, smoothing)[0], lr, g.double())[0]
    torch.testing.assert_close(got.double(), want, **grad_tol(dtype))
    assert got[1].abs().sum() == 0  # the ignored row


def test_softmax_cross_entropy_gradcheck():
    logits, labels = xent_inputs(4, 6, torch.float64)
    logits.requires_grad_()
    assert torch.autograd.gradcheck(lambda x: opgen_ops.softmax_cross_entropy(x, labels, 0.1)[0], (logits,))


def test_softmax_cross_entropy_statistic_is_not_differentiable():
    logits, labels = xent_inputs(3, 5, torch.float32)
    losses, lse = opgen_ops.softmax_cross_entropy(logits.requires_grad_(), labels)
    assert losses.requires_grad and not lse.requires_grad


def test_softmax_cross_entropy_bad_label():
    logits, labels = xent_inputs(4, 5, torch.float32)
    labels[3] = 5
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy: 'labels' has 5 at row 3"):
        opgen_ops.softmax_cross_entropy(logits, labels)


def test_softmax_cross_entropy_backward_rejects_the_labels_the_forward_rejects():
    logits = torch.randn(3, 5)
    _, lse = OPS.softmax_cross_entropy(logits, torch.tensor([0, 1, 2]))
    for bad in (5, -1):
        labels = torch.tensor([0, bad, 2])
        with pytest.raises(RuntimeError, match=rf"opgen::softmax_cross_entropy: 'labels' has {bad} at row 1"):
            OPS.softmax_cross_entropy(logits, labels)
        with pytest.raises(RuntimeError, match=rf"opgen::softmax_cross_entropy_backward: 'labels' has {bad} at row 1"):
            OPS.softmax_cross_entropy_backward(torch.ones(3), logits, lse, labels, 0.0, -100)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_softmax_cross_entropy_padded_vocabulary(dtype):
    # -inf logits (a vocabulary padded to a multiple of 64), an all-but-one
    # masked row and an ignored row: no NaN without smoothing (0 * inf).
    logits = torch.randn(4, 6, dtype=dtype)
    logits[:, 4:] = float("-inf")
    logits[2, 1:] = float("-inf")
    labels = torch.tensor([1, 3, 0, -100])
    for smoothing in (0.0,):
        losses, _ = OPS.softmax_cross_entropy(logits, labels, smoothing)
        want = F.cross_entropy(logits.double(), labels, label_smoothing=smoothing, reduction="none")
        assert not losses.isnan().any(), losses
        torch.testing.assert_close(losses.double(), want, **tol(dtype))
        x = logits.clone().requires_grad_()
        OPS.softmax_cross_entropy(x, labels, smoothing)[0].sum().backward()
        y = logits.double().clone().requires_grad_()
        F.cross_entropy(y, labels, label_smoothing=smoothing, reduction="sum").backward()
        torch.testing.assert_close(x.grad.double(), y.grad, **tol(dtype))


def test_softmax_cross_entropy_opcheck():
    logits, labels = xent_inputs(5, 11, torch.float32)
    torch.library.opcheck(OPS.softmax_cross_entropy.default, (logits.requires_grad_(), labels, 0.1, -100))
    losses, lse = opgen_ops.softmax_cross_entropy(logits.detach(), labels, 0.1)
    torch.library.opcheck(OPS.softmax_cross_entropy_backward.default, (torch.randn(5), logits.detach(), lse, labels, 0.1, -100))


def test_softmax_cross_entropy_fake_matches_real():
    assert_fake_matches_real(OPS.softmax_cross_entropy.default, xent_inputs(5, 11, torch.float16))
    assert_fake_matches_real(OPS.softmax_cross_entropy.default, xent_inputs(5, 11, torch.float64))


@pytest.mark.parametrize("dynamic", [False, True])
def test_softmax_cross_entropy_compile(dynamic):
    fn = compile_fullgraph(lambda x, y: opgen_ops.softmax_cross_entropy(x, y, 0.1)[0].mean(), dynamic)
    for n in (3, 5, 9):
        logits, labels = xent_inputs(n, 13, torch.float32)
        torch.testing.assert_close(fn(logits, labels), ref_xent(logits, labels, 0.1)[0].mean())


def test_softmax_cross_entropy_compile_backward():
    fn = compile_fullgraph(lambda x, y: opgen_ops.softmax_cross_entropy(x, y, 0.1)[0].sum(), True)
    logits, labels = xent_inputs(6, 10, torch.float32)
    logits.requires_grad_()
    fn(logits, labels).backward()
    want = torch.autograd.grad(ref_xent(logits, labels, 0.1)[0].sum(), logits)[0]
    torch.testing.assert_close(logits.grad, want)


def test_softmax_cross_entropy_errors_name_op_and_argument():
    logits, labels = xent_inputs(4, 5, torch.float32)
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy.*'labels'.*dtype"):
        opgen_ops.softmax_cross_entropy(logits, labels.int())
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy.*'logits'.*2 dimension"):
        opgen_ops.softmax_cross_entropy(logits[None], labels)
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy.*labels.size\(0\) == logits.size\(0\)"):
        opgen_ops.softmax_cross_entropy(logits, labels[:3])
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy.*smoothing >= 0.0"):
        opgen_ops.softmax_cross_entropy(logits, labels, 1.5)
    with pytest.raises(RuntimeError, match=r"opgen::softmax_cross_entropy.*'labels'.*same device"):
        opgen_ops.softmax_cross_entropy(logits, labels.to("meta"))


# ======================================================== multi_tensor_adam_

ADAM_HP = dict(lr=1e-2, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.05)


def ref_adam(p, g, m, v, step, adamw, lr, beta1, beta2, eps, weight_decay):
    """One step in float64 on copies: (p, m, v)."""
    p, g, m, v = (t.double() for t in (p, g, m, v))
    if adamw:
        p = p * (1 - lr * weight_decay)
    else:
        g = g + weight_decay * p
    m = m + (1 - beta1) * (g - m)
    v = beta2 * v + (1 - beta2) * g * g
    denom = v.sqrt() / math.sqrt(1 - beta2**step) + eps
    p = p - lr / (1 - beta1**step) * m / denom
    return p, m, v


def adam_lists(shapes, dtype, moment_dtype):
    params = [torch.randn(s, dtype=dtype) for s in shapes]
    grads = [torch.randn(s, dtype=dtype) for s in shapes]
    ms = [torch.randn(s).abs().to(moment_dtype) * 0.1 for s in shapes]
    vs = [torch.randn(s).abs().to(moment_dtype) * 0.01 for s in shapes]
    return params, grads, ms, vs


ADAM_SHAPES = [(5,), (3, 7), (0,), (1031,), (2, 3, 4)]


@pytest.mark.parametrize("adamw", [True, False])
@pytest.mark.parametrize(
    "dtype,moment_dtype",
    [(torch.float32, torch.float32), (torch.float64, torch.float64), (torch.float16, torch.float32),
     (torch.bfloat16, torch.bfloat16)],
)
def test_multi_tensor_adam_numerics(dtype, moment_dtype, adamw):
    params, grads, ms, vs = adam_lists(ADAM_SHAPES, dtype, moment_dtype)
    want = [ref_adam(p, g, m, v, 3, adamw, **ADAM_HP) for p, g, m, v in zip(params, grads, ms, vs)]
    grads_before = clone_args(grads)
    assert opgen_ops.multi_tensor_adam_(params, grads, ms, vs, step=3, adamw=adamw, **ADAM_HP) is None
    for (p, m, v), (wp, wm, wv) in zip(zip(params, ms, vs), want):
        torch.testing.assert_close(p.double(), wp, **tol(dtype))
        torch.testing.assert_close(m.double(), wm, **tol(moment_dtype))
        torch.testing.assert_close(v.double(), wv, **tol(moment_dtype))
    for g, g0 in zip(grads, grads_before):
        assert torch.equal(g, g0)


@pytest.mark.parametrize("adamw", [True, False])
def test_multi_tensor_adam_matches_torch_optim(adamw):
    params = [torch.randn(s, requires_grad=True) for s in ADAM_SHAPES]
    ref_params = [p.detach().clone().requires_grad_() for p in params]
    hp = dict(lr=1e-2, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.05)
    opt = (torch.optim.AdamW if adamw else torch.optim.Adam)(ref_params, foreach=False, **hp)
    ms = [torch.zeros_like(p) for p in params]
    vs = [torch.zeros_like(p) for p in params]
    for step in range(1, 4):
        grads = [torch.randn_like(p) for p in params]
        for rp, g in zip(ref_params, grads):
            rp.grad = g.clone()
        opt.step()
        with torch.no_grad():
            opgen_ops.multi_tensor_adam_(list(params), grads, ms, vs, 1e-2, 0.9, 0.99, 1e-8, 0.05, step, adamw)
    for p, rp in zip(params, ref_params):
        torch.testing.assert_close(p, rp, atol=1e-6, rtol=1e-5)
    for m, rp in zip(ms, ref_params):
        torch.testing.assert_close(m, opt.state[rp]["exp_avg"], atol=1e-6, rtol=1e-5)


def test_multi_tensor_adam_non_contiguous():
    base = torch.randn(6, 4)
    p = base.t()  # non-contiguous view: updated through a copy, written back
    g, m, v = torch.randn(4, 6), torch.zeros(6, 4).t(), torch.zeros(4, 6)
    want = ref_adam(p, g, m, v, 1, True, **ADAM_HP)
    opgen_ops.multi_tensor_adam_([p], [g], [m], [v], step=1, **ADAM_HP)
    torch.testing.assert_close(base.t().double(), want[0])
    torch.testing.assert_close(m.double(), want[1])
    torch.testing.assert_close(v.double(), want[2])


def test_multi_tensor_adam_opcheck():
    args = ([torch.randn(4), torch.randn(2, 3)], [torch.randn(4), torch.randn(2, 3)],
            [torch.zeros(4), torch.zeros(2, 3)], [torch.zeros(4), torch.zeros(2, 3)], 1e-3, 0.9, 0.999, 1e-8, 0.0, 1)
    torch.library.opcheck(OPS.multi_tensor_adam_.default, args)


def test_multi_tensor_adam_schema_has_mutation_annotations():
    schema = str(OPS.multi_tensor_adam_.default._schema)
    assert "Tensor(a!)[] params" in schema and "Tensor[] grads" in schema and "Tensor(c!)[] exp_avg_sqs" in schema


@pytest.mark.parametrize("dynamic", [False, True])
def test_multi_tensor_adam_compile(dynamic):
    def fn(p0, p1, g0, g1, m0, m1, v0, v1):
        opgen_ops.multi_tensor_adam_([p0, p1], [g0, g1], [m0, m1], [v0, v1], 1e-2, 0.9, 0.99, 1e-8, 0.05, 2, True)
        return p0.sum() + p1.sum()

    for n in (3, 5):
        args = [torch.randn(n), torch.randn(n, 2), torch.randn(n), torch.randn(n, 2),
                torch.zeros(n), torch.zeros(n, 2), torch.zeros(n), torch.zeros(n, 2)]
        want_args = clone_args(args)
        want = fn(*want_args)
        got = compile_fullgraph(fn, dynamic)(*args)
        torch.testing.assert_close(got, want)
        for a, b in zip(args, want_args):
            torch.testing.assert_close(a, b)


def test_multi_tensor_adam_errors_name_op_and_argument():
    p, g, m, v = adam_lists([(4,), (3,)], torch.float32, torch.float32)
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_adam_.*len\(grads\) == len\(params\)"):
        opgen_ops.multi_tensor_adam_(p, g[:1], m, v, step=1, **ADAM_HP)
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_adam_.*step >= 1"):
        opgen_ops.multi_tensor_adam_(p, g, m, v, step=0, **ADAM_HP)
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_adam_: 'grads'\[1\] must have the dtype of 'params'\[1\]"):
        opgen_ops.multi_tensor_adam_(p, [g[0], g[1].double()], m, v, step=1, **ADAM_HP)
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_adam_: 'grads'\[0\].*shape of 'params'\[0\]"):
        opgen_ops.multi_tensor_adam_(p, [torch.randn(5), g[1]], m, v, step=1, **ADAM_HP)
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_adam_: expected 'params\[0\]' to have dtype float32"):
        opgen_ops.multi_tensor_adam_([p[0].int()], [g[0].int()], [m[0]], [v[0]], step=1, **ADAM_HP)


# ============================================================= compact_rows


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool, torch.uint8])
@pytest.mark.parametrize("shape", [(7,), (10, 3), (9, 2, 5), (0, 4), (5, 0)])
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_compact_rows_numerics(shape, dtype, density):
    x = (torch.randn(shape) * 10).to(dtype)
    mask = torch.rand(shape[0]) < density
    y = opgen_ops.compact_rows(x, mask)
    assert y.is_contiguous()
    assert torch.equal(y, x[mask])


def test_compact_rows_non_contiguous_input():
    x = torch.randn(5, 8).t()  # [8, 5]
    mask = torch.tensor([1, 0, 1, 1, 0, 0, 1, 0], dtype=torch.bool)
    assert torch.equal(opgen_ops.compact_rows(x, mask), x[mask])


def test_compact_rows_opcheck():
    torch.library.opcheck(OPS.compact_rows.default, (torch.randn(6, 3), torch.rand(6) < 0.5))


def test_compact_rows_fake_has_an_unbacked_size():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    with FakeTensorMode(shape_env=ShapeEnv()) as mode:
        x = mode.from_tensor(torch.randn(6, 3, 2))
        m = mode.from_tensor(torch.rand(6) < 0.5)
        y = opgen_ops.compact_rows(x, m)
    assert isinstance(y.shape[0], torch.SymInt) and tuple(y.shape[1:]) == (3, 2)
    assert y.dtype == torch.float32


@pytest.mark.parametrize("dynamic", [False, True])
def test_compact_rows_compile(dynamic):
    fn = compile_fullgraph(lambda x, m: (opgen_ops.compact_rows(x, m) * 2).sum(0), dynamic)
    for rows in (4, 6, 9):
        x, m = torch.randn(rows, 3), torch.rand(rows) < 0.5
        torch.testing.assert_close(fn(x, m), (x[m] * 2).sum(0))


def test_compact_rows_errors_name_op_and_argument():
    with pytest.raises(RuntimeError, match=r"opgen::compact_rows.*'mask'.*dtype"):
        opgen_ops.compact_rows(torch.randn(4, 2), torch.ones(4, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"opgen::compact_rows.*mask.size\(0\) == input.size\(0\)"):
        opgen_ops.compact_rows(torch.randn(4, 2), torch.ones(3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=r"opgen::compact_rows.*'mask'.*1 dimension"):
        opgen_ops.compact_rows(torch.randn(4, 2), torch.ones(4, 2, dtype=torch.bool))


# =========================================================== runner registry


@pytest.fixture
def runner():
    rid = opgen_ops.runner_create(1.5, -0.25)
    yield rid
    opgen_ops.runner_destroy(rid)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(7,), (3, 1031), (0, 4)])
def test_runner_apply_numerics(runner, shape, dtype):
    x = torch.randn(shape, dtype=dtype)
    want = (x.to(acc(dtype)) * 1.5 - 0.25).to(dtype)
    torch.testing.assert_close(opgen_ops.runner_apply(x, runner), want, **tol(dtype))


def test_runner_ids_are_distinct_and_destroy_invalidates():
    a, b = opgen_ops.runner_create(2.0), opgen_ops.runner_create(3.0, 1.0)
    assert isinstance(a, int) and a >= 1 and a != b
    x = torch.randn(5)
    torch.testing.assert_close(opgen_ops.runner_apply(x, a), x * 2)
    torch.testing.assert_close(opgen_ops.runner_apply(x, b), x * 3 + 1)
    opgen_ops.runner_destroy(a)
    with pytest.raises(RuntimeError, match=r"opgen::runner_apply: 'runner' \d+ is not a live runner id"):
        opgen_ops.runner_apply(x, a)
    with pytest.raises(RuntimeError, match=r"opgen::runner_destroy: 'runner' \d+ is not a live runner id"):
        opgen_ops.runner_destroy(a)
    torch.testing.assert_close(opgen_ops.runner_apply(x, b), x * 3 + 1)
    opgen_ops.runner_destroy(b)


def test_runner_apply_non_contiguous(runner):
    x = torch.randn(4, 6).t()
    y = opgen_ops.runner_apply(x, runner)
    assert y.is_contiguous()
    torch.testing.assert_close(y, x * 1.5 - 0.25)


def test_runner_apply_opcheck(runner):
    torch.library.opcheck(OPS.runner_apply.default, (torch.randn(3, 5), runner))


def test_runner_apply_fake_matches_real(runner):
    assert_fake_matches_real(OPS.runner_apply.default, (torch.randn(4, 6).t(), runner))


@pytest.mark.parametrize("dynamic", [False, True])
def test_runner_apply_compile(runner, dynamic):
    fn = compile_fullgraph(lambda x: opgen_ops.runner_apply(x, runner) + 1, dynamic)
    for n in (3, 5, 8):
        x = torch.randn(n, 4)
        torch.testing.assert_close(fn(x), x * 1.5 - 0.25 + 1)


def test_runner_errors_name_op_and_argument(runner):
    with pytest.raises(RuntimeError, match=r"opgen::runner_apply.*'x'.*dtype"):
        opgen_ops.runner_apply(torch.ones(3, dtype=torch.int32), runner)
    with pytest.raises(RuntimeError, match=r"opgen::runner_apply.*runner >= 1"):
        opgen_ops.runner_apply(torch.ones(3), 0)
    with pytest.raises(RuntimeError, match=r"opgen::runner_create.*'scale' and 'shift' must be finite"):
        opgen_ops.runner_create(float("inf"))


# ====================================================== cudagraph: unsafe
# compact_rows (stable ABI, target 2.10: no tags on def) reaches Inductor's
# partition list; runner_apply (unstable ABI) carries the cudagraph_unsafe tag.


def test_cudagraph_unsafe_tag_marks_the_fx_node():
    assert torch._C.Tag.cudagraph_unsafe in OPS.runner_apply.default.tags
    assert torch._C.Tag.pt2_compliant_tag in OPS.runner_apply.default.tags  # the spec's own tag stays
    assert torch._C.Tag.cudagraph_unsafe not in OPS.compact_rows.default.tags
    from torch._inductor.utils import is_cudagraph_unsafe_fx_node
    from torch.fx.experimental.proxy_tensor import make_fx

    runner = OPS.runner_create(2.0, 0.0)
    try:
        graph = make_fx(lambda x: OPS.runner_apply(x, runner) + OPS.rms_norm(x, torch.ones(4)))(torch.randn(3, 4))
    finally:
        OPS.runner_destroy(runner)
    unsafe = {str(n.target) for n in graph.graph.nodes if n.op == "call_function" and is_cudagraph_unsafe_fx_node(n)}
    assert unsafe == {"opgen.runner_apply.default"}, unsafe


def test_cudagraph_unsafe_stable_op_is_partitioned_by_inductor(monkeypatch):
    import torch._inductor.config as inductor_config
    from torch._inductor.scheduler import Scheduler

    assert "opgen::compact_rows" in inductor_config.custom_should_partition_ops
    reasons = []
    should_partition = Scheduler.should_partition

    def recorded(self, node):
        reasons.append(should_partition(self, node))
        return reasons[-1]

    monkeypatch.setattr(Scheduler, "should_partition", recorded)
    torch._dynamo.reset()
    f = torch.compile(lambda x, m: opgen_ops.compact_rows(x, m) * 2, backend="inductor", fullgraph=True)
    x, m = torch.randn(6, 3), torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool)
    with inductor_config.patch(force_disable_caches=True):  # a cached graph would skip the scheduler
        torch.testing.assert_close(f(x, m), x[m] * 2)
    assert "custom partition op: opgen::compact_rows.default" in reasons, set(reasons)


def test_the_partition_list_costs_no_import_of_inductor():
    """Importing torch._inductor.config takes seconds: the package adds its ops
    when something else imports it, not before."""
    import subprocess
    import sys

    code = ("import sys, torch, opgen_ops\n"
            "assert 'torch._inductor.config' not in sys.modules\n"
            "import torch._inductor.config as c\n"
            "assert c.custom_should_partition_ops == ['opgen::compact_rows'], c.custom_should_partition_ops\n"
            "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr


# ============================================= CUDA kernels vs CPU kernels
# Run where a GPU is present: every CUDA kernel against the CPU kernel of the
# same op (which the tests above check against PyTorch).


def _to_cuda(args):
    return torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.cuda(), args)


def _no_f64(dtype):
    return torch.float32 if dtype == torch.float64 else dtype


CUDA_CASES = {
    "layer_norm": lambda d: (OPS.layer_norm.default, (torch.randn(37, 1031, dtype=d), torch.randn(1031, dtype=d), torch.randn(1031, dtype=d), 1e-5)),
    "layer_norm_long": lambda d: (OPS.layer_norm.default, (torch.randn(3, 30011, dtype=d), torch.randn(30011, dtype=d), None, 1e-5)),
    "rotary": lambda d: (OPS.rotary_embedding.default, rope_inputs((2, 9, 4, 64), 2, 64, d)),
    "rotary_partial": lambda d: (OPS.rotary_embedding.default, rope_inputs((9, 3, 10), 1, 6, d)),
    "softmax": lambda d: (OPS.scaled_masked_softmax.default, (torch.randn(2, 3, 5, 1031, dtype=d), torch.rand(2, 1, 5, 1031) < 0.3, 0.5)),
    "softmax_long": lambda d: (OPS.scaled_masked_softmax.default, (torch.randn(3, 20011, dtype=d), None, 1.0)),
    "xent": lambda d: (OPS.softmax_cross_entropy.default, (*xent_inputs(9, 32003, d), 0.1, -100)),
    "compact": lambda d: (OPS.compact_rows.default, (torch.randn(1000, 33, dtype=d), torch.rand(1000) < 0.5)),
    # The ops that had no CUDA test: odd sizes, rows of 256-512 (a block per
    # row), a sliced non-contiguous input with a storage offset, empty inputs.
    "rms_norm": lambda d: (OPS.rms_norm.default, (torch.randn(37, 1031, dtype=d), torch.randn(1031, dtype=d), 1e-6)),
    "rms_norm_rows_384": lambda d: (OPS.rms_norm.default, (torch.randn(513, 384, dtype=d), torch.randn(384, dtype=d), 1e-6)),
    "rms_norm_sliced": lambda d: (OPS.rms_norm.default, (torch.randn(9, 80, dtype=d)[1:, 3:70], torch.randn(67, dtype=d), 1e-6)),
    "rms_norm_empty": lambda d: (OPS.rms_norm.default, (torch.randn(0, 64, dtype=d), torch.randn(64, dtype=d), 1e-6)),
    "rms_norm_backward": lambda d: (OPS.rms_norm_backward.default, (torch.randn(33, 515, dtype=d), torch.randn(33, 515, dtype=d), torch.randn(515, dtype=d), 1e-6)),
    "l2norm": lambda d: (OPS.multi_tensor_l2norm.default, ([torch.randn(5, dtype=d), torch.randn(300001, dtype=d), torch.randn(0, dtype=d), torch.randn(7, 9, dtype=d)[:, 1:]],)),
    # (quantize_fp8 takes no float64: that case runs in float32 again.)
    "quantize_fp8": lambda d: (OPS.quantize_fp8.default, (torch.randn(37, 1031, dtype=_no_f64(d)) * 50, None)),
    "quantize_fp8_scaled": lambda d: (OPS.quantize_fp8.default, (torch.randn(1001, dtype=_no_f64(d))[1:], torch.tensor([0.25]))),
}


@CUDA
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", sorted(CUDA_CASES))
def test_cuda_matches_cpu(case, dtype):
    op, args = CUDA_CASES[case](dtype)
    want = op(*args)
    got = op(*_to_cuda(args))
    for g, w in zip(torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want)):
        if w.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            # fp8 codes: one rounding step apart at most, compared as values.
            torch.testing.assert_close(g.cpu().float(), w.float(), atol=0, rtol=0.13)
            continue
        t = tol(w.dtype) if w.is_floating_point() else dict(atol=0, rtol=0)
        torch.testing.assert_close(g.cpu(), w, **(dict(atol=2e-5, rtol=2e-5) if w.dtype == torch.float32 else t))


@CUDA
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cuda_backwards_match_cpu(dtype):
    x, w, b = torch.randn(33, 515, dtype=dtype), torch.randn(515, dtype=dtype), torch.randn(515, dtype=dtype)
    g = torch.randn_like(x)
    _, mean, rstd = opgen_ops.layer_norm(x, w, b)
    cases = [
        (OPS.layer_norm_backward.default, (g, x, mean, rstd, w)),
        (OPS.rotary_embedding_backward.default, rope_inputs((5, 4, 32), 2, 32, dtype)),
        (OPS.scaled_masked_softmax_backward.default, (g.view(3, 11, 1, 515), opgen_ops.scaled_masked_softmax(x, None, 1.0).view(3, 11, 1, 515), torch.rand(3, 1, 1, 515) < 0.5, 0.5)),
        (OPS.softmax_cross_entropy_backward.default, (torch.randn(33, dtype=dtype), x, torch.logsumexp(x.to(acc(dtype)), -1), torch.randint(0, 515, (33,)), 0.1, -100)),
    ]
    for op, args in cases:
        want = op(*args)
        got = op(*_to_cuda(args))
        for gg, ww in zip(torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want)):
            torch.testing.assert_close(gg.cpu(), ww, **grad_tol(dtype))


# The fused, persistent norm backward (kernels/common/norm_backward.cuh, on
# unless OPGEN_FUSED_NORM_BACKWARD=0, issue 36). Rows of whole 16-byte
# vectors, 32 rows or more, take it: one vector per thread (64, 512), two
# (4096 in bfloat16), four (8192 and 16384); more rows than the persistent
# grid has CTAs (5000 x 512, 2049 x 4096: several rows per CTA); fewer rows
# (31), rows no CTA holds (65536 in float32) or that are not whole vectors
# (36 in 16-bit types, an odd offset) stay on the two-kernel path. Both
# settings of the switch must match the CPU kernels.
FUSED_NORM_CASES = [(32, 4096, 0), (31, 4096, 0), (40, 64, 0), (5000, 512, 0), (2049, 4096, 0), (65, 8192, 0),
                    (33, 16384, 0), (40, 36, 0), (2, 65536, 0), (33, 4096, 1)]


@CUDA
@pytest.mark.parametrize("fused", ["0", "1"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rows,hidden,offset", FUSED_NORM_CASES)
def test_cuda_norm_backwards_match_cpu(rows, hidden, offset, dtype, fused, monkeypatch):
    monkeypatch.setenv("OPGEN_FUSED_NORM_BACKWARD", fused)

    def rows_at(offset):  # contiguous, `offset` elements into its storage
        return torch.randn(rows * hidden + offset, dtype=dtype)[offset:].view(rows, hidden)

    x, g = rows_at(offset), rows_at(offset)
    w, b = torch.randn(hidden, dtype=dtype), torch.randn(hidden, dtype=dtype)
    _, mean, rstd = opgen_ops.layer_norm(x, w, b)
    for op, args in [(OPS.rms_norm_backward.default, (g, x, w, 1e-6)),
                     (OPS.layer_norm_backward.default, (g, x, mean, rstd, w))]:
        want = op(*args)
        got = op(*_to_cuda(args))
        for name, gg, ww in zip(("dx", "dw", "db"), got, want):
            torch.testing.assert_close(gg.cpu(), ww, **grad_tol(dtype), msg=lambda m: f"{op} {name}: {m}")


# The register-row LayerNorm forward (kernels/layer_norm.cu, behind
# OPGEN_REGISTER_LAYER_NORM=1, off until a GPU run, issue 36): rows of whole,
# 16-byte aligned vectors, 1 to 8 per thread, several rows per block where a
# row needs fewer than 256 threads (a last block only partly filled: 7 rows
# of 8 per block, 37 of 4); rows it does not take fall back (36 16-bit
# elements, 16384 float32, an odd offset). Values around 50, so the
# statistics' shift is exercised. Both settings must match the CPU kernel.
REGISTER_LAYER_NORM_CASES = [(7, 64, 0), (37, 512, 0), (33, 1000, 0), (5, 4096, 0), (3, 8192, 0), (3, 16384, 0),
                             (4, 36, 0), (9, 4096, 1)]


# "narrow": OPGEN_REGISTER_NORM_NARROW=1 too (fewer threads per row, more
# vectors per thread and rows per block: common/norm_forward_regs.cuh).
REGISTER_SETTINGS = ["0", "1", "narrow"]


def set_register_switch(monkeypatch, name, setting):
    monkeypatch.setenv(name, "0" if setting == "0" else "1")
    monkeypatch.setenv("OPGEN_REGISTER_NORM_NARROW", "1" if setting == "narrow" else "0")


@CUDA
@pytest.mark.parametrize("registers", REGISTER_SETTINGS)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rows,hidden,offset", REGISTER_LAYER_NORM_CASES)
def test_cuda_register_layer_norm_matches_cpu(rows, hidden, offset, dtype, with_bias, registers, monkeypatch):
    set_register_switch(monkeypatch, "OPGEN_REGISTER_LAYER_NORM", registers)
    x = (torch.randn(rows * hidden + offset, dtype=torch.float64) * 3 + 50).to(dtype)[offset:].view(rows, hidden)
    w = torch.randn(hidden, dtype=dtype)
    b = torch.randn(hidden, dtype=dtype) if with_bias else None
    want = opgen_ops.layer_norm(x, w, b, 1e-5)
    got = opgen_ops.layer_norm(*_to_cuda((x, w, b)), 1e-5)
    for name, gg, ww in zip(("y", "mean", "rstd"), got, want):
        torch.testing.assert_close(gg.cpu(), ww, **tol(ww.dtype), msg=lambda m: f"{name}: {m}")


# The register-row RMSNorm forward (kernels/rms_norm.cu, behind
# OPGEN_REGISTER_RMS_NORM=1, off until a GPU run, issue 36): the same rows as
# the LayerNorm one above.
@CUDA
@pytest.mark.parametrize("registers", REGISTER_SETTINGS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rows,hidden,offset", REGISTER_LAYER_NORM_CASES)
def test_cuda_register_rms_norm_matches_cpu(rows, hidden, offset, dtype, registers, monkeypatch):
    set_register_switch(monkeypatch, "OPGEN_REGISTER_RMS_NORM", registers)
    x = (torch.randn(rows * hidden + offset, dtype=torch.float64) * 3 + 5).to(dtype)[offset:].view(rows, hidden)
    w = torch.randn(hidden, dtype=dtype)
    want = OPS.rms_norm.default(x, w, 1e-6)
    got = OPS.rms_norm.default(*_to_cuda((x, w)), 1e-6)
    torch.testing.assert_close(got.cpu(), want, **tol(dtype))


# The warp-per-row softmax (kernels/scaled_masked_softmax.cu, on unless
# OPGEN_WARP_SOFTMAX=0 / OPGEN_WARP_SOFTMAX_BACKWARD=0, issue 36): rows of
# whole 16-byte vectors up to 2048 16-bit or 1024 float32 elements forward
# and 512 backward (1 to 8 vectors per lane, lanes without a vector), with no
# mask, a broadcast mask, a full mask and fully masked rows; longer rows and
# an odd offset stay on the block kernels. Both settings of the
# switch must match the CPU kernels.
WARP_SOFTMAX_COLS = [8, 40, 512, 1000, 2048, 2056]


@CUDA
@pytest.mark.parametrize("fused", ["0", "1"])
@pytest.mark.parametrize("mask_kind", ["none", "broadcast", "full"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("cols", WARP_SOFTMAX_COLS)
def test_cuda_warp_softmax_matches_cpu(cols, dtype, mask_kind, fused, monkeypatch):
    monkeypatch.setenv("OPGEN_WARP_SOFTMAX", fused)
    monkeypatch.setenv("OPGEN_WARP_SOFTMAX_BACKWARD", fused)
    shape = (2, 3, 5, cols)
    x = torch.randn(shape, dtype=dtype) * 4
    mask = {"none": None, "broadcast": torch.rand(1, 1, 5, cols) < 0.3, "full": torch.rand(shape) < 0.5}[mask_kind]
    if mask is not None:
        mask[..., 1, :] = True  # a fully masked row
    y = OPS.scaled_masked_softmax.default(x, mask, 0.7)
    torch.testing.assert_close(OPS.scaled_masked_softmax.default(*_to_cuda((x, mask)), 0.7).cpu(), y, **tol(dtype))
    g = torch.randn(shape, dtype=dtype)
    want = OPS.scaled_masked_softmax_backward.default(g, y, mask, 0.7)
    got = OPS.scaled_masked_softmax_backward.default(*_to_cuda((g, y, mask)), 0.7)
    torch.testing.assert_close(got.cpu(), want, **grad_tol(dtype))


@CUDA
@pytest.mark.parametrize("fused", ["0", "1"])
def test_cuda_warp_softmax_offset_rows_fall_back(fused, monkeypatch):
    monkeypatch.setenv("OPGEN_WARP_SOFTMAX", fused)
    x = torch.randn(3 * 256 + 1, dtype=torch.bfloat16)[1:].view(1, 3, 1, 256)
    torch.testing.assert_close(OPS.scaled_masked_softmax.default(x.cuda(), None, 1.0).cpu(),
                               OPS.scaled_masked_softmax.default(x, None, 1.0), **tol(torch.bfloat16))


@CUDA
@pytest.mark.parametrize("dtype,moment_dtype", [(torch.float32, torch.float32), (torch.float16, torch.float32), (torch.bfloat16, torch.bfloat16)])
def test_cuda_multi_tensor_adam_matches_cpu(dtype, moment_dtype):
    cpu = adam_lists([(5,), (300000,), (0,), (1031,), (7, 9)] + [(3,)] * 40, dtype, moment_dtype)
    gpu = _to_cuda(clone_args(cpu))
    opgen_ops.multi_tensor_adam_(*cpu, step=4, **ADAM_HP)
    opgen_ops.multi_tensor_adam_(*gpu, step=4, **ADAM_HP)
    for a, b in zip(torch.utils._pytree.tree_leaves(gpu), torch.utils._pytree.tree_leaves(cpu)):
        torch.testing.assert_close(a.cpu(), b, **tol(a.dtype))


@CUDA
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cuda_in_place_ops_match_cpu(dtype):
    # fused_add_rms_norm_ and multi_tensor_scale_ write their inputs: compare the tensors after.
    x, r, w = torch.randn(37, 1031, dtype=dtype), torch.randn(37, 1031, dtype=dtype), torch.randn(1031, dtype=dtype)
    lists = [torch.randn(5, dtype=dtype), torch.randn(300001, dtype=dtype), torch.randn(0, dtype=dtype)]
    for op, args in [(OPS.fused_add_rms_norm_.default, (x, r, w, 1e-6)), (OPS.multi_tensor_scale_.default, (lists, 0.5))]:
        cpu, gpu = clone_args(args), _to_cuda(clone_args(args))
        op(*cpu)
        op(*gpu)
        # The tensors only: the arguments hold an eps and a scale too.
        tensors = lambda args: [t for t in torch.utils._pytree.tree_leaves(args) if isinstance(t, torch.Tensor)]
        for g, c in zip(tensors(gpu), tensors(cpu), strict=True):
            torch.testing.assert_close(g.cpu(), c, **tol(dtype))


@CUDA
def test_cuda_runner_apply_matches_cpu(runner):
    x = torch.randn(1000003, dtype=torch.float16)
    torch.testing.assert_close(opgen_ops.runner_apply(x.cuda(), runner).cpu(), opgen_ops.runner_apply(x, runner))


# Every tensor of a list meets the op's contract (checks on a Tensor[]
# argument hold for each tensor), in the fake and in the C++ wrapper: a
# tensor on another device used to make l2norm return uninitialized memory
# and scale_/adam_ skip the list.
def _list_op_calls(other):
    a, b = torch.randn(4), torch.randn(3).to(other)
    four = [[torch.randn(4), torch.randn(3).to(other)] for _ in range(4)]
    return [
        ("multi_tensor_l2norm", "tensors", ([a, b],)),
        ("multi_tensor_scale_", "tensors", ([a, b], 2.0)),
        ("multi_tensor_adam_", "params", (*four, 1e-3, 0.9, 0.999, 1e-8, 0.0, 1)),
    ]


@pytest.mark.parametrize("index", range(3))
def test_list_ops_reject_a_tensor_on_another_device(index):
    name, arg, args = _list_op_calls("meta")[index]
    with pytest.raises(RuntimeError, match=rf"opgen::{name}: expected '{arg}\[1\]' to be on the same device as '{arg}\[0\]'"):
        getattr(OPS, name)(*args)


@pytest.mark.parametrize("index", range(3))
def test_list_ops_check_each_tensor_in_cpp_too(index):
    # Straight to the CPU kernel: the generated C++ wrapper's check, not the fake's.
    name, arg, args = _list_op_calls("meta")[index]
    cpu = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
    with pytest.raises(RuntimeError, match=rf"opgen::{name}: expected '{arg}\[1\]' to be on the same device as '{arg}\[0\]'"):
        getattr(OPS, name).default.redispatch(cpu, *args)


def test_list_ops_reject_a_dtype_they_do_not_carry():
    with pytest.raises(RuntimeError, match=r"opgen::multi_tensor_scale_: expected 'tensors\[1\]' to have dtype"):
        OPS.multi_tensor_scale_([torch.randn(3), torch.ones(3, dtype=torch.int32)], 2.0)


@CUDA
@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30])
def test_cuda_multi_tensor_l2norm_float64_keeps_its_range(scale):
    # Squares of these leave float's range: the sums must stay in double.
    tensors = [torch.randn(5, dtype=torch.float64) * scale, torch.randn(70_000, dtype=torch.float64) * scale]
    total, per_tensor = OPS.multi_tensor_l2norm([t.cuda() for t in tensors])
    want = torch.stack([t.norm() for t in tensors])
    torch.testing.assert_close(per_tensor.cpu().double(), want, rtol=1e-5, atol=0)
    torch.testing.assert_close(total.cpu().double(), want.norm(), rtol=1e-5, atol=0)


@CUDA
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_cuda_softmax_cross_entropy_padded_vocabulary(dtype):
    logits = torch.randn(4, 70, dtype=dtype)
    logits[:, 64:] = float("-inf")
    logits[2, 1:] = float("-inf")
    labels = torch.tensor([1, 3, 0, -100])
    losses, _ = OPS.softmax_cross_entropy(logits.cuda(), labels.cuda(), 0.0)
    assert not losses.isnan().any(), losses
    want = F.cross_entropy(logits.double(), labels, reduction="none")
    torch.testing.assert_close(losses.cpu().double(), want, **tol(dtype))
