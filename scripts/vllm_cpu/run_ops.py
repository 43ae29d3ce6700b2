"""Calls the ops of vLLM's x86 CPU extension (its AVX2 or AVX-512 build) on seeded inputs on one side (vLLM's own build, or the
package opgen generated from the same kernels) and saves every output; run once per side, in separate
processes, then compare the two files bit for bit with scripts/vllm_subset/compare.py. Inputs follow vLLM's own
tests of these kernels (tests/kernels/...: test_cpu_attn, test_mla_decode_cpu, test_cpu_gdn_ops, test_onednn,
test_cpu_int4_moe). An op that raises is saved as its error, so one wrong call costs its case, not the run.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "project":
    torch.ops.load_library(f"{out_dir}/build-project/_C.so")
else:
    sys.path.insert(0, f"{out_dir}/build-imported/python")
    import _C  # noqa: F401  - the generated package loads its library
C = torch.ops._C
torch.set_num_threads(2)  # the kernels' OpenMP loops split work alike on both sides
case = results = Cases()


def into(op, shape, dtype, *inputs):
    o = torch.empty(shape, dtype=dtype)
    op(o, *inputs)
    return o


FLOATS = (torch.float32, torch.float16, torch.bfloat16)

# Activations and norms.
for dtype in FLOATS:
    for n, d in ((1, 128), (7, 1000), (33, 4096)):
        tag = f"{dtype}-{n}x{d}"
        for op in ("silu_and_mul", "gelu_and_mul", "gelu_tanh_and_mul"):
            case(f"{op}/{tag}", lambda: into(getattr(C, op), (n, d), dtype, torch.randn(n, 2 * d, dtype=dtype)))
        for op in ("gelu_new", "gelu_fast", "gelu_quick"):
            case(f"{op}/{tag}", lambda: into(getattr(C, op), (n, d), dtype, torch.randn(n, d, dtype=dtype)))
        for weighted in (True, False):
            w = lambda: torch.randn(d, dtype=dtype) if weighted else None  # noqa: E731
            case(f"rms_norm/{tag}-{weighted}", lambda: into(C.rms_norm, (n, d), dtype, torch.randn(n, d, dtype=dtype),
                                                            w(), 1e-6))

            def fused_add():
                x, residual = torch.randn(n, d, dtype=dtype), torch.randn(n, d, dtype=dtype)
                C.fused_add_rms_norm(x, residual, w(), 1e-5)
                return x, residual

            case(f"fused_add_rms_norm/{tag}-{weighted}", fused_add)

    # Rotary embedding: neox and GPT-J layouts, partial rotary, the inverse, a query alone.
    for neox in (True, False):
        # The offset and the inverse, which vLLM's CPU kernel refuses, once each.
        for rot, offset, inverse, with_key in ((128, 0, False, True), (64, 0, False, True), (128, 0, False, False)) + (
                ((64, 32, False, True), (128, 0, True, True)) if dtype == torch.float32 and neox else ()):

            def rotary():
                heads, kv_heads, size, tokens = 8, 2, 128, 37
                cache = torch.randn(4096, rot, dtype=dtype)
                pos = torch.randint(0, 4096, (tokens,))
                q = torch.randn(tokens, heads * size, dtype=dtype)
                k = torch.randn(tokens, kv_heads * size, dtype=dtype) if with_key else None
                C.rotary_embedding(pos, q, k, size, cache, neox, offset, inverse)
                return (q, k) if with_key else q

            case(f"rotary_embedding/{dtype}-{neox}-{rot}-{offset}-{inverse}-{with_key}", rotary)

# int8 quantization (static per tensor, dynamic per token; symmetric and with zero points).
for dtype in FLOATS:
    for n, d in ((1, 64), (9, 1000), (64, 4096)):
        x = lambda: torch.randn(n, d, dtype=dtype) * 4  # noqa: E731
        case(f"static_scaled_int8_quant/{dtype}-{n}x{d}",
             lambda: into(C.static_scaled_int8_quant, (n, d), torch.int8, x(), torch.tensor([0.05]), None))
        case(f"static_scaled_int8_quant/{dtype}-{n}x{d}-azp",
             lambda: into(C.static_scaled_int8_quant, (n, d), torch.int8, x(), torch.tensor([0.05]),
                          torch.tensor([3], dtype=torch.int32)))
        for symmetric in (True, False):

            def dynamic():
                o, scale = torch.empty(n, d, dtype=torch.int8), torch.empty(n, 1)
                azp = None if symmetric else torch.empty(n, 1, dtype=torch.int32)
                C.dynamic_scaled_int8_quant(o, x(), scale, azp)
                return (o, scale) if symmetric else (o, scale, azp)

            case(f"dynamic_scaled_int8_quant/{dtype}-{n}x{d}-{symmetric}", dynamic)

# oneDNN GEMMs through their handlers (a pointer each process makes for itself).
for dtype in (torch.float32, torch.bfloat16):
    for m, n, k in ((1, 64, 128), (17, 256, 512), (64, 512, 1024)):
        for bias in (True, False):

            def mm():
                b = torch.rand(n, k, dtype=dtype) * 1.5
                handler = torch.tensor(C.create_onednn_mm_handler(b.t(), 128), dtype=torch.int64)
                a = torch.rand(m, k, dtype=dtype) * 1.5
                o = torch.empty(m, n, dtype=dtype)
                C.onednn_mm(o, a, torch.rand(n, dtype=dtype) * 5 if bias else None, handler)
                C.release_dnnl_matmul_handler(handler.item())
                return o

            case(f"onednn_mm/{dtype}-{m}x{n}x{k}-{bias}", mm)
for out_dtype in (torch.float32, torch.bfloat16):
    for m, n, k in ((1, 64, 128), (33, 256, 512)):
        for per_tensor_a, per_tensor_b, use_azp in ((True, True, False), (False, False, False), (True, False, True),
                                                    (False, True, True)):

            def scaled_mm():
                a = (torch.randn(m, k) * 5).clamp(-128, 127).round().to(torch.int8)
                b = (torch.randn(n, k) * 5).clamp(-128, 127).round().to(torch.int8).t()
                scale_a = torch.randn((1, 1) if per_tensor_a else (m, 1))
                scale_b = torch.randn((1, 1) if per_tensor_b else (1, n))
                azp = azp_adj = None
                if use_azp:
                    azp = ((torch.rand(scale_a.shape) * 10 + 1.5) / scale_a).round().to(torch.int32)
                    azp_adj = scale_b * b.sum(dim=0, keepdim=True, dtype=torch.float32)
                # Per-token activation scales come with dynamic quantization, as vLLM's callers pass them.
                handler = torch.tensor(C.create_onednn_scaled_mm_handler(b, scale_b, out_dtype, not per_tensor_a,
                                                                         use_azp, 128),
                                       dtype=torch.int64)
                o = torch.zeros(m, n, dtype=out_dtype)
                C.onednn_scaled_mm(o, a, scale_a, azp, azp_adj, torch.rand(n, dtype=out_dtype) * 10, handler)
                C.release_dnnl_matmul_handler(handler.item())
                return o

            case(f"onednn_scaled_mm/{out_dtype}-{m}x{n}x{k}-{per_tensor_a}-{per_tensor_b}-{use_azp}", scaled_mm)
case("is_onednn_acl_supported", lambda: C.is_onednn_acl_supported())

# CPU attention: the KV cache packed by reshape_and_cache, the scheduler's metadata, then attention over
# decode, prefill and mixed batches, causal or not, with a sliding window, a soft cap, ALiBi, sinks.
# vec and vec16 are x86's without AMX (vLLM's _get_attn_isa); cpu_attn_has_isa answers for RISC-V's rvv only.
ISAS = ("vec", "vec16")
results["cpu_attn_has_isa"] = tuple(torch.tensor(C.cpu_attn_has_isa(isa)) for isa in ("vec", "vec16", "amx", "rvv"))
SEQS = {"decode": [(1, 213), (1, 1), (1, 312), (1, 7)], "prefill": [(45, 45), (5, 5), (3, 16), (34, 131)],
        "mixed": [(92, 256), (1, 123), (9, 114), (1, 416)]}
for isa in ISAS:
    for dtype in FLOATS:
        for seqs_name, seqs in SEQS.items():
            for (heads, kv_heads), head_size, window, softcap, alibi, sink, split in (
                    ((4, 4), 128, None, None, False, False, False), ((8, 2), 128, None, None, False, False, True),
                    ((9, 3), 96, 64, None, False, False, False), ((4, 4), 128, None, 30.0, True, False, False),
                    ((8, 2), 64, None, None, False, True, True)):
                if head_size % (32 if isa == "vec" else 16):
                    continue

                def attention():
                    block_size, blocks = 32, 64
                    q_lens, kv_lens = [q for q, _ in seqs], [kv for _, kv in seqs]
                    query = torch.randn(sum(q_lens), heads, head_size, dtype=dtype)
                    key_value = torch.randn(2, blocks, block_size, kv_heads, head_size, dtype=dtype)
                    packed = torch.empty(blocks, kv_heads, block_size, head_size * 2, dtype=dtype)
                    packed = packed.view(blocks, kv_heads, block_size * 2, -1)
                    key_cache, value_cache = packed.chunk(2, dim=2)
                    C.cpu_attn_reshape_and_cache(key_value[0].view(-1, kv_heads, head_size),
                                                 key_value[1].view(-1, kv_heads, head_size), key_cache, value_cache,
                                                 torch.arange(0, blocks * block_size, dtype=torch.int64), isa)
                    cu_q = torch.tensor([0] + q_lens, dtype=torch.int32).cumsum(dim=0, dtype=torch.int32)
                    kv = torch.tensor(kv_lens, dtype=torch.int32)
                    tables = torch.randint(0, blocks, (len(seqs), (max(kv_lens) + block_size - 1) // block_size),
                                           dtype=torch.int32)
                    w = window if window is not None else -1
                    metadata = C.get_scheduler_metadata(len(seqs), heads, kv_heads, head_size, kv, dtype, cu_q, True,
                                                        w, isa, split, None)
                    slopes = torch.rand(heads) if alibi else None
                    s_aux = 15 * torch.rand(heads, dtype=torch.bfloat16) if sink else None
                    o = torch.empty_like(query)
                    C.cpu_attention_with_kv_cache(query, key_cache, value_cache, o, cu_q, kv, head_size**-0.5, True,
                                                  slopes, w, tables, softcap or 0.0, metadata, s_aux, None)
                    # The scheduler's metadata is a struct's bytes whose padding differs from run to run in vLLM's
                    # own build too: what it decides is in the output.
                    return o, key_cache.contiguous(), value_cache.contiguous()

                case(f"cpu_attention_with_kv_cache/{isa}-{dtype}-{seqs_name}-{heads}x{kv_heads}-{head_size}-{window}-{softcap}-"
                     f"{alibi}-{sink}-{split}", attention)

# MLA decode over a paged cache.
for dtype in FLOATS:
    for varlen in (False, True):

        def mla():
            bs, h_q, d, dv, block_size, mean = 4, 16, 576, 512, 16, 64
            if varlen:
                seq_lens = torch.empty(bs).normal_(mean, mean / 2).clip(2).to(torch.int32)
            else:
                seq_lens = torch.full((bs,), mean, dtype=torch.int32)
            pad = (int(seq_lens.max()) + 255) // 256 * 256
            q = torch.randn(bs, h_q, d, dtype=dtype)
            table = torch.arange(bs * pad // block_size, dtype=torch.int32).view(bs, pad // block_size)
            cache = torch.randn(table.numel(), block_size, d, dtype=dtype)
            o = torch.zeros(bs, h_q, dv, dtype=dtype)
            C.mla_decode_kvcache(o, q, cache, d**-0.5, table, seq_lens)
            return o

        case(f"mla_decode_kvcache/{dtype}-{varlen}", mla)

# Gated delta rule (the sgl-kernels' fla.cpp): gating, the decode update, the chunked prefill.
for (qk_heads, v_heads), (head_dim, v_head_dim) in (((2, 4), (32, 32)), ((4, 4), (64, 32))):
    def gdn_inputs(tokens):
        q = torch.rand(1, tokens, qk_heads, head_dim, dtype=torch.bfloat16)
        k = torch.rand(1, tokens, qk_heads, head_dim, dtype=torch.bfloat16)
        v = torch.rand(1, tokens, v_heads, v_head_dim, dtype=torch.bfloat16)
        a, b = torch.rand(tokens, v_heads, dtype=torch.bfloat16), torch.rand(tokens, v_heads, dtype=torch.bfloat16)
        return q, k, v, a, b, torch.rand(v_heads), torch.rand(v_heads, dtype=torch.bfloat16)

    tag = f"{qk_heads}x{v_heads}-{head_dim}x{v_head_dim}"
    for tokens in (1, 9):
        case(f"fused_gdn_gating_cpu/{tag}-{tokens}",
             lambda: C.fused_gdn_gating_cpu(*(lambda q, k, v, a, b, A, dt: (A, a, b, dt))(*gdn_inputs(tokens))))
    for batch in (1, 3, 5):

        def decode():
            q, k, v, a, b, A_log, dt_bias = gdn_inputs(batch)
            state = torch.rand(batch, v_heads, head_dim, v_head_dim)
            o = C.fused_sigmoid_gating_delta_rule_update_cpu(
                A_log, dt_bias, q, k, v, a, b, state, torch.arange(batch, dtype=torch.int32),
                torch.arange(batch + 1, dtype=torch.int32), True)
            return o, state

        case(f"fused_sigmoid_gating_delta_rule_update_cpu/{tag}-{batch}", decode)
    for seq_lens in ([1], [1, 2, 3], [63, 64, 65], [4 * 64 + 17]):

        def prefill():
            q, k, v, a, b, A_log, dt_bias = gdn_inputs(sum(seq_lens))
            g = -A_log.exp() * torch.nn.functional.softplus(a.float() + dt_bias.float())
            beta = torch.sigmoid(b.float()).to(b.dtype)
            cu = torch.tensor([0, *torch.tensor(seq_lens).cumsum(0).tolist()], dtype=torch.int32)
            state = torch.rand(len(seq_lens), v_heads, head_dim, v_head_dim)
            return C.chunk_gated_delta_rule_cpu(q, k, v, g.unsqueeze(0), beta.unsqueeze(0), state, True, cu, False,
                                                True)

        case(f"chunk_gated_delta_rule_cpu/{tag}-{seq_lens}", prefill)

# The speculative-decoding and scheduling helpers (integer kernels).
for reqs in (1, 4, 9):
    def drafts():
        counts = torch.randint(0, 4, (reqs,))
        return counts, torch.cumsum(counts, 0)

    def prepare_inputs():
        counts, cu = drafts()
        valid = torch.minimum(torch.randint(1, 5, (reqs,)), counts + 1)
        q_loc = torch.cat([torch.zeros(1, dtype=torch.int32),
                           torch.cumsum(counts + 1, 0).to(torch.int32)])
        indices, rejected = torch.full((reqs,), -7, dtype=torch.int32), torch.full((reqs,), -7)
        C.eagle_prepare_inputs_padded_kernel_impl(cu, valid, q_loc, indices, rejected, reqs)
        return indices, rejected

    case(f"eagle_prepare_inputs_padded_kernel_impl/{reqs}", prepare_inputs)

    def next_token():
        per_req, vocab = 4, 1000
        sampled = torch.randint(-1, vocab + 50, (reqs, per_req))
        discard = torch.rand(reqs) < 0.3
        nxt, valid = torch.full((reqs,), -7), torch.full((reqs,), -7)
        C.eagle_prepare_next_token_padded_kernel_impl(sampled, discard, torch.randint(0, vocab, (reqs,)), nxt, valid,
                                                       vocab, per_req, reqs)
        return nxt, valid

    case(f"eagle_prepare_next_token_padded_kernel_impl/{reqs}", next_token)

    def step_slot_mapping():
        block_size, max_len, blocks_per_req = 16, 100, 8
        positions = torch.randint(0, max_len + 2, (reqs,))
        table = torch.randint(0, 500, (reqs + 2, blocks_per_req), dtype=torch.int32)
        seq_lens = torch.randint(1, max_len, (reqs + 2,), dtype=torch.int32)
        clamped, slots = torch.full((reqs + 2,), -7), torch.full((reqs + 2,), -7)
        C.eagle_step_slot_mapping_metadata_kernel_impl(positions, table, seq_lens, clamped, slots, block_size,
                                                        max_len, -1)
        return seq_lens, clamped, slots

    case(f"eagle_step_slot_mapping_metadata_kernel_impl/{reqs}", step_slot_mapping)

    for shift in (True, False):
        def expand_inputs():
            q_lens = torch.randint(1, 6, (reqs,))
            q_start = torch.cat([torch.zeros(1, dtype=torch.int32), torch.cumsum(q_lens, 0).to(torch.int32)])
            total, padding = int(q_lens.sum()), 2
            out_len = total + padding * reqs
            ids, pos = torch.randint(0, 1000, (total,)), torch.randint(0, 4096, (total,))
            outs = (torch.full((out_len,), -7), torch.full((out_len,), -7), torch.zeros(out_len, dtype=torch.bool),
                    torch.zeros(out_len, dtype=torch.bool), torch.full((reqs * padding,), -7, dtype=torch.int32),
                    torch.full((total,), -7, dtype=torch.int32))
            C.copy_and_expand_eagle_inputs_kernel_impl(ids, pos, torch.randint(0, 1000, (reqs,)), *outs, q_start[:-1],
                                                       q_start[1:] - 1, 0, 999, total, padding, shift)
            return outs

        case(f"copy_and_expand_eagle_inputs_kernel_impl/{reqs}-{shift}", expand_inputs)

    max_spec, vocab = 3, 64

    def rejection_inputs():
        counts = torch.randint(0, max_spec + 1, (reqs,))
        cu, tokens = torch.cumsum(counts, 0), int(counts.sum())
        return cu, tokens, torch.randint(0, vocab, (tokens,), dtype=torch.int64)

    for greedy in (None, "mixed"):
        def greedy_sample():
            cu, tokens, draft = rejection_inputs()
            out = torch.full((reqs, max_spec + 1), -1, dtype=torch.int64)
            is_greedy = None if greedy is None else torch.rand(reqs) < 0.5
            C.rejection_greedy_sample_kernel_impl(out, cu, draft, torch.randint(0, vocab, (tokens,), dtype=torch.int64),
                                                  torch.randint(0, vocab, (reqs,), dtype=torch.int64), is_greedy,
                                                  max_spec)
            return out

        case(f"rejection_greedy_sample_kernel_impl/{reqs}-{greedy}", greedy_sample)
    for no_draft_probs in (False, True):
        def random_sample():
            cu, tokens, draft = rejection_inputs()
            out = torch.full((reqs, max_spec + 1), -1, dtype=torch.int64)
            draft_probs = None if no_draft_probs else torch.softmax(torch.randn(tokens, vocab), -1)
            C.rejection_random_sample_kernel_impl(
                out, cu, draft, draft_probs, torch.softmax(torch.randn(tokens, vocab), -1),
                torch.randint(0, vocab, (reqs,), dtype=torch.int64), torch.randint(0, vocab, (tokens,), dtype=torch.int64),
                torch.rand(tokens), torch.rand(reqs) < 0.3, max_spec, vocab, no_draft_probs)
            return out

        case(f"rejection_random_sample_kernel_impl/{reqs}-{no_draft_probs}", random_sample)

        def recovered():
            cu, tokens, draft = rejection_inputs()
            out = torch.full((tokens,), -1, dtype=torch.int64)
            draft_probs = None if no_draft_probs else torch.softmax(torch.randn(tokens, vocab), -1)
            C.sample_recovered_tokens_kernel_impl(out, cu, draft, draft_probs,
                                                  torch.softmax(torch.randn(tokens, vocab), -1),
                                                  torch.rand(reqs, vocab) + 0.1, vocab, no_draft_probs)
            return out

        case(f"sample_recovered_tokens_kernel_impl/{reqs}-{no_draft_probs}", recovered)

    def expand():
        counts = torch.randint(1, 5, (reqs,))
        cu = torch.cumsum(counts, 0)
        out = torch.full((int(counts.sum()),), -7, dtype=torch.int64)
        C.expand_kernel_impl(out, torch.randint(-1, 10, (reqs,), dtype=torch.int64), cu, -1, 0)
        return out

    case(f"expand_kernel_impl/{reqs}", expand)

    def slot_mapping():
        block_size = 16
        q_lens = torch.randint(1, 20, (reqs,))
        q_start = torch.cat([torch.zeros(1, dtype=torch.int32), torch.cumsum(q_lens, 0).to(torch.int32)])
        positions = torch.cat([torch.arange(int(n)) + int(s) for n, s in zip(q_lens, torch.randint(0, 40, (reqs,)))])
        table = torch.randint(0, 500, (reqs, 8), dtype=torch.int32)
        slots = torch.full((int(q_lens.sum()),), -7)
        C.compute_slot_mapping_kernel_impl(q_start, positions, table, slots, block_size)
        return slots

    case(f"compute_slot_mapping_kernel_impl/{reqs}", slot_mapping)

# The int4 MoE (KleidiAI-packed weights, as vLLM's test packs them) and the placeholders.
for group_size in (-1, 32):
    def int4_moe():
        E, N, K, tokens, topk = 4, 64, 128, 5, 2
        scale_dtype = torch.float32 if group_size == -1 else torch.bfloat16
        cols = lambda n: 1 if group_size == -1 else n // group_size  # noqa: E731

        def pack(w, scales, in_features):
            uint4 = (w.to(torch.int16) + 8).to(torch.uint8)
            packed = (uint4[:, 1::2] << 4 | uint4[:, ::2]).contiguous()
            return torch.ops.aten._dyn_quant_pack_4bit_weight(packed, scales, None, in_features if group_size == -1
                                                              else group_size, in_features, w.shape[0])

        w13 = torch.stack([pack(torch.randint(-8, 8, (2 * N, K), dtype=torch.int8),
                                torch.rand(2 * N, cols(K), dtype=scale_dtype) * 0.01, K) for _ in range(E)])
        w2 = torch.stack([pack(torch.randint(-8, 8, (K, N), dtype=torch.int8),
                               torch.rand(K, cols(N), dtype=scale_dtype) * 0.01, N) for _ in range(E)])
        x = torch.randn(tokens, K)
        ids = torch.stack([torch.randperm(E)[:topk] for _ in range(tokens)])
        return C.dynamic_4bit_int_moe(x, ids, torch.rand(tokens, topk), w13, w2, K, N, 2 * N, group_size, False, 0)

    case(f"dynamic_4bit_int_moe/{group_size}", int4_moe)
# The AVX-512 build's fused MoE (vLLM's test_cpu_fused_moe): weights packed by prepack_moe_weight, bfloat16.
if hasattr(C, "cpu_fused_moe"):
    for batch, hidden, inter in ((1, 128, 128), (64, 128, 256), (9, 256, 128)):
        for act in ("silu", "swigluoai", "gelu", "gelu_tanh"):
            for use_bias in (True, False):
                def moe():
                    experts, topk = 8, 4
                    x = torch.randn(batch, hidden, dtype=torch.bfloat16) / (0.5 * hidden**0.5)
                    w13 = torch.randn(experts, 2 * inter, hidden, dtype=torch.bfloat16) / (0.5 * hidden**0.5)
                    w2 = torch.randn(experts, hidden, inter, dtype=torch.bfloat16) / (0.5 * inter**0.5)
                    b13 = torch.randn(experts, 2 * inter, dtype=torch.bfloat16) / (2 * inter)**0.5 if use_bias else None
                    b2 = torch.randn(experts, hidden, dtype=torch.bfloat16) / hidden**0.5 if use_bias else None
                    weights, ids = torch.topk(torch.softmax(torch.randn(batch, experts), -1), topk)
                    packed13, packed2 = torch.empty_like(w13), torch.empty_like(w2)
                    C.prepack_moe_weight(w13, packed13, "vec")
                    C.prepack_moe_weight(w2, packed2, "vec")
                    o = torch.empty_like(x)
                    C.cpu_fused_moe(o, x, packed13, packed2, b13, b2, weights, ids.to(torch.int32), False, act, "vec")
                    return o, packed13, packed2

                case(f"cpu_fused_moe/{batch}x{hidden}x{inter}-{act}-{use_bias}", moe)
case("init_cpu_memory_env", lambda: C.init_cpu_memory_env([0]))  # binds this process's memory to node 0
for op in ("static_scaled_fp8_quant", "dynamic_scaled_fp8_quant", "dynamic_per_token_scaled_fp8_quant"):
    case(op, lambda: getattr(C, op)())

torch.save(dict(results), out)  # a plain dict: torch.load reads it with weights_only
raised = sum(isinstance(v, str) for v in results.values())
print(f"{side}: {len(results)} cases, {raised} raised; ops called: "
      f"{len({name.split('/')[0] for name in results})}")
