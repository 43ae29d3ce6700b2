"""Calls vLLM's ops on seeded inputs on one side (its own extension, or the packages opgen generated from
the same kernels) and saves every output; run once per side, in separate processes, then compare bit for
bit. Needs a CUDA device.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import sys
import torch

side, build, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "project":
    torch.ops.load_library(f"{build}/build-project/_C_stable_libtorch.so")
else:
    sys.path.insert(0, f"{build}/build-imported/python")
    import importlib
    for package in ("_C", "_C_cuda_utils", "_C_custom_ar"):  # the packages as the report names them
        importlib.import_module(package)
C = torch.ops._C
torch.manual_seed(0)
dev = "cuda"
results = {}
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    for n, d in ((1, 128), (7, 1024), (64, 4096)):
        tag = f"{dtype}-{n}x{d}"
        x2 = torch.randn(n, 2 * d, device=dev, dtype=dtype)
        x = torch.randn(n, d, device=dev, dtype=dtype)
        for op in ("silu_and_mul", "mul_and_silu", "gelu_and_mul", "gelu_tanh_and_mul"):
            o = torch.empty(n, d, device=dev, dtype=dtype)
            getattr(C, op)(o, x2)
            results[f"{op}/{tag}"] = o
        o = torch.empty(n, d, device=dev, dtype=dtype); C.fatrelu_and_mul(o, x2, 0.1); results[f"fatrelu/{tag}"] = o
        o = torch.empty(n, d, device=dev, dtype=dtype); C.swigluoai_and_mul(o, x2); results[f"swigluoai/{tag}"] = o
        o = torch.empty(n, d, device=dev, dtype=dtype); C.silu_and_mul_with_clamp(o, x2, 3.0); results[f"clamp/{tag}"] = o
        for op in ("gelu_new", "gelu_fast", "gelu_quick"):
            o = torch.empty_like(x); getattr(C, op)(o, x); results[f"{op}/{tag}"] = o
        w = torch.randn(d, device=dev, dtype=dtype)
        o = torch.empty_like(x); C.rms_norm(o, x, w, 1e-6); results[f"rms_norm/{tag}"] = o
        inp, res = x.clone(), torch.randn_like(x)
        C.fused_add_rms_norm(inp, res, w, 1e-6); results[f"fused_add_rms_norm/{tag}"] = (inp, res)
    # rotary_embedding: neox and not, 8 query heads, 2 key heads of 128
    heads, kv_heads, size, positions = 8, 2, 128, 37
    cache = torch.randn(4096, size, device=dev, dtype=dtype)
    for neox in (True, False):
        pos = torch.randint(0, 4096, (positions,), device=dev)
        q = torch.randn(positions, heads * size, device=dev, dtype=dtype)
        k = torch.randn(positions, kv_heads * size, device=dev, dtype=dtype)
        C.rotary_embedding(pos, q, k, size, cache, neox)
        results[f"rotary/{dtype}-{neox}"] = (q, k)
    logits = torch.randn(5, 32000, device=dev, dtype=dtype)
    prompt, output = torch.rand(5, 32000, device=dev) < 0.1, torch.rand(5, 32000, device=dev) < 0.1
    C.apply_repetition_penalties_(logits, prompt, output, torch.rand(5, device=dev, dtype=dtype) + 1)
    results[f"repetition_penalties/{dtype}"] = logits
for dtype in (torch.float16, torch.bfloat16):
    a = torch.randn(64, 256, device=dev, dtype=dtype)
    results[f"permute_cols/{dtype}"] = C.permute_cols(a, torch.randperm(256, device=dev, dtype=torch.int32))
results["get_device_attribute"] = torch.tensor(
    [torch.ops._C_cuda_utils.get_device_attribute(attribute, 0) for attribute in (1, 16, 75)])
torch.cuda.synchronize()
torch.save({k: v.cpu() if torch.is_tensor(v) else tuple(t.cpu() for t in v) for k, v in results.items()}, out)
print(side, len(results), "results")
