"""Calls vLLM's ops on seeded inputs on one side (its own extension, or the packages opgen generated from
the same kernels) and saves every output; run once per side, in separate processes, then compare.py the two
files bit for bit. Needs a CUDA device. An op that raises is saved as its error, so one wrong call costs
its case, not the run.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import importlib
import sys

import torch
from cases import Cases

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "project":
    torch.ops.load_library(f"{out_dir}/build-project/_C_stable_libtorch.so")
else:
    sys.path.insert(0, f"{out_dir}/build-imported/python")
    for package in sorted({line.split()[0] for line in open(f"{out_dir}/keep.txt")}):  # as the report names them
        importlib.import_module(package)
C = torch.ops._C
dev = "cuda"
case = results = Cases(sync=torch.cuda.synchronize)


def into(op, shape, dtype, *inputs):
    """`op(out, *inputs)` into a new `out`; returns it."""
    o = torch.empty(shape, device=dev, dtype=dtype)
    op(o, *inputs)
    return o


for dtype in (torch.float32, torch.float16, torch.bfloat16):
    for n, d in ((1, 128), (7, 1024), (64, 4096)):
        tag = f"{dtype}-{n}x{d}"
        x2 = lambda: torch.randn(n, 2 * d, device=dev, dtype=dtype)  # noqa: E731
        x = lambda: torch.randn(n, d, device=dev, dtype=dtype)  # noqa: E731
        for op in ("silu_and_mul", "mul_and_silu", "gelu_and_mul", "gelu_tanh_and_mul"):
            case(f"{op}/{tag}", lambda: into(getattr(C, op), (n, d), dtype, x2()))
        case(f"fatrelu_and_mul/{tag}", lambda: into(C.fatrelu_and_mul, (n, d), dtype, x2(), 0.1))
        case(f"swigluoai_and_mul/{tag}", lambda: into(C.swigluoai_and_mul, (n, d), dtype, x2()))
        case(f"silu_and_mul_with_clamp/{tag}", lambda: into(C.silu_and_mul_with_clamp, (n, d), dtype, x2(), 3.0))
        for op in ("gelu_new", "gelu_fast", "gelu_quick"):
            case(f"{op}/{tag}", lambda: into(getattr(C, op), (n, d), dtype, x()))
        w = lambda: torch.randn(d, device=dev, dtype=dtype)  # noqa: E731
        case(f"rms_norm/{tag}", lambda: into(C.rms_norm, (n, d), dtype, x(), w(), 1e-6))

        def fused_add():
            inp, res = x(), x()
            C.fused_add_rms_norm(inp, res, w(), 1e-6)
            return inp, res

        case(f"fused_add_rms_norm/{tag}", fused_add)
    heads, kv_heads, size, positions = 8, 2, 128, 37
    for neox in (True, False):

        def rotary():
            cache = torch.randn(4096, size, device=dev, dtype=dtype)
            pos = torch.randint(0, 4096, (positions,), device=dev)
            q = torch.randn(positions, heads * size, device=dev, dtype=dtype)
            k = torch.randn(positions, kv_heads * size, device=dev, dtype=dtype)
            C.rotary_embedding(pos, q, k, size, cache, neox)
            return q, k

        case(f"rotary_embedding/{dtype}-{neox}", rotary)

    def penalties():
        logits = torch.randn(5, 32000, device=dev, dtype=dtype)
        prompt, output = torch.rand(5, 32000, device=dev) < 0.1, torch.rand(5, 32000, device=dev) < 0.1
        C.apply_repetition_penalties_(logits, prompt, output, torch.rand(5, device=dev, dtype=dtype) + 1)
        return logits

    case(f"apply_repetition_penalties_/{dtype}", penalties)
    if dtype != torch.float32:
        case(f"permute_cols/{dtype}", lambda: C.permute_cols(torch.randn(64, 256, device=dev, dtype=dtype),
                                                             torch.randperm(256, device=dev, dtype=torch.int32)))
        for block in (16, 32):

            def reshape_and_cache():
                # key/value [tokens, heads, size] into a paged cache [blocks, block, heads, size], "auto" dtype
                tokens, blocks = 45, 8
                key = torch.randn(tokens, kv_heads, size, device=dev, dtype=dtype)
                value = torch.randn(tokens, kv_heads, size, device=dev, dtype=dtype)
                key_cache = torch.zeros(blocks, block, kv_heads, size, device=dev, dtype=dtype)
                value_cache = torch.zeros_like(key_cache)
                slots = torch.randperm(blocks * block, device=dev)[:tokens]
                scale = torch.ones((), device=dev, dtype=torch.float32)
                torch.ops._C_cache_ops.reshape_and_cache_flash(key, value, key_cache, value_cache, slots, "auto",
                                                               scale, scale)
                return key_cache, value_cache

            case(f"reshape_and_cache_flash/{dtype}-{block}", reshape_and_cache)
if torch.cuda.is_available():  # its kernel exits the process on a CUDA error, which no case can record
    case("get_device_attribute", lambda: torch.tensor(
        [torch.ops._C_cuda_utils.get_device_attribute(attribute, 0) for attribute in (1, 16, 75)]))
torch.save(dict(results), out)  # a plain dict: torch.load reads it with weights_only
raised = [name for name, value in results.items() if isinstance(value, str)]
print(f"{side}: {len(results)} cases, {len(raised)} raised", *raised[:5])
