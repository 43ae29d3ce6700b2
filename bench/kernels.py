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
      [--json-out FILE]   # the JSON lines also go to FILE
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
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


def build_cases(dtype: torch.dtype, quick: bool, dev: str = "cuda", tiny: bool = False) -> list[Case]:
    """The cases for one dtype. `tiny`: toy sizes (for --smoke on any device)."""
    import opgen_ops  # noqa: F401  (loads the library)

    ops = torch.ops.opgen
    tokens, hidden = (64, 96) if tiny else (2048, 4096) if quick else (8192, 4096)
    cases: list[Case] = []

    def randn(*shape, dt=dtype):
        return torch.randn(*shape, device=dev, dtype=dt)

    # rms_norm / rms_norm_backward / fused_add_rms_norm_
    x, w, g = randn(tokens, hidden), randn(hidden), randn(tokens, hidden)
    cases.append(Case("rms_norm", f"{tokens}x{hidden}", nbytes(x, w, x),
                      lambda: ops.rms_norm(x, w, 1e-6), lambda: ref_rms_norm(x, w, 1e-6), ref_rms_norm, (x, w, 1e-6)))
    cases.append(Case("rms_norm_backward", f"{tokens}x{hidden}", nbytes(g, x, w, x, w),
                      lambda: ops.rms_norm_backward(g, x, w, 1e-6), lambda: ref_rms_norm_backward(g, x, w, 1e-6),
                      ref_rms_norm_backward, (g, x, w, 1e-6)))
    xa, ra = randn(tokens, hidden), randn(tokens, hidden)
    cases.append(Case("fused_add_rms_norm_", f"{tokens}x{hidden}", nbytes(xa, ra, w, xa, ra),
                      lambda: ops.fused_add_rms_norm_(xa, ra, w, 1e-6), lambda: ref_fused_add_rms_norm_(xa, ra, w, 1e-6),
                      ref_fused_add_rms_norm_, (xa, ra, w, 1e-6)))

    # layer_norm / layer_norm_backward
    b = randn(hidden)
    _, mean, rstd = ops.layer_norm(x, w, b, 1e-5)
    stats = nbytes(mean, rstd)
    cases.append(Case("layer_norm", f"{tokens}x{hidden}", nbytes(x, w, b, x) + stats,
                      lambda: ops.layer_norm(x, w, b, 1e-5), lambda: F.layer_norm(x, (hidden,), w, b, 1e-5),
                      lambda x, w, b: F.layer_norm(x, (hidden,), w, b, 1e-5), (x, w, b)))
    _, amean, arstd = torch.ops.aten.native_layer_norm(x, [hidden], w, b, 1e-5)

    def aten_ln_bwd(g, x, amean, arstd, w, b):
        return torch.ops.aten.native_layer_norm_backward(g, x, [hidden], amean, arstd, w, b, [True, True, True])

    cases.append(Case("layer_norm_backward", f"{tokens}x{hidden}", nbytes(g, x, w, x, w, w) + stats,
                      lambda: ops.layer_norm_backward(g, x, mean, rstd, w),
                      lambda: aten_ln_bwd(g, x, amean, arstd, w, b), aten_ln_bwd, (g, x, amean, arstd, w, b)))

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
    Sk = Sq
    s_in = randn(B, H, Sq, Sk)
    mask = torch.ones(Sq, Sk, device=dev, dtype=torch.bool).triu(1)[None, None]
    cases.append(Case("scaled_masked_softmax", f"{B}x{H}x{Sq}x{Sk}", nbytes(s_in, mask, s_in),
                      lambda: ops.scaled_masked_softmax(s_in, mask, 0.125), lambda: ref_softmax(s_in, mask, 0.125),
                      ref_softmax, (s_in, mask, 0.125)))
    y = ops.scaled_masked_softmax(s_in, mask, 0.125)
    gy = randn(B, H, Sq, Sk)
    cases.append(Case("scaled_masked_softmax_backward", f"{B}x{H}x{Sq}x{Sk}", nbytes(gy, y, mask, y),
                      lambda: ops.scaled_masked_softmax_backward(gy, y, mask, 0.125),
                      lambda: ref_softmax_backward(gy, y, mask, 0.125), ref_softmax_backward, (gy, y, mask, 0.125)))

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


def time_ms(fn: Callable[[], object], min_total_ms: float = 50.0, repeats: int = 5) -> float:
    """Median time per call in ms, from CUDA events around batches of calls
    long enough to hide the launch and event overheads."""
    for _ in range(3):  # warm-up (and lazy initialization)
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    once = max(start.elapsed_time(end), 1e-3)
    iters = max(1, min(1000, int(min_total_ms / once)))
    samples = []
    for _ in range(repeats):
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / iters)
    return statistics.median(samples)


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


def run_case(case: Case, dtype_name: str) -> dict:
    result = {"kernel": case.name, "dtype": dtype_name, "shape": case.shape, "bytes": case.bytes}
    result["opgen_ms"] = time_ms(case.opgen)
    result["eager_ms"] = time_ms(case.eager)
    result["compile_ms"] = None
    result["compile_error"] = None
    if case.compile_fn is not None:
        try:
            compiled = torch.compile(case.compile_fn, dynamic=False)
            args = case.compile_args
            result["compile_ms"] = time_ms(lambda: compiled(*args))
        except Exception as e:  # a reference Inductor cannot compile is reported, not fatal
            result["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    for k in ("opgen", "eager", "compile"):
        result[f"{k}_GBps"] = gbps(case.bytes, result[f"{k}_ms"])
    result["speedup_vs_eager"] = result["eager_ms"] / result["opgen_ms"]
    result["speedup_vs_compile"] = None if result["compile_ms"] is None else result["compile_ms"] / result["opgen_ms"]
    return result


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_table(rows: list[dict]) -> None:
    head = (f"{'kernel':32} {'dtype':9} {'shape':22} {'opgen ms':>9} {'GB/s':>7} {'of copy':>7} {'eager GB/s':>10} "
            f"{'compile GB/s':>12} {'x eager':>8} {'x compile':>9}")
    print(head, file=sys.stderr)
    print("-" * len(head), file=sys.stderr)
    for r in rows:
        print(f"{r['kernel']:32} {r['dtype']:9} {r['shape']:22} {fmt(r['opgen_ms'], '9.4f')} "
              f"{fmt(r['opgen_GBps'], '7.0f')} {fmt(r.get('fraction_of_copy'), '7.0%')} "
              f"{fmt(r['eager_GBps'], '10.0f')} {fmt(r['compile_GBps'], '12.0f')} "
              f"{fmt(r['speedup_vs_eager'], '8.2f')} {fmt(r['speedup_vs_compile'], '9.2f')}", file=sys.stderr)


def smoke(dtypes: list[str], device: str, only: list[str] | None = None) -> int:
    """Runs every case once at toy sizes, opgen against eager, without
    timing: checks the benchmark itself (and, on a GPU, the kernels again)."""
    failures = 0
    for dtype_name in dtypes:
        for case in build_cases(DTYPES[dtype_name], quick=True, dev=device, tiny=True):
            if only and case.name not in only:
                continue
            got, want = case.opgen(), case.eager()
            ok = True
            if got is not None and want is not None:  # in-place ops return None
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
                        ok = False
            print(json.dumps({"smoke": case.name, "dtype": dtype_name, "device": device, "ok": ok}))
            failures += not ok
    return 1 if failures else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", action="append", choices=sorted(DTYPES), help="default: bfloat16 and float32")
    parser.add_argument("--only", action="append", help="kernel names to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller problems")
    parser.add_argument("--json-out", help="also write the JSON lines to this file")
    parser.add_argument("--smoke", choices=["cpu", "cuda"],
                        help="no timing: run every case once at toy sizes on this device, opgen vs eager")
    args = parser.parse_args(argv)

    if args.smoke:
        return smoke(args.dtype or ["bfloat16", "float32"], args.smoke, args.only)
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

    props = torch.cuda.get_device_properties(0)
    copy = copy_bandwidth_gbps()
    emit({"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda, "copy_GBps": copy})
    rows = []
    for dtype_name in args.dtype or ["bfloat16", "float32"]:
        for case in build_cases(DTYPES[dtype_name], args.quick):
            if args.only and case.name not in args.only:
                continue
            row = run_case(case, dtype_name)
            row["fraction_of_copy"] = row["opgen_GBps"] / copy
            rows.append(row)
            emit(row)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
