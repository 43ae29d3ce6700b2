"""The demo: several opgen ops called eagerly and under
torch.compile(fullgraph=True), each checked against a PyTorch reference."""

import torch

import opgen_ops


def rms_norm_ref(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def report(name, got, want, **tol):
    err = (got.double() - want.double()).abs().max().item() if got.numel() else 0.0
    ok = torch.allclose(got.double(), want.double(), **tol)
    print(f"  {name:<44} max|err| = {err:.2e}  {'ok' if ok else 'MISMATCH'}")
    return ok


def main():
    torch.manual_seed(0)
    ok = True
    x, w = torch.randn(8, 64), torch.randn(64)
    r = torch.randn(8, 64)
    compiled_norm = torch.compile(lambda a, b: opgen_ops.rms_norm(a, b, 1e-6), fullgraph=True, dynamic=True)

    print("eager:")
    ok &= report("opgen_ops.rms_norm", opgen_ops.rms_norm(x, w, 1e-6), rms_norm_ref(x, w, 1e-6), atol=1e-5)
    xs, rs = x.clone(), r.clone()
    opgen_ops.fused_add_rms_norm_(xs, rs, w, 1e-6)
    ok &= report("opgen_ops.fused_add_rms_norm_ (input)", xs, rms_norm_ref(x + r, w, 1e-6), atol=1e-5)
    ok &= report("opgen_ops.fused_add_rms_norm_ (residual)", rs, x + r, atol=1e-6)
    q, s = opgen_ops.quantize_fp8(x)
    ok &= report("opgen_ops.quantize_fp8 (dequantized)", q.float() * s, x, atol=0.5, rtol=0.07)
    total, per = opgen_ops.multi_tensor_l2norm([x, w, r])
    ok &= report("opgen_ops.multi_tensor_l2norm (per tensor)", per, torch.stack([x.norm(), w.norm(), r.norm()]), rtol=1e-5)
    ok &= report("opgen_ops.multi_tensor_l2norm (total)", total, torch.cat([x.flatten(), w, r.flatten()]).norm(), rtol=1e-5)

    print("torch.compile(fullgraph=True, dynamic=True):")
    for rows in (3, 17):
        a = torch.randn(rows, 64)
        ok &= report(f"opgen_ops.rms_norm, {rows} rows", compiled_norm(a, w), rms_norm_ref(a, w, 1e-6), atol=1e-5)
    xg = x.clone().requires_grad_()
    wg = w.clone().requires_grad_()
    compiled_norm(xg, wg).sum().backward()
    xr = x.clone().requires_grad_()
    wr = w.clone().requires_grad_()
    rms_norm_ref(xr, wr, 1e-6).sum().backward()
    ok &= report("opgen_ops.rms_norm backward (grad input)", xg.grad, xr.grad, atol=1e-4)
    ok &= report("opgen_ops.rms_norm backward (grad weight)", wg.grad, wr.grad, atol=1e-4)
    compiled_quant = torch.compile(lambda a: opgen_ops.quantize_fp8(a), fullgraph=True)
    q, s = compiled_quant(x)
    ok &= report("opgen_ops.quantize_fp8 (dequantized)", q.float() * s, x, atol=0.5, rtol=0.07)

    print("all results match their references" if ok else "SOME RESULTS DO NOT MATCH")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
