"""Calls torchao's CPU ops on seeded inputs on one side (torchao's own ops.py and library, or the package opgen
generated, with the same kernels) and saves every output; then opcheck and torch.compile(fullgraph=True) on each
op, one JSON line per op. Run once per side, in separate processes (both register torchao::), then compare the
two files bit for bit with scripts/vllm_subset/compare.py. Inputs follow torchao's own tests of these kernels
(test/test_ops.py, test/prototype/test_da8w4_cpu.py), quantized here with plain torch: per-tensor, per-row and
per-group scales, symmetric and asymmetric activations, float and 8-bit outputs, with and without bias.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "project":
    sys.path.insert(0, f"{out_dir}/project")
    import torchao.ops  # noqa: F401  - the defs and fakes, as torchao's package registers them
    torch.ops.load_library(f"{out_dir}/build-project/_C.so")
else:
    sys.path[:0] = [f"{out_dir}/build-imported/python", f"{out_dir}/imported"]
    import torchao_ops  # noqa: F401  - defines the ops, registers the fakes, loads the library (the kernels' impls)
    import torchao.ops  # noqa: F401  - what is left of torchao's: its Python wrappers
A = torch.ops.torchao
torch.set_num_threads(2)  # the kernels' OpenMP loops split work alike on both sides
case = Cases()
FP8 = torch.float8_e4m3fn


def fp8_scale(t, rows, cols):
    """The float8 scale of each rows x cols block of t (2-D), as torchao's _choose_scale_float8 makes it."""
    blocks = t.reshape(t.shape[0] // rows, rows, t.shape[1] // cols, cols).abs().amax(dim=(1, 3))
    return (blocks / torch.finfo(FP8).max).clamp(min=1e-12).float()


def to_fp8(t, scale):
    rows, cols = t.shape[0] // scale.shape[0], t.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(rows, 0).repeat_interleave(cols, 1)
    return (t / s).clamp(-448, 448).to(FP8)


# _scaled_embedding_bag: int8 and float8 weights, float and 8-bit outputs, sum over bags of 1-10 rows.
for qtype, outs in ((torch.int8, (torch.float, torch.int8)), (FP8, (torch.float, FP8))):
    for out_dtype in outs:
        for multi_hot in (1, 3, 10):
            for batch in (1, 128):
                for vector in (1, 128, 512):
                    for index in (torch.int64, torch.int32):
                        def bag():
                            indices = torch.randint(1000, (batch * multi_hot,)).to(index)
                            offsets = torch.arange(0, (batch + 1) * multi_hot, multi_hot).to(index)
                            w = torch.randn(1000, vector)
                            scale = 127.0 / w.abs().max() if qtype == torch.int8 else torch.tensor([2.0])
                            qweight = (w * scale).to(qtype) if qtype == torch.int8 else w.to(qtype)
                            o_scale = 1.0 if out_dtype == torch.float else 2.0
                            return A._scaled_embedding_bag(qweight, indices, offsets, scale, o_scale, 0, True,
                                                           out_dtype)
                        case(f"_scaled_embedding_bag/{qtype}-{out_dtype}-{multi_hot}x{batch}x{vector}-{index}", bag)

# float8_linear_prepack_cpu and float8_linear_cpu: per-tensor, per-row and per-group (128) scales.
GRANULARITY = {"tensor": lambda t: (t.shape[0], t.shape[1]), "row": lambda t: (1, t.shape[1]),
               "group": lambda t: (1, 128)}
for n, k in ((64, 64), (256, 256), (48, 64)):  # 48 rows: N % 32 != 0, the kernel's fallback
    for bs in (1, 160):
        for out_dtype in (torch.float, torch.bfloat16, torch.half):
            for bias in (True, False):
                for xg, wg in (("tensor", "tensor"), ("tensor", "row"), ("row", "tensor"), ("row", "row"),
                               ("group", "group"), ("row", "group")):
                    if "group" in (xg, wg) and (k <= 128 or n % 32):
                        continue

                    def f8():
                        x, w = torch.randn(bs, k), torch.randn(n, k) / k ** 0.5
                        b = torch.randn(n) if bias else None
                        xs, ws = fp8_scale(x, *GRANULARITY[xg](x)), fp8_scale(w, *GRANULARITY[wg](w))
                        packed_w, packed_s = A.float8_linear_prepack_cpu(to_fp8(w, ws), ws)
                        y = A.float8_linear_cpu(to_fp8(x, xs), xs, packed_w, packed_s, b, out_dtype)
                        return packed_w, packed_s, y
                    case(f"float8_linear/{n}x{k}-{bs}-{out_dtype}-{bias}-{xg}-{wg}", f8)


# da8w4_linear_prepack_cpu and da8w4_linear_cpu: int4 weights (uint8 values 0-15) with per-group zero points,
# activations per-token, asymmetric uint8 or symmetric int8.
def da8w4_inputs(n, k, group, bs, sym):
    weight = torch.randint(0, 16, (n, k), dtype=torch.uint8)
    scales, qzeros = torch.rand(n, k // group) / 8 + 0.01, torch.randint(0, 16, (n, k // group), dtype=torch.int8)
    if sym:
        act, zeros = torch.randint(-127, 128, (bs, k), dtype=torch.int8), torch.zeros(bs, dtype=torch.int32)
    else:
        act, zeros = torch.randint(0, 256, (bs, k), dtype=torch.uint8), torch.randint(100, 156, (bs,), dtype=torch.int32)
    return weight, scales, qzeros, act, torch.rand(bs) / 16 + 0.001, zeros


for n, k in ((64, 128), (96, 256)):
    for group in (32, 64, 128):
        for bs in (1, 160):
            for sym in (True, False):
                for out_dtype in (torch.float, torch.bfloat16, torch.half):
                    for bias in (True, False):
                        def da8w4():
                            weight, scales, qzeros, act, act_scales, act_zeros = da8w4_inputs(n, k, group, bs, sym)
                            packed = A.da8w4_linear_prepack_cpu(weight, scales, qzeros)
                            b = torch.randn(n) if bias else None
                            y = A.da8w4_linear_cpu(act, act_scales, act_zeros, packed[0], packed[1], packed[2],
                                                   packed[3], b, out_dtype)
                            return (*packed, y)
                        case(f"da8w4_linear/{n}x{k}-g{group}-{bs}-{'sym' if sym else 'asym'}-{out_dtype}-{bias}",
                             da8w4)

# qscaled_dot_product: uint8 with zero points and float8, masks of none, float32 and bfloat16, strided q/k/v.
U8 = dict(q_scale=1.7907238006591797, k_scale=1.8039721250534058, v_scale=1.839004635810852,
          a_scale=0.003919653594493866, o_scale=1.8191684484481812, q_zp=127, k_zp=125, v_zp=127, a_zp=120, o_zp=128)
F8 = dict(q_scale=5.96875, k_scale=5.78125, v_scale=0.98046875, a_scale=4.84375, o_scale=3.171875)
for dtype, scales in ((torch.uint8, U8), (FP8, F8)):
    for q_len, kv_len in ((18, 100), (89, 253)):
        for head_dim in (32, 64):
            for mask in (None, torch.float32, torch.bfloat16):
                def sdpa():
                    batch, heads = 3, 2
                    q = torch.randn(batch, q_len, heads, head_dim).transpose(1, 2)
                    k, v = (torch.randn(batch, kv_len, heads, head_dim).transpose(1, 2) for _ in range(2))
                    q, k, v = ((t * 100 if dtype == torch.uint8 else t).to(dtype) for t in (q, k, v))
                    m = torch.randn(batch, 1, 1, kv_len, dtype=mask) if mask else None
                    return A.qscaled_dot_product(q, k, v, attn_mask=m, dropout_p=0.0, is_causal=False, **scales)
                case(f"qscaled_dot_product/{dtype}-{q_len}x{kv_len}-{head_dim}-{mask}", sdpa)

    def strided():
        hidden = 16 * 32
        qkv = torch.randn(4, 100, 3 * hidden)
        q, k, v = (t.view(4, 100, 16, 32).transpose(1, 2) for t in torch.split(qkv, hidden, dim=-1))
        q, k, v = ((t * 100 if dtype == torch.uint8 else t).to(dtype) for t in (q, k, v))
        return A.qscaled_dot_product(q, k, v, **scales)
    case(f"qscaled_dot_product/{dtype}-strided", strided)

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

# opcheck and torch.compile(fullgraph=True), one input each: the fakes the side registers, against its kernels.
torch.manual_seed(0)
w4, s4, z4, act, act_s, act_z = da8w4_inputs(64, 128, 32, 5, False)
packed4 = A.da8w4_linear_prepack_cpu(w4, s4, z4)
x8, w8 = torch.randn(5, 256), torch.randn(256, 256) / 16
xs8, ws8 = fp8_scale(x8, 1, 256), fp8_scale(w8, 1, 256)
packed8 = A.float8_linear_prepack_cpu(to_fp8(w8, ws8), ws8)
q, k, v = (torch.randn(2, 2, n, 32).mul(100).to(torch.uint8) for n in (18, 100, 100))
CHECKS = {
    # int8 weights: opcheck's schema test cannot take float8 tensors (torch 2.11's SchemaCheckMode fails on
    # aten.clone of one: "mul_cpu_reduced_float" not implemented for 'Float8_e4m3fn'), which float8_linear's are.
    "_scaled_embedding_bag": (torch.randint(-127, 128, (100, 128), dtype=torch.int8), torch.randint(100, (12,)),
                              torch.arange(0, 13, 3), torch.tensor(0.5), 1.0, 0, True, torch.float),
    "float8_linear_prepack_cpu": (to_fp8(w8, ws8), ws8),
    "float8_linear_cpu": (to_fp8(x8, xs8), xs8, *packed8, torch.randn(256), torch.bfloat16),
    "da8w4_linear_prepack_cpu": (w4, s4, z4),
    "da8w4_linear_cpu": (act, act_s, act_z, *packed4, None, torch.float),
    "qscaled_dot_product": (q, k, v, None, 0.0, False, None, *(U8[n] for n in (
        "q_scale", "q_zp", "k_scale", "k_zp", "v_scale", "v_zp", "a_scale", "a_zp", "o_scale", "o_zp"))),
}
check_ops(side, A, CHECKS)
