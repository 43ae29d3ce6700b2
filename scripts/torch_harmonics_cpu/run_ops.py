"""Calls torch-harmonics' ops on seeded inputs on one side (its own extensions, or the packages opgen generated over the
same kernels, with its Python switched as the import's report says) and saves every output; then opcheck and
torch.compile(fullgraph=True) per op, one JSON line each. Run once per side, in separate processes (both register
disco_kernels:: and attention_kernels::), then compare the two files bit for bit with scripts/vllm_subset/compare.py.
The calls go through the project's own modules, as its users call them, and to the ops directly: DISCO convolutions
and their transposes (two grids, kernel shapes and basis types, groups, the fused path and not), values and the
gradients of the input and the weights, which reach the C++ backward through the project's register_autograd on its
custom_ops; neighbourhood attention (gather and scatter directions, one and two heads, QK norm), values and gradients;
the layout ops; float32 and float64.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import contextlib
import glob
import os
import sys

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path[:0] = [f"{out_dir}/{side}/src", f"{out_dir}/build-{side}/python"]
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
import torch  # noqa: E402

import torch_harmonics as th  # noqa: E402  (the imported side's loads the generated packages first: its __init__s)
from cases import Cases, check_ops  # noqa: E402

torch.set_num_threads(2)
KEYS = ("CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd", "AutocastCPU")
with open(f"{out_dir}/{side}-registered.txt", "w") as registered:  # the schemas and keys torch holds, per op
    for spec in sorted(glob.glob(f"{out_dir}/imported/schemas/*/*.yaml")):
        ns, name = spec.split("/")[-2], os.path.basename(spec)[:-5]
        handle = getattr(getattr(torch.ops, ns), name).default
        keys = [k for k in KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(handle.name(), k)]
        registered.write(f"{handle._schema} {keys}\n")
case = Cases()


def as_dtype(module, dtype):
    """As the project's tests cast a module: float32 stays as built (its sparse pattern's values float64; cast with
    `.to(torch.float32)`, its float32 DISCO kernels raise, then the heap is corrupted, in both builds alike)."""
    return module if dtype == torch.float32 else module.to(dtype)


def autocast(amp):
    """bfloat16 as the project's tests run it: a float32 module and input under CPU autocast, which reaches the
    Autocast impls its Python registers (their key an f-string)."""
    return torch.autocast("cpu", dtype=amp) if amp else contextlib.nullcontext()


def through(module, x, amp):
    """The module's output, and the gradients of its input and parameters for a seeded output gradient."""
    with autocast(amp):
        y = module(x)
    y.backward(torch.randn_like(y))
    return (y.detach(), x.grad, *(p.grad for p in module.parameters()))


convs = {}
for dtype, amp in ((torch.float32, None), (torch.float64, None), (torch.float32, torch.bfloat16)):
    d = str(amp or dtype)[6:]
    for shapes in (((16, 32), (8, 16)), ((12, 24), (12, 24))):
        for kernel, basis in (((3,), "piecewise linear"), ((3, 3), "piecewise linear"), ((2, 2), "morlet"),
                              ((3,), "zernike")):
            for groups, fused in ((1, False), (2, False), (1, True)):
                tag = f"{d} {shapes} {kernel} {basis} groups={groups} fused={fused}"

                def conv(shapes=shapes, kernel=kernel, basis=basis, groups=groups, fused=fused, dtype=dtype, amp=amp,
                         tag=tag):
                    m = th.DiscreteContinuousConvS2(4, 6, shapes[0], shapes[1], kernel, basis_type=basis, groups=groups,
                                                    theta_cutoff=0.3, fused=fused)
                    m = as_dtype(m, dtype)
                    convs[tag] = m
                    return through(m, torch.randn(2, 4, *shapes[0], dtype=dtype, requires_grad=True), amp)

                case(f"conv {tag}", conv)
                if fused:
                    continue

                def transpose(shapes=shapes, kernel=kernel, basis=basis, groups=groups, dtype=dtype, amp=amp):
                    m = th.DiscreteContinuousConvTransposeS2(4, 6, shapes[1], shapes[0], kernel, basis_type=basis,
                                                             groups=groups, theta_cutoff=0.3)
                    m = as_dtype(m, dtype)
                    return through(m, torch.randn(2, 4, *shapes[1], dtype=dtype, requires_grad=True), amp)

                case(f"transpose conv {tag}", transpose)
    for in_shape, out_shape in (((12, 24), (12, 24)), ((16, 32), (8, 16)), ((8, 16), (16, 32))):
        for heads, qknorm in ((1, False), (2, False), (2, True)):
            def attention(in_shape=in_shape, out_shape=out_shape, heads=heads, qknorm=qknorm, dtype=dtype, amp=amp):
                m = th.NeighborhoodAttentionS2(8, in_shape, out_shape, num_heads=heads, use_qknorm=qknorm,
                                               theta_cutoff=0.4)
                m = as_dtype(m, dtype)
                q = torch.randn(2, 8, *out_shape, dtype=dtype, requires_grad=True)
                kv = torch.randn(2, 8, *in_shape, dtype=dtype, requires_grad=True)
                with autocast(amp):
                    y = m(q, kv, kv)
                y.backward(torch.randn_like(y))
                return (y.detach(), q.grad, kv.grad, *(p.grad for p in m.parameters()))

            case(f"attention {d} {in_shape}->{out_shape} heads={heads} qknorm={qknorm}", attention)
    x = torch.randn(3, 5, 7, 9, dtype=amp or dtype)
    case(f"permute_to_nhwc {d}", lambda x=x: torch.ops.attention_kernels.permute_to_nhwc(x))
    case(f"permute_to_nchw {d}", lambda x=x: torch.ops.attention_kernels.permute_to_nchw(x))

# The ops themselves, with a convolution's sparse pattern: the values its module computed above are what both sides
# give them, so a difference here is the op's.
# The pattern's values in the input's dtype, as the project's custom_ops give them; the backward (the adjoint) maps
# onto the input's grid.
m = convs["float32 ((16, 32), (8, 16)) (3, 3) piecewise linear groups=1 fused=False"]
psi = (m.psi_roff_idx, m.psi_ker_idx, m.psi_row_idx, m.psi_col_idx, m.psi_vals.float(), m.kernel_size)
x = torch.randn(2, 4, 16, 32)
case("disco_kernels.forward", lambda: torch.ops.disco_kernels.forward(x, *psi, m.nlat_out, m.nlon_out))
dy = torch.randn(2, 4, m.kernel_size, 8, 16)
case("disco_kernels.backward", lambda: torch.ops.disco_kernels.backward(dy, *psi, m.nlat_in, m.nlon_in))
torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

check_ops(side, torch.ops.disco_kernels, {"forward": (x, *psi, m.nlat_out, m.nlon_out),
                                          "backward": (dy, *psi, m.nlat_in, m.nlon_in),
                                          "_disco_s2_contraction_optimized": (x, *psi, m.nlat_out, m.nlon_out)})
a = th.NeighborhoodAttentionS2(8, (16, 32), (8, 16), num_heads=2, theta_cutoff=0.4)
kv, q = torch.randn(2, 16, 32, 8), torch.randn(2, 8, 16, 8)  # NHWC, the heads packed along the channels
pattern = (a.quad_weights, a.psi_col_idx, a.psi_roff_idx, 2, 32, 8, 16)
check_ops(side, torch.ops.attention_kernels, {"permute_to_nhwc": (torch.randn(2, 3, 4, 5),),
                                              "permute_to_nchw": (torch.randn(2, 3, 4, 5),),
                                              "forward": (kv, kv, q, *pattern),
                                              "backward": (kv, kv, q, torch.randn(2, 8, 16, 8), *pattern),
                                              "_neighborhood_s2_attention_optimized": (kv, kv, q, *pattern)})
