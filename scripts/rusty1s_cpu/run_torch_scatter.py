"""Calls torch_scatter's 16 ops on seeded inputs on one side (its own four extensions, or the package opgen
generated, with the same kernels) and saves every output and gradient; then opcheck and
torch.compile(fullgraph=True) on a few ops, one JSON line per op. Run once per side, in separate processes (both
register torch_scatter::), then compare the two files bit for bit with scripts/vllm_subset/compare.py. Inputs follow
torch_scatter's test/: every reduction, float32, float64, float16, bfloat16 and int64, sources of 1-3 dimensions
scattered along each, indices broadcast from one dimension, a given `out` accumulated into, a larger `dim_size`,
empty sources and segments; gradients (float32 and float64) through the C++ autograd Functions on both sides.
  run_torch_scatter.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402
from side import load_side  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
S = load_side(side, out_dir, "torch_scatter")
case = Cases()
FLOATS = (torch.float32, torch.float64)
DTYPES = (*FLOATS, torch.float16, torch.bfloat16, torch.int64)


def values(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=torch.float64).to(dtype)
    return torch.randint(-50, 50, shape, dtype=dtype)


def run(op, src, *args, grads=False):
    """op's outputs; with grads, the gradient of a seeded weighting of its first output with respect to src too."""
    if not grads:
        return op(src, *args)
    src = src.detach().requires_grad_()
    outs = op(src, *args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    weight = torch.randn(outs[0].shape, dtype=outs[0].dtype)
    (grad,) = torch.autograd.grad((outs[0] * weight).sum(), [src], allow_unused=True)
    return (*(o.detach() for o in outs), torch.zeros(0) if grad is None else grad)


# scatter_<reduce>(src, index, dim, out, dim_size): src of 1-3 dimensions, along each, index of src's shape or
# one-dimensional (broadcast), into a fresh output sized by the index, a given dim_size, or a given out.
for reduce in ("sum", "mul", "mean", "min", "max"):
    op = getattr(S, f"scatter_{reduce}")
    for dtype in DTYPES:
        for shape in ((0,), (7,), (6, 5), (4, 6, 3)):
            for dim in range(len(shape)):
                for broadcast in (False, True):
                    for mode in ("fresh", "dim_size", "out"):
                        def scatter():
                            src = values(shape, dtype)
                            n = shape[dim]
                            index = torch.randint(0, max(n // 2, 1), (n,) if broadcast else shape)
                            if broadcast and dim != len(shape) - 1 and len(shape) > 1:
                                index = index.view(*([1] * dim), n, *([1] * (len(shape) - dim - 1)))
                                index = index.expand(shape).contiguous() if dim else index.view(n).contiguous()
                            size = (int(index.max()) + 1 if index.numel() else 0) + 2
                            out_shape = list(shape)
                            out_shape[dim] = size
                            given = values(out_shape, dtype) if mode == "out" else None
                            args = (index, dim, given, size if mode == "dim_size" else None)
                            result = run(op, src, *args, grads=dtype in FLOATS and mode != "out" and reduce != "mul")
                            return result if given is None else (*(result if isinstance(result, tuple) else (result,)), given)
                        case(f"scatter_{reduce}/{dtype}-{shape}-d{dim}-b{broadcast}-{mode}", scatter)

# segment_<reduce>_coo(src, index, out, dim_size) over sorted indices, gather_coo(src, index, out); the
# _csr forms over index pointers. Segments of 0-4 rows, some empty, along the first dimensions.
def sorted_index(rows, segments):
    return torch.sort(torch.randint(0, segments, (rows,))).values


for reduce in ("sum", "mean", "min", "max"):
    coo, csr = getattr(S, f"segment_{reduce}_coo"), getattr(S, f"segment_{reduce}_csr")
    for dtype in DTYPES:
        for shape in ((0,), (9,), (9, 4), (9, 3, 2)):
            for segments in (1, 4, 12):
                for mode in ("fresh", "dim_size", "out"):
                    # The backward of an empty source into dim_size segments divides by zero in torch_scatter's
                    # gather_coo (SIGFPE, the process killed, on both sides): its forward alone.
                    grads = dtype in FLOATS and mode != "out" and not (shape[0] == 0 and mode == "dim_size")

                    def segment_coo():
                        src, index = values(shape, dtype), sorted_index(shape[0], segments)
                        given = values((segments + 1, *shape[1:]), dtype) if mode == "out" else None
                        result = run(coo, src, index, given, segments + 1 if mode == "dim_size" else None, grads=grads)
                        return result if given is None else (*(result if isinstance(result, tuple) else (result,)), given)

                    def segment_csr():
                        src = values(shape, dtype)
                        counts = torch.bincount(sorted_index(shape[0], segments), minlength=segments)
                        indptr = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)])
                        given = values((segments, *shape[1:]), dtype) if mode == "out" else None
                        result = run(csr, src, indptr, given, grads=grads)
                        return result if given is None else (*(result if isinstance(result, tuple) else (result,)), given)
                    case(f"segment_{reduce}_coo/{dtype}-{shape}-s{segments}-{mode}", segment_coo)
                    if mode != "dim_size":  # the _csr forms take none: the index pointers size the output
                        case(f"segment_{reduce}_csr/{dtype}-{shape}-s{segments}-{mode}", segment_csr)

for dtype in DTYPES:
    for shape in ((0,), (5,), (5, 4), (5, 3, 2)):
        for rows in (0, 1, 11):
            for given in (False, True):
                def gather_coo():
                    src = values(shape, dtype)
                    index = sorted_index(rows, shape[0]) if shape[0] else torch.zeros(0, dtype=torch.long)
                    out = values((rows, *shape[1:]), dtype) if given else None
                    return run(S.gather_coo, src, index, out, grads=dtype in FLOATS and not given)

                def gather_csr():
                    src = values(shape, dtype)
                    counts = torch.bincount(sorted_index(rows, max(shape[0], 1)), minlength=shape[0])[:shape[0]]
                    indptr = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)])
                    out = values((int(indptr[-1]), *shape[1:]), dtype) if given else None
                    # The gradient of an empty output into a source of rows is memory torch_scatter's backward never
                    # writes (it differs between two runs of its own build): its forward alone.
                    grads = dtype in FLOATS and not given and (int(indptr[-1]) > 0 or not shape[0])
                    return run(S.gather_csr, src, indptr, out, grads=grads)
                if rows or not shape[0]:  # an empty index over a source of rows: torch_scatter's gather_coo
                    case(f"gather_coo/{dtype}-{shape}-r{rows}-{given}", gather_coo)  # divides by zero (SIGFPE)
                case(f"gather_csr/{dtype}-{shape}-r{rows}-{given}", gather_csr)

case("cuda_version", lambda: S.cuda_version())

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

# opcheck and torch.compile(fullgraph=True): the ops are CompositeImplicitAutograd (catch-all) kernels on both
# sides, which fake tensors and the compiler run as they are.
torch.manual_seed(0)
src, index = torch.randn(6, 4), torch.tensor([0, 1, 0, 1, 2, 2])
indptr = torch.tensor([0, 2, 4, 6])
CHECKS = {
    "scatter_sum": (src, index, 0, None, None),
    "scatter_max": (src, index, 0, None, None),
    "segment_sum_coo": (src, index.sort().values, None, None),
    "segment_mean_csr": (src, indptr, None),
    "gather_csr": (torch.randn(3, 4), indptr, None),
}
check_ops(side, S, CHECKS)
