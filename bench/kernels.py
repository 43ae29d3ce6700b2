#!/usr/bin/env python3
"""Times every CUDA kernel of the opgen library against PyTorch.

For each kernel (forward and backward ops separately) and dtype it runs, on
the same CUDA inputs:
  opgen    the opgen op (torch.ops.opgen.*),
  eager    the same computation written in plain PyTorch (ATen kernels where
           PyTorch has a fused one, e.g. F.layer_norm, fused AdamW),
  compile  that PyTorch function under torch.compile (Inductor, static shapes),
and reports the time per call, the achieved bandwidth (the bytes the
computation must move at least: every input read once, every output written
once, divided by the time), that bandwidth as a fraction of the device's
copy bandwidth measured in the same run (a large device-to-device copy: the
roofline a memory-bound kernel can reach), and opgen's speedup over eager and
compile.

Output: one JSON object per line per (kernel, dtype), then a short table.
Without a CUDA device it says so and exits 0.

  PYTHONPATH=build/python:python python3 bench/kernels.py [--dtype bfloat16 ...] [--only layer_norm ...] [--quick]
      [--sweep] [--json-out FILE]   # the JSON lines also go to FILE

--sweep times the norm kernels over the hidden sizes users run (1024-16384
at 32M elements per tensor, and decode-sized batches of 1 and 32 rows), and
the softmax over rows of 128-8192, in place of the one shape per kernel.

Kernels with a variant behind a switch (an environment variable the kernel
reads per call, kernels/common/kernel_switch.h: a new kernel before a GPU run
made it the default, or the old kernel it replaced, e.g.
OPGEN_FUSED_NORM_BACKWARD=0) get one more row per variant,
`<kernel>[<variant>]`, timed on the same inputs beside the default.
Where Liger (liger-kernel, Triton) is importable, its kernel for the same op
is timed too ("liger" columns; the device check carries its wheel).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


@dataclass
class Case:
    name: str  # kernel, e.g. "layer_norm" or "layer_norm_backward"
    shape: str  # human-readable problem size
    bytes: int  # minimal bytes moved per call
    opgen: Callable[[], object]
    eager: Callable[[], object]
    # A function of the inputs for torch.compile, and its inputs (compiled
    # once, then called like `eager`). None: no compiled variant.
    compile_fn: Callable | None = None
    compile_args: tuple = ()
    # Variants of the opgen kernel behind a switch: name -> environment.
    variants: dict = field(default_factory=dict)
    # The same op from Liger (Triton), when installed.
    liger: Callable | None = None


def nbytes(*tensors) -> int:
    total = 0
    for t in tensors:
        if isinstance(t, (list, tuple)):
            total += nbytes(*t)
        elif t is not None:
            total += t.numel() * t.element_size()
    return total


# --------------------------------------------------------------- references
# Plain PyTorch versions of each op (float32 math for half inputs, like the
# kernels), used eagerly and under torch.compile.


def ref_rms_norm(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def ref_rms_norm_backward(g, x, w, eps):
    xf, gf, wf = x.float(), g.float(), w.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    dot = (gf * wf * xf).sum(-1, keepdim=True)
    dx = rstd * wf * gf - xf * rstd.pow(3) * dot / x.shape[-1]
    dw = (gf * xf * rstd).reshape(-1, x.shape[-1]).sum(0)
    return dx.to(x.dtype), dw.to(w.dtype)


def ref_fused_add_rms_norm_(x, r, w, eps):
    r.add_(x)
    x.copy_(ref_rms_norm(r, w, eps))


def ref_quantize_fp8(x):
    scale = x.float().abs().amax().clamp(min=1e-12) / 448.0
    return (x.float() / scale).clamp(-448, 448).to(torch.float8_e4m3fn), scale


def ref_l2norm(ts):
    per = torch.stack(torch._foreach_norm(ts, dtype=torch.float32))
    return per.norm(), per


def ref_rotary(x, cos, sin):
    half = cos.shape[-1]
    c, s = cos[:, None, :].float(), sin[:, None, :].float()
    xf = x.float()
    x1, x2 = xf[..., :half], xf[..., half : 2 * half]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s, xf[..., 2 * half :]], -1).to(x.dtype)


def ref_rotary_pair(q, k, cos, sin):
    return ref_rotary(q, cos, sin), ref_rotary(k, cos, sin)


def ref_softmax(x, mask, scale):
    return torch.softmax((x.float() * scale).masked_fill(mask, -10000.0), -1).to(x.dtype)


def ref_softmax_backward(g, y, mask, scale):
    gf, yf = g.float(), y.float()
    dx = scale * yf * (gf - (gf * yf).sum(-1, keepdim=True))
    return dx.masked_fill(mask, 0.0).to(g.dtype)


def ref_xent(logits, labels, smoothing):
    return F.cross_entropy(logits.float(), labels, reduction="none", label_smoothing=smoothing).to(logits.dtype)


def ref_xent_backward(g, logits, lse, labels, smoothing):
    p = torch.exp(logits.float() - lse[:, None])
    target = torch.full_like(p, smoothing / logits.shape[1])
    target.scatter_add_(1, labels[:, None], torch.full_like(p[:, :1], 1 - smoothing))
    return (g.float()[:, None] * (p - target)).to(logits.dtype)


# --------------------------------------------------------------- the cases


# The kernels a switch replaced, timed beside the default (kernel_switch.h).
NORM_BACKWARD_VARIANTS = {"two-kernel": {"OPGEN_FUSED_NORM_BACKWARD": "0"}}
# A new kernel behind its switch, off by default: timed beside the default until a run decides.
# Two launch shapes of the register kernels (kernels/common/norm_forward_regs.cuh): few vectors per thread, or
# Quack's threads per row ("narrow").
NARROW = {"OPGEN_REGISTER_NORM_NARROW": "1"}
LAYER_NORM_VARIANTS = {"registers": {"OPGEN_REGISTER_LAYER_NORM": "1"},
                       "registers-narrow": {"OPGEN_REGISTER_LAYER_NORM": "1", **NARROW}}
RMS_NORM_VARIANTS = {"registers": {"OPGEN_REGISTER_RMS_NORM": "1"},
                     "registers-narrow": {"OPGEN_REGISTER_RMS_NORM": "1", **NARROW}}


def liger_ops():
    """Liger's norm modules (liger-kernel), or None where it is not installed."""
    try:
        from liger_kernel.ops import layer_norm as liger_ln, rms_norm as liger_rms
    except Exception:  # not installed, or no Triton for this device
        return None
    return liger_rms, liger_ln


def norm_cases(dtype: torch.dtype, tokens: int, hidden: int, randn) -> list[Case]:
    """rms_norm, layer_norm and their backwards at [tokens, hidden]."""
    ops = torch.ops.opgen
    shape = f"{tokens}x{hidden}"
    x, w, g, b = randn(tokens, hidden), randn(hidden), randn(tokens, hidden), randn(hidden)
    liger = liger_ops() if x.is_cuda else None  # Triton: CUDA only
    cases = []
    liger_fwd = liger_bwd = None
    if liger:
        lrms, lln = liger
        _, _, lrstd, block, warps, mode = lrms.rms_norm_forward(x, w, 1e-6, 0.0, "llama", None)
        liger_fwd = lambda: lrms.rms_norm_forward(x, w, 1e-6, 0.0, "llama", None)  # noqa: E731
        liger_bwd = lambda: lrms.rms_norm_backward(g, x, w, lrstd, 0.0, mode, block, warps, False, None)  # noqa: E731
    cases.append(Case("rms_norm", shape, nbytes(x, w, x), lambda: ops.rms_norm(x, w, 1e-6),
                      lambda: ref_rms_norm(x, w, 1e-6), ref_rms_norm, (x, w, 1e-6), variants=RMS_NORM_VARIANTS,
                      liger=liger_fwd))
    cases.append(Case("rms_norm_backward", shape, nbytes(g, x, w, x, w),
                      lambda: ops.rms_norm_backward(g, x, w, 1e-6), lambda: ref_rms_norm_backward(g, x, w, 1e-6),
                      ref_rms_norm_backward, (g, x, w, 1e-6), variants=NORM_BACKWARD_VARIANTS, liger=liger_bwd))

    _, mean, rstd = ops.layer_norm(x, w, b, 1e-5)
    stats = nbytes(mean, rstd)
    if liger:
        _, _, lmean, lrstd2, _, _ = lln.layer_norm_forward(x, w, b, 1e-5)
        liger_fwd = lambda: lln.layer_norm_forward(x, w, b, 1e-5)  # noqa: E731
        liger_bwd = lambda: lln.layer_norm_backward(g, x, w, b, lmean, lrstd2)  # noqa: E731
    cases.append(Case("layer_norm", shape, nbytes(x, w, b, x) + stats,
                      lambda: ops.layer_norm(x, w, b, 1e-5), lambda: F.layer_norm(x, (hidden,), w, b, 1e-5),
                      lambda x, w, b: F.layer_norm(x, (hidden,), w, b, 1e-5), (x, w, b),
                      variants=LAYER_NORM_VARIANTS, liger=liger_fwd))
    _, amean, arstd = torch.ops.aten.native_layer_norm(x, [hidden], w, b, 1e-5)

    def aten_ln_bwd(g, x, amean, arstd, w, b):
        return torch.ops.aten.native_layer_norm_backward(g, x, [hidden], amean, arstd, w, b, [True, True, True])

    cases.append(Case("layer_norm_backward", shape, nbytes(g, x, w, x, w, w) + stats,
                      lambda: ops.layer_norm_backward(g, x, mean, rstd, w),
                      lambda: aten_ln_bwd(g, x, amean, arstd, w, b), aten_ln_bwd, (g, x, amean, arstd, w, b),
                      variants=NORM_BACKWARD_VARIANTS, liger=liger_bwd))
    return cases


SOFTMAX_VARIANTS = {"block": {"OPGEN_WARP_SOFTMAX": "0"}}
SOFTMAX_BACKWARD_VARIANTS = {"block": {"OPGEN_WARP_SOFTMAX_BACKWARD": "0"}}


def softmax_cases(B: int, H: int, Sq: int, Sk: int, randn) -> list[Case]:
    """scaled_masked_softmax and its backward on [B, H, Sq, Sk] with a causal
    [1, 1, Sq, Sk] mask (half of each row masked: bytes the op still moves)."""
    ops = torch.ops.opgen
    shape = f"{B}x{H}x{Sq}x{Sk}"
    s_in = randn(B, H, Sq, Sk)
    mask = torch.ones(Sq, Sk, device=s_in.device, dtype=torch.bool).triu(1)[None, None]
    y = ops.scaled_masked_softmax(s_in, mask, 0.125)
    gy = randn(B, H, Sq, Sk)
    return [
        Case("scaled_masked_softmax", shape, nbytes(s_in, mask, s_in),
             lambda: ops.scaled_masked_softmax(s_in, mask, 0.125), lambda: ref_softmax(s_in, mask, 0.125),
             ref_softmax, (s_in, mask, 0.125), variants=SOFTMAX_VARIANTS),
        Case("scaled_masked_softmax_backward", shape, nbytes(gy, y, mask, y),
             lambda: ops.scaled_masked_softmax_backward(gy, y, mask, 0.125),
             lambda: ref_softmax_backward(gy, y, mask, 0.125), ref_softmax_backward, (gy, y, mask, 0.125),
             variants=SOFTMAX_BACKWARD_VARIANTS),
    ]


# The sweep: hidden sizes users run at 32M elements per tensor (64 MiB in
# bfloat16, beyond the L2), and decode-sized batches.
SWEEP_SHAPES = [(1 << 25) // h for h in (1024, 2048, 4096, 8192, 16384)]
SWEEP_SHAPES = [(rows, (1 << 25) // rows) for rows in SWEEP_SHAPES] + [(32, 4096), (1, 4096)]
SWEEP_SOFTMAX_COLS = [128, 512, 1024, 2048, 8192]


def build_sweep(dtype: torch.dtype, dev: str = "cuda", tiny: bool = False) -> list[Case]:
    import opgen_ops  # noqa: F401  (loads the library)

    def randn(*shape, dt=dtype):
        return torch.randn(*shape, device=dev, dtype=dt)

    shapes = [(64, 96), (3, 128)] if tiny else SWEEP_SHAPES
    cases = [case for rows, hidden in shapes for case in norm_cases(dtype, rows, hidden, randn)]
    # Softmax rows of 128-8192 at 32M elements (B = 4, H = 16).
    for sk in [40, 16] if tiny else SWEEP_SOFTMAX_COLS:
        cases += softmax_cases(2 if tiny else 4, 2 if tiny else 16, max(1, (64 if tiny else 1 << 25) // (64 * sk)), sk, randn)
    return cases


def build_cases(dtype: torch.dtype, quick: bool, dev: str = "cuda", tiny: bool = False) -> list[Case]:
    """The cases for one dtype. `tiny`: toy sizes (for --smoke on any device)."""
    import opgen_ops  # noqa: F401  (loads the library)

    ops = torch.ops.opgen
    tokens, hidden = (64, 96) if tiny else (2048, 4096) if quick else (8192, 4096)
    cases: list[Case] = []

    def randn(*shape, dt=dtype):
        return torch.randn(*shape, device=dev, dtype=dt)

    cases += norm_cases(dtype, tokens, hidden, randn)
    x, w, g = randn(tokens, hidden), randn(hidden), randn(tokens, hidden)
    xa, ra = randn(tokens, hidden), randn(tokens, hidden)
    cases.insert(2, Case("fused_add_rms_norm_", f"{tokens}x{hidden}", nbytes(xa, ra, w, xa, ra),
                         lambda: ops.fused_add_rms_norm_(xa, ra, w, 1e-6),
                         lambda: ref_fused_add_rms_norm_(xa, ra, w, 1e-6), ref_fused_add_rms_norm_, (xa, ra, w, 1e-6)))

    # rotary_embedding / backward: [B*S, H, D] q with 32 heads, k with 8 heads
    S, Hq, Hk, D = (tokens, 4, 2, 32) if tiny else (tokens, 32, 8, 128)
    q, k = randn(S, Hq, D), randn(S, Hk, D)
    ang = torch.arange(S, device=dev, dtype=torch.float32)[:, None] * torch.rand(D // 2, device=dev)
    cos, sin = ang.cos(), ang.sin()  # float32 tables (with bfloat16 q/k, as in most models)
    rope_bytes = nbytes(q, k, q, k, cos, sin)
    cases.append(Case("rotary_embedding", f"{S}x({Hq}+{Hk})x{D}", rope_bytes,
                      lambda: ops.rotary_embedding(q, k, cos, sin), lambda: ref_rotary_pair(q, k, cos, sin),
                      ref_rotary_pair, (q, k, cos, sin)))
    neg_sin = -sin
    cases.append(Case("rotary_embedding_backward", f"{S}x({Hq}+{Hk})x{D}", rope_bytes,
                      lambda: ops.rotary_embedding_backward(q, k, cos, sin),
                      lambda: ref_rotary_pair(q, k, cos, neg_sin), ref_rotary_pair, (q, k, cos, neg_sin)))

    # scaled_masked_softmax / backward: [B, H, Sq, Sk] with a causal [1, 1, Sq, Sk] mask
    B, H, Sq = (2, 2, 40) if tiny else (2, 16, 1024) if quick else (4, 16, 2048)
    cases += softmax_cases(B, H, Sq, Sq, randn)

    # softmax_cross_entropy / backward: [tokens, vocab]
    N, V = (16, 1000) if tiny else (2048, 32000) if quick else (4096, 128256)
    logits = randn(N, V)
    labels = torch.randint(0, V, (N,), device=dev)
    losses, lse = ops.softmax_cross_entropy(logits, labels, 0.1, -100)
    cases.append(Case("softmax_cross_entropy", f"{N}x{V}", nbytes(logits, labels, losses, lse),
                      lambda: ops.softmax_cross_entropy(logits, labels, 0.1, -100),
                      lambda: ref_xent(logits, labels, 0.1), ref_xent, (logits, labels, 0.1)))
    gl = randn(N)
    cases.append(Case("softmax_cross_entropy_backward", f"{N}x{V}", nbytes(gl, logits, lse, labels, logits),
                      lambda: ops.softmax_cross_entropy_backward(gl, logits, lse, labels, 0.1, -100),
                      lambda: ref_xent_backward(gl, logits, lse, labels, 0.1),
                      ref_xent_backward, (gl, logits, lse, labels, 0.1)))

    # quantize_fp8
    xq = randn(tokens, hidden)
    cases.append(Case("quantize_fp8", f"{tokens}x{hidden}", nbytes(xq) + xq.numel(),
                      lambda: ops.quantize_fp8(xq), lambda: ref_quantize_fp8(xq), ref_quantize_fp8, (xq,)))

    # runner_apply
    rid = ops.runner_create(1.5, 0.25)
    cases.append(Case("runner_apply", f"{tokens}x{hidden}", nbytes(xq, xq),
                      lambda: ops.runner_apply(xq, rid), lambda: xq * 1.5 + 0.25,
                      lambda t: t * 1.5 + 0.25, (xq,)))

    # compact_rows: half of the rows (includes the count's device-to-host sync, as x[mask] does)
    xc = randn(tokens, hidden)
    keep = torch.rand(tokens, device=dev) < 0.5
    kept = int(keep.sum())
    cases.append(Case("compact_rows", f"{tokens}x{hidden}", nbytes(keep) + 2 * kept * hidden * xc.element_size(),
                      lambda: ops.compact_rows(xc, keep), lambda: xc[keep], lambda t, m: t[m], (xc, keep)))

    # Multi-tensor ops: a transformer-like parameter list.
    big = 3 * hidden if tiny else 11008
    shapes = [(hidden, hidden)] * (8 if quick else 24) + [(hidden,)] * 32 + [(big, hidden)] * (2 if quick else 6)
    ts = [randn(*s) for s in shapes]
    cases.append(Case("multi_tensor_scale_", f"{len(ts)} tensors", 2 * nbytes(ts),
                      lambda: ops.multi_tensor_scale_(ts, 0.999), lambda: torch._foreach_mul_(ts, 0.999),
                      lambda ts: torch._foreach_mul_(ts, 0.999), (ts,)))
    cases.append(Case("multi_tensor_l2norm", f"{len(ts)} tensors", nbytes(ts),
                      lambda: ops.multi_tensor_l2norm(ts), lambda: ref_l2norm(ts), ref_l2norm, (ts,)))

    params = [torch.randn(*s, device=dev, dtype=dtype) for s in shapes]
    grads = [torch.randn_like(p) * 1e-3 for p in params]
    mom_dtype = torch.float32  # fp32 moments (the usual mixed-precision setup)
    ms = [torch.zeros_like(p, dtype=mom_dtype) for p in params]
    vs = [torch.zeros_like(p, dtype=mom_dtype) for p in params]
    ref_params = [p.clone() for p in params]
    ref_ms = [m.clone() for m in ms]
    ref_vs = [v.clone() for v in vs]
    steps = torch.tensor(10.0, device=dev)
    ref_steps = [steps.clone() for _ in params]

    def torch_fused_adamw():
        # PyTorch's own fused AdamW kernel (what torch.optim.AdamW(fused=True) runs); it wants one dtype
        # for params and moments, so it is the eager baseline for float32 only.
        torch._fused_adamw_(ref_params, grads, ref_ms, ref_vs, [], ref_steps, lr=1e-4, beta1=0.9, beta2=0.999,
                            weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)

    def foreach_adamw(params, grads, ms, vs):
        torch._foreach_mul_(params, 1 - 1e-4 * 0.01)
        torch._foreach_lerp_(ms, [g.float() for g in grads], 0.1)
        torch._foreach_mul_(vs, 0.999)
        torch._foreach_addcmul_(vs, [g.float() for g in grads], [g.float() for g in grads], 0.001)
        denom = torch._foreach_add(torch._foreach_div(torch._foreach_sqrt(vs), math.sqrt(1 - 0.999**10)), 1e-8)
        upd = torch._foreach_div(ms, denom)
        torch._foreach_add_(params, [u.to(p.dtype) for u, p in zip(upd, params)], alpha=-1e-4 / (1 - 0.9**10))

    adam_bytes = nbytes(params, grads, ms, vs, params, ms, vs)
    eager = torch_fused_adamw if mom_dtype == dtype else (lambda: foreach_adamw(ref_params, grads, ref_ms, ref_vs))
    cases.append(Case("multi_tensor_adam_", f"{len(params)} tensors", adam_bytes,
                      lambda: ops.multi_tensor_adam_(params, grads, ms, vs, 1e-4, 0.9, 0.999, 1e-8, 0.01, 10, True),
                      eager, foreach_adamw, (ref_params, grads, ref_ms, ref_vs)))
    return cases


# --------------------------------------------------------------- timing


@dataclass
class Timing:
    ms: float  # median per call
    lo: float  # fastest and slowest batch: the spread
    hi: float


# Each timed batch lasts at least this long (--sweep: 20, for its many cases).
BATCH_MS = 50.0


def time_calls(fn: Callable[[], object], min_total_ms: float | None = None, repeats: int = 5) -> Timing:
    """Time per call in ms, from CUDA events around batches of calls long
    enough to hide the launch and event overheads: the median of `repeats`
    batches, with the fastest and slowest."""
    for _ in range(3):  # warm-up (and lazy initialization)
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    once = max(start.elapsed_time(end), 1e-3)
    iters = max(1, min(1000, int((min_total_ms or BATCH_MS) / once)))
    samples = []
    for _ in range(repeats):
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / iters)
    return Timing(statistics.median(samples), min(samples), max(samples))


def time_ms(fn: Callable[[], object], **kw) -> float:
    return time_calls(fn, **kw).ms


@contextlib.contextmanager
def environment(env: dict):
    """Sets `env` in this process's environment (kernels read their switches
    per call) and restores it after."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def gbps(nbytes_: int, ms: float | None) -> float | None:
    return None if ms is None else nbytes_ / (ms * 1e-3) / 1e9


def copy_bandwidth_gbps(nbytes_: int = 1 << 30) -> float:
    """The device's achievable memory bandwidth: a device-to-device copy of
    nbytes_ (read once, written once)."""
    src = torch.empty(nbytes_, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = time_ms(lambda: dst.copy_(src))
    del src, dst
    return gbps(2 * nbytes_, ms)


def run_case(case: Case, dtype_name: str) -> list[dict]:
    """The case's row, then one row per variant (sharing the baselines)."""
    result = {"kernel": case.name, "dtype": dtype_name, "shape": case.shape, "bytes": case.bytes}
    opgen = time_calls(case.opgen)
    result.update(opgen_ms=opgen.ms, opgen_ms_min=opgen.lo, opgen_ms_max=opgen.hi)
    result["eager_ms"] = time_ms(case.eager)
    result["compile_ms"] = None
    result["compile_error"] = None
    if case.compile_fn is not None:
        try:
            # A fresh Dynamo cache per case: the sweep compiles one function at
            # many shapes, past Dynamo's recompile limit (after which it runs eagerly).
            torch._dynamo.reset()
            compiled = torch.compile(case.compile_fn, dynamic=False)
            args = case.compile_args
            result["compile_ms"] = time_ms(lambda: compiled(*args))
        except Exception as e:  # a reference Inductor cannot compile is reported, not fatal
            result["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    result["liger_ms"] = None
    if case.liger is not None:
        try:
            result["liger_ms"] = time_ms(case.liger)
        except Exception as e:
            result["liger_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    rows = [result]
    for name, env in case.variants.items():
        with environment(env):
            t = time_calls(case.opgen)
        rows.append({**result, "kernel": f"{case.name}[{name}]", "variant_env": env,
                     "opgen_ms": t.ms, "opgen_ms_min": t.lo, "opgen_ms_max": t.hi})
    for row in rows:
        for k in ("opgen", "eager", "compile", "liger"):
            row[f"{k}_GBps"] = gbps(case.bytes, row[f"{k}_ms"])
        for k in ("eager", "compile", "liger"):
            row[f"speedup_vs_{k}"] = None if row[f"{k}_ms"] is None else row[f"{k}_ms"] / row["opgen_ms"]
    return rows


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_table(rows: list[dict]) -> None:
    head = (f"{'kernel':38} {'dtype':9} {'shape':22} {'opgen ms':>9} {'spread':>6} {'GB/s':>7} {'of copy':>7} "
            f"{'eager GB/s':>10} {'compile GB/s':>12} {'liger GB/s':>10} {'x eager':>8} {'x compile':>9} {'x liger':>8}")
    print(head, file=sys.stderr)
    print("-" * len(head), file=sys.stderr)
    for r in rows:
        spread = (r["opgen_ms_max"] - r["opgen_ms_min"]) / r["opgen_ms"] if r.get("opgen_ms_min") is not None else None
        print(f"{r['kernel']:38} {r['dtype']:9} {r['shape']:22} {fmt(r['opgen_ms'], '9.4f')} {fmt(spread, '6.1%')} "
              f"{fmt(r['opgen_GBps'], '7.0f')} {fmt(r.get('fraction_of_copy'), '7.0%')} "
              f"{fmt(r['eager_GBps'], '10.0f')} {fmt(r['compile_GBps'], '12.0f')} {fmt(r.get('liger_GBps'), '10.0f')} "
              f"{fmt(r['speedup_vs_eager'], '8.2f')} {fmt(r['speedup_vs_compile'], '9.2f')} "
              f"{fmt(r.get('speedup_vs_liger'), '8.2f')}", file=sys.stderr)


def close_enough(got, want, dtype_name: str) -> bool:
    """Whether `got` matches `want` (tensor leaves, pairwise), against the output's scale."""
    if got is None or want is None:  # in-place ops return None
        return True
    got_l = [t for t in torch.utils._pytree.tree_leaves(got) if isinstance(t, torch.Tensor)]
    want_l = [t for t in torch.utils._pytree.tree_leaves(want) if isinstance(t, torch.Tensor)]
    for g, w in zip(got_l, want_l):
        if g.dtype == torch.float8_e4m3fn:
            g, w = g.float(), w.float()
        # Against the output's scale, not elementwise: in bfloat16 the eager
        # reference is no better than opgen (ATen's CPU layer_norm backward
        # sums weight gradients in bfloat16; opgen is 4x closer to float64).
        tol = 5e-2 if dtype_name != "float32" else 1e-4
        scale = w.float().abs().max().item() if w.numel() else 0.0
        if g.shape != w.shape or (g.numel() and (g.float() - w.float()).abs().max().item() > tol * (1 + scale)):
            return False
    return True


def smoke(dtypes: list[str], device: str, only: list[str] | None = None, sweep: bool = False) -> int:
    """Runs every case once at toy sizes, opgen (and each variant, and Liger
    where installed) against eager, without timing: checks the benchmark
    itself (and, on a GPU, the kernels again)."""
    failures = 0
    for dtype_name in dtypes:
        dtype = DTYPES[dtype_name]
        cases = build_sweep(dtype, device, tiny=True) if sweep else build_cases(dtype, quick=True, dev=device, tiny=True)
        for case in cases:
            if only and case.name not in only:
                continue
            want = case.eager()
            runs = {case.name: case.opgen}
            for name, env in case.variants.items():
                runs[f"{case.name}[{name}]"] = lambda env=env: _with_env(env, case.opgen)
            if case.liger is not None:
                runs[f"{case.name}(liger)"] = case.liger
            for name, fn in runs.items():
                ok = close_enough(fn(), want, dtype_name)
                print(json.dumps({"smoke": name, "dtype": dtype_name, "shape": case.shape, "device": device, "ok": ok}))
                failures += not ok
    return 1 if failures else 0


def _with_env(env: dict, fn: Callable[[], object]):
    with environment(env):
        return fn()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", action="append", choices=sorted(DTYPES), help="default: bfloat16 and float32")
    parser.add_argument("--only", action="append", help="kernel names to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller problems")
    parser.add_argument("--json-out", help="also write the JSON lines to this file")
    parser.add_argument("--smoke", choices=["cpu", "cuda"],
                        help="no timing: run every case once at toy sizes on this device, opgen vs eager")
    parser.add_argument("--sweep", action="store_true", help="the norm kernels over the sweep's shapes")
    args = parser.parse_args(argv)

    if args.smoke:
        return smoke(args.dtype or ["bfloat16", "float32"], args.smoke, args.only, args.sweep)
    if not torch.cuda.is_available():
        print("bench/kernels.py: no CUDA device available; nothing to benchmark (the opgen CUDA kernels need one).")
        return 0

    out = open(args.json_out, "w") if args.json_out else None

    def emit(record):
        line = json.dumps(record)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    global BATCH_MS
    if args.sweep:
        BATCH_MS = 20.0
    props = torch.cuda.get_device_properties(0)
    copy = copy_bandwidth_gbps()
    liger = None
    with contextlib.suppress(Exception):
        import liger_kernel
        liger = getattr(liger_kernel, "__version__", None) or "installed"
    emit({"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda, "copy_GBps": copy,
          "liger": liger, "sweep": args.sweep})
    rows = []
    for dtype_name in args.dtype or ["bfloat16", "float32"]:
        dtype = DTYPES[dtype_name]
        for case in build_sweep(dtype) if args.sweep else build_cases(dtype, args.quick):
            if args.only and case.name not in args.only:
                continue
            for row in run_case(case, dtype_name):
                row["fraction_of_copy"] = row["opgen_GBps"] / copy
                rows.append(row)
                emit(row)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
