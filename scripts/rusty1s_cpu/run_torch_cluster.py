"""Calls torch_cluster's 9 ops on seeded inputs on one side (its own extensions, or the package opgen generated,
with the same kernels) and saves every output; then opcheck and torch.compile(fullgraph=True) on a few ops, one JSON
line per op. Run once per side, in separate processes (both register torch_cluster::), then compare the two files
bit for bit with scripts/vllm_subset/compare.py. Inputs follow torch_cluster's test/: point clouds of 1-3
dimensions in one and in three batches, float32 and float64, farthest point sampling at two ratios with and without
a random start (C's rand(), the same sequence in both processes), graclus with and without weights, voxel grids,
k-nearest and radius neighbours (cosine too, which the CPU kernel refuses), random walks with and without p and q
(node2vec, which the CPU kernel refuses), the neighbour sampler; nearest, CUDA-only (raised alike).
  run_torch_cluster.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402
from side import load_side  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
C = load_side(side, out_dir, "torch_cluster")
# Its kernels call C's rand() inside at::parallel_for (fps's random start, random walks): with two threads the order
# of the draws, and so the samples, follow the threads' scheduling (two runs of its own build differ). One thread.
torch.set_num_threads(1)
case = Cases()


def batch_ptr(n, batches):
    """Index pointers of `batches` contiguous batches of n points, none empty: from an empty batch torch_cluster's
    fps writes out of bounds (a corrupted heap, then an abort or not, on either side)."""
    cuts = torch.sort(torch.randperm(n - 1)[:batches - 1] + 1).values
    return torch.cat([torch.tensor([0]), cuts, torch.tensor([n])])


def csr(nodes, density=0.2, weighted=False):
    mask = torch.rand(nodes, nodes) < density
    mask = mask | mask.t()
    mask.fill_diagonal_(False)
    row, col = mask.nonzero(as_tuple=True)
    rowptr = torch.cat([torch.tensor([0]), torch.bincount(row, minlength=nodes).cumsum(0)])
    return rowptr, col, (torch.rand(col.numel()) if weighted else None)


for dtype in (torch.float32, torch.float64):
    for dims in (1, 2, 3):
        for n, batches in ((1, 1), (20, 1), (60, 3)):
            tag = f"{dtype}-d{dims}-n{n}-b{batches}"

            def points(count=n):
                return torch.randn(count, dims, dtype=dtype)
            for ratio in (0.25, 0.5):
                for random_start in (False, True):
                    case(f"fps/{tag}-{ratio}-{random_start}",
                         lambda: C.fps(points(), batch_ptr(n, batches), torch.tensor([ratio] * batches, dtype=dtype),
                                       random_start))
            case(f"grid/{tag}", lambda: C.grid(points(), torch.full((dims,), 0.5, dtype=dtype), None, None))
            case(f"grid/{tag}-bounded", lambda: C.grid(points(), torch.full((dims,), 0.3, dtype=dtype),
                                                       torch.full((dims,), -1.0, dtype=dtype),
                                                       torch.full((dims,), 1.0, dtype=dtype)))
            for k in (1, 4):
                for cosine in (False, True):
                    def knn():
                        x, y = points(), points(max(n // 2, 1))
                        ptrs = (batch_ptr(n, batches), batch_ptr(max(n // 2, 1), batches)) if batches > 1 else (None, None)
                        return C.knn(x, y, *ptrs, k, cosine, 1)
                    case(f"knn/{tag}-k{k}-{cosine}", knn)
            for r in (0.5, 1.5):
                for ignore_same in (False, True):
                    def radius():
                        x, y = points(), points(max(n // 2, 1))
                        ptrs = (batch_ptr(n, batches), batch_ptr(max(n // 2, 1), batches)) if batches > 1 else (None, None)
                        return C.radius(x, y, *ptrs, r, 8, 1, ignore_same)
                    case(f"radius/{tag}-r{r}-{ignore_same}", radius)
            case(f"nearest/{tag}", lambda: C.nearest(points(), points(3), torch.tensor([0, n]), torch.tensor([0, 3])))

for nodes in (1, 10, 50):
    for weighted in (False, True):
        case(f"graclus/{nodes}-{weighted}", lambda: C.graclus(*csr(nodes, weighted=weighted)))
    for walk in (1, 6):
        for p, q in ((1.0, 1.0), (0.5, 2.0)):
            def random_walk():
                rowptr, col, _ = csr(nodes)
                return C.random_walk(rowptr, col, torch.arange(nodes), walk, p, q)
            case(f"random_walk/{nodes}-{walk}-{p}-{q}", random_walk)
    for count, factor in ((2, 1.0), (3, 2.0)):
        def sampler():
            rowptr, col, _ = csr(nodes)
            return C.neighbor_sampler(torch.arange(nodes), rowptr, count, factor)
        case(f"neighbor_sampler/{nodes}-{count}-{factor}", sampler)
case("cuda_version", lambda: C.cuda_version())

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

torch.manual_seed(0)
x = torch.randn(12, 3)
CHECKS = {
    "grid": (x, torch.full((3,), 0.5), None, None),
    "knn": (x, x[:4], None, None, 2, False, 1),
    "radius": (x, x[:4], None, None, 1.0, 8, 1, False),
}
check_ops(side, C, CHECKS)
