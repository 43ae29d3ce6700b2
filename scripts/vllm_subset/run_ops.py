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
    for extension in ("_C_stable_libtorch", "_moe_C_stable_libtorch"):
        torch.ops.load_library(f"{out_dir}/build-project/{extension}.so")
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
# Quantization, as vllm/_custom_ops.py calls the kernels (scaled_fp8_quant, scaled_int8_quant) and its fused
# norms; float8 e4m3fn, the CUDA build's type.
fp8 = torch.float8_e4m3fn
for dtype in (torch.float16, torch.bfloat16):
    for n, d in ((1, 256), (33, 4096)):
        tag = f"{dtype}-{n}x{d}"
        x = lambda: torch.randn(n, d, device=dev, dtype=dtype) * 4  # noqa: E731
        scale = lambda: torch.rand((), device=dev, dtype=torch.float32) + 0.05  # noqa: E731
        case(f"static_scaled_fp8_quant/{tag}", lambda: into(C.static_scaled_fp8_quant, (n, d), fp8, x(), scale(), None))

        def dynamic_fp8(per_token):
            out, s = torch.empty(n, d, device=dev, dtype=fp8), torch.empty(n if per_token else 1, 1, device=dev)
            if per_token:
                C.dynamic_per_token_scaled_fp8_quant(out, x(), s, None)
            else:
                C.dynamic_scaled_fp8_quant(out, x(), s.view(1))
            return out, s

        for per_token in (False, True):
            case(f"dynamic_fp8/{tag}-{per_token}", lambda: dynamic_fp8(per_token))

        def group_fp8():
            out, s = torch.empty(n, d, device=dev, dtype=fp8), torch.empty(n, d // 128, device=dev)
            C.per_token_group_fp8_quant(x(), out, s, 128, 1e-10, -448.0, 448.0, False, False, False)
            return out, s

        case(f"per_token_group_fp8_quant/{tag}", group_fp8)

        def int8(static, asymmetric):
            out = torch.empty(n, d, device=dev, dtype=torch.int8)
            if static:
                azp = torch.randint(-8, 8, (), device=dev, dtype=torch.int32) if asymmetric else None
                C.static_scaled_int8_quant(out, x(), scale(), azp)
                return out
            s = torch.empty(n, 1, device=dev)
            azp = torch.empty(n, 1, device=dev, dtype=torch.int32) if asymmetric else None
            C.dynamic_scaled_int8_quant(out, x(), s, azp)
            return (out, s) + ((azp,) if asymmetric else ())

        for static in (True, False):
            for asymmetric in (False, True):
                case(f"int8_quant/{tag}-{static}-{asymmetric}", lambda: int8(static, asymmetric))
        w = lambda: torch.randn(d, device=dev, dtype=dtype)  # noqa: E731
        case(f"rms_norm_static_fp8_quant/{tag}",
             lambda: into(C.rms_norm_static_fp8_quant, (n, d), fp8, x(), w(), scale(), 1e-6))

        def fused_add_fp8():
            residual = x()
            out = into(C.fused_add_rms_norm_static_fp8_quant, (n, d), fp8, x(), residual, w(), scale(), 1e-6)
            return out, residual

        case(f"fused_add_rms_norm_static_fp8_quant/{tag}", fused_add_fp8)

        def rms_dynamic(quant_dtype):
            out, s = torch.empty(n, d, device=dev, dtype=quant_dtype), torch.empty(n, 1, device=dev)
            C.rms_norm_dynamic_per_token_quant(out, x(), w(), s, 1e-6, None, None)
            return out, s

        for quant_dtype in (fp8, torch.int8):
            case(f"rms_norm_dynamic_per_token_quant/{tag}-{quant_dtype}", lambda: rms_dynamic(quant_dtype))
        case(f"silu_and_mul_quant/{tag}", lambda: into(C.silu_and_mul_quant, (n, d), fp8,
                                                       torch.randn(n, 2 * d, device=dev, dtype=dtype), scale()))

# Mixture of experts, as vLLM's fused_moe calls them: routing, aligning tokens to blocks, summing the top k.
M = torch.ops._moe_C
for tokens, experts, topk in ((1, 8, 2), (77, 64, 6), (512, 256, 8)):
    tag = f"{tokens}x{experts}-top{topk}"
    for renormalize in (False, True):

        def route():
            weights = torch.empty(tokens, topk, device=dev)
            ids = torch.empty(tokens, topk, device=dev, dtype=torch.int32)
            token_expert = torch.empty(tokens, topk, device=dev, dtype=torch.int32)
            M.topk_softmax(weights, ids, token_expert, torch.randn(tokens, experts, device=dev), renormalize, None)
            return weights, ids, token_expert

        case(f"topk_softmax/{tag}-{renormalize}", route)
    for block in (16, 64):

        def align():
            ids = torch.stack([torch.randperm(experts, device=dev)[:topk] for _ in range(tokens)]).to(torch.int32)
            padded = ids.numel() + experts * (block - 1)
            sorted_ids = torch.empty(padded, device=dev, dtype=torch.int32)
            expert_ids = torch.empty((padded + block - 1) // block, device=dev, dtype=torch.int32)
            post_pad = torch.empty(1, device=dev, dtype=torch.int32)
            M.moe_align_block_size(ids, experts, block, sorted_ids, expert_ids, post_pad, None)
            # Only the first post_pad entries are defined.
            return sorted_ids[:post_pad.item()], expert_ids[:(post_pad.item() + block - 1) // block], post_pad

        case(f"moe_align_block_size/{tag}-{block}", align)
    for dtype in (torch.float16, torch.bfloat16):
        case(f"moe_sum/{tag}-{dtype}", lambda: into(M.moe_sum, (tokens, 1024), dtype,
                                                    torch.randn(tokens, topk, 1024, device=dev, dtype=dtype)))
    if experts % 8 == 0:
        case(f"grouped_topk/{tag}", lambda: M.grouped_topk(torch.rand(tokens, experts, device=dev), 8, 4, topk, True,
                                                           2.5, torch.randn(experts, device=dev), 1))

# Paged attention (v1, and v2 with its partitions), as tests/kernels/attention/test_attention.py lays out
# the cache: keys [blocks, kv_heads, head_size / x, block, x] with x 16 bytes of elements.
for dtype in (torch.float16, torch.bfloat16):
    for seqs, heads, kv_heads, size, block, longest in ((3, 8, 8, 128, 16, 100), (5, 16, 4, 64, 32, 1300)):
        tag = f"{dtype}-{seqs}x{heads}/{kv_heads}x{size}-{block}-{longest}"
        x = 16 // torch.tensor([], dtype=dtype).element_size()
        blocks_per_seq = (longest + block - 1) // block
        num_blocks = seqs * blocks_per_seq + 3

        def paged(version):
            query = torch.randn(seqs, heads, size, device=dev, dtype=dtype)
            key_cache = torch.randn(num_blocks, kv_heads, size // x, block, x, device=dev, dtype=dtype)
            value_cache = torch.randn(num_blocks, kv_heads, size, block, device=dev, dtype=dtype)
            tables = torch.randperm(num_blocks, device=dev, dtype=torch.int32)[:seqs * blocks_per_seq]
            lens = torch.randint(1, longest + 1, (seqs,), device=dev, dtype=torch.int32)
            lens[0] = longest
            one = torch.ones((), device=dev)
            tail = (tables.view(seqs, -1), lens, block, longest, None, "auto", one, one, 0, 0, 0, 64, 0)
            out = torch.empty_like(query)
            if version == 1:
                C.paged_attention_v1(out, query, key_cache, value_cache, kv_heads, size ** -0.5, *tail)
                return out
            partitions = (longest + 511) // 512
            exp_sums = torch.empty(seqs, heads, partitions, device=dev)
            max_logits, tmp = torch.empty_like(exp_sums), torch.empty(seqs, heads, partitions, size, device=dev,
                                                                       dtype=dtype)
            C.paged_attention_v2(out, exp_sums, max_logits, tmp, query, key_cache, value_cache, kv_heads,
                                 size ** -0.5, *tail)
            return out

        for version in (1, 2):
            case(f"paged_attention_v{version}/{tag}", lambda: paged(version))

        def merge():
            tokens = 19
            prefix, suffix = (torch.randn(tokens, heads, size, device=dev, dtype=dtype) for _ in range(2))
            prefix_lse, suffix_lse = (torch.randn(heads, tokens, device=dev) for _ in range(2))
            out, out_lse = torch.empty_like(prefix), torch.empty(heads, tokens, device=dev)
            C.merge_attn_states(out, out_lse, prefix, prefix_lse, suffix, suffix_lse, None, None)
            return out, out_lse

        case(f"merge_attn_states/{tag}", merge)
        case(f"hadacore_transform/{tag}", lambda: C.hadacore_transform(
            torch.randn(seqs * heads, size, device=dev, dtype=dtype), False))
if torch.cuda.is_available():  # its kernel exits the process on a CUDA error, which no case can record
    case("get_device_attribute", lambda: torch.tensor(
        [torch.ops._C_cuda_utils.get_device_attribute(attribute, 0) for attribute in (1, 16, 75)]))
torch.save(dict(results), out)  # a plain dict: torch.load reads it with weights_only
raised = [name for name, value in results.items() if isinstance(value, str)]
print(f"{side}: {len(results)} cases, {len(raised)} raised", *raised[:5])
