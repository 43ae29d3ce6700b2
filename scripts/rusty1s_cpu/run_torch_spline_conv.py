"""Calls torch_spline_conv's 3 ops on seeded inputs on one side (its own extensions, or the package opgen generated,
with the same kernels) and saves every output, values and the gradients its C++ autograd Functions give; then opcheck
and torch.compile(fullgraph=True) on both tensor ops, one JSON line each. Run once per side, in separate processes
(both register torch_spline_conv::), then compare the two files bit for bit with scripts/vllm_subset/compare.py.
Inputs follow torch_spline_conv's test/: pseudo-coordinates of 1-3 dimensions, open and closed splines of degree
1-3, kernel sizes 2-5, in float32, float64 and bfloat16 (its tests' dtypes); the weighting of 1-8 input and output
channels over those bases, gradients for the input, the weights and the basis; empty edge sets.
  run_torch_spline_conv.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402
from side import load_side  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
S = load_side(side, out_dir, "torch_spline_conv")
case = Cases()


def basis_inputs(edges, dims, degree, dtype, open_spline):
    pseudo = torch.rand(edges, dims, dtype=dtype)
    kernel_size = torch.randint(degree + 1, degree + 4, (dims,))
    is_open = torch.full((dims,), int(open_spline), dtype=torch.uint8)
    return pseudo, kernel_size, is_open


for dtype in (torch.float32, torch.float64, torch.bfloat16):
    d = str(dtype)[6:]
    for edges in (0, 1, 7, 40):
        for dims in (1, 2, 3):
            for degree in (1, 2, 3):
                for open_spline in (True, False):
                    tag = f"{d}-e{edges}-d{dims}-deg{degree}-{'open' if open_spline else 'closed'}"

                    def basis(edges=edges, dims=dims, degree=degree, dtype=dtype, open_spline=open_spline):
                        pseudo, kernel_size, is_open = basis_inputs(edges, dims, degree, dtype, open_spline)
                        pseudo.requires_grad_()
                        b, index = S.spline_basis(pseudo, kernel_size, is_open, degree)
                        b.backward(torch.randn_like(b))
                        return b.detach(), index, pseudo.grad

                    case(f"spline_basis/{tag}", basis)
                    for cin, cout in ((1, 1), (3, 5), (8, 2)):
                        def weighting(edges=edges, dims=dims, degree=degree, dtype=dtype, open_spline=open_spline,
                                      cin=cin, cout=cout):
                            pseudo, kernel_size, is_open = basis_inputs(edges, dims, degree, dtype, open_spline)
                            b, index = S.spline_basis(pseudo, kernel_size, is_open, degree)
                            x = torch.randn(edges, cin, dtype=dtype, requires_grad=True)
                            weight = torch.randn(int(kernel_size.prod()), cin, cout, dtype=dtype, requires_grad=True)
                            b.requires_grad_()
                            y = S.spline_weighting(x, weight, b, index)
                            y.backward(torch.randn_like(y))
                            return y.detach(), x.grad, weight.grad, b.grad

                        case(f"spline_weighting/{tag}-{cin}x{cout}", weighting)
case("cuda_version", lambda: S.cuda_version())

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

torch.manual_seed(0)
pseudo, kernel_size, is_open = basis_inputs(6, 2, 1, torch.float32, True)
b, index = S.spline_basis(pseudo, kernel_size, is_open, 1)
CHECKS = {
    "spline_basis": (pseudo, kernel_size, is_open, 1),
    "spline_weighting": (torch.randn(6, 3), torch.randn(int(kernel_size.prod()), 3, 4), b, index),
}
check_ops(side, S, CHECKS)
