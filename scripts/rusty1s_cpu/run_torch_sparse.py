"""Calls torch_sparse's 21 ops on seeded inputs on one side (its own extensions, or the package opgen generated,
with the same kernels) and saves every output and gradient; then opcheck and torch.compile(fullgraph=True) on a few
ops, one JSON line per op. Run once per side, in separate processes (both register torch_sparse::), then compare the
two files bit for bit with scripts/vllm_subset/compare.py. Inputs: random sparse matrices of 0-40 rows in CSR and
CSC form (as SparseTensor keeps them), sparse-dense products of every reduction with gradients through the C++
autograd Functions for the value and the dense matrix, float32 and float64; the samplers (uniform and without
replacement, k-hop, GraphSAINT, random walks, homogeneous and heterogeneous neighbour sampling, HGT) from the same
seeds; relabelling; the METIS partitions, which this build has not (raised alike).
  run_torch_sparse.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402
from side import load_side  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
S = load_side(side, out_dir, "torch_sparse")
case = Cases()


def sparse(rows, cols, density=0.2, dtype=torch.float32):
    """A random sparse matrix as SparseTensor stores it: sorted row, col, value; rowptr; colptr and csr2csc."""
    mask = torch.rand(rows, cols) < density
    row, col = mask.nonzero(as_tuple=True)
    value = torch.randn(row.numel(), dtype=dtype)
    rowptr = S.ind2ptr(row, rows)
    csr2csc = (col * max(rows, 1) + row).argsort()
    colptr = S.ind2ptr(col[csr2csc], cols)
    return row, col, value, rowptr, colptr, csr2csc


def grads(outs, inputs):
    """outs, then the gradients of a seeded weighting of the first output with respect to inputs."""
    outs = outs if isinstance(outs, tuple) else (outs,)
    weight = torch.randn(outs[0].shape, dtype=outs[0].dtype)
    got = torch.autograd.grad((outs[0] * weight).sum(), inputs, allow_unused=True)
    return (*(o.detach() for o in outs), *(torch.zeros(0) if g is None else g for g in got))


def flat(dicts):
    """Dicts of tensors as their tensors, by sorted key (Cases keeps tensors)."""
    return tuple(d[k] for d in dicts for k in sorted(d))


for rows, cols in ((0, 5), (1, 1), (7, 9), (40, 30)):
    for dtype in (torch.float32, torch.float64):
        tag = f"{rows}x{cols}-{dtype}"

        def convert():
            row, col, value, rowptr, colptr, csr2csc = sparse(rows, cols, dtype=dtype)
            return rowptr, S.ptr2ind(rowptr, row.numel()), colptr, csr2csc
        case(f"ind2ptr_ptr2ind/{tag}", convert)
        for k in (0, 1, -2):
            case(f"non_diag_mask/{tag}-k{k}",
                 lambda: S.non_diag_mask(*sparse(rows, cols)[:2], rows, cols, k))
        for reduce in ("sum", "mean", "min", "max"):
            for with_value in (True, False):
                def spmm():
                    row, col, value, rowptr, colptr, csr2csc = sparse(rows, cols, dtype=dtype)
                    mat = torch.randn(cols, 3, dtype=dtype, requires_grad=True)
                    value = value.requires_grad_() if with_value else None
                    inputs = [mat] + ([value] if with_value else [])
                    if reduce == "sum":
                        outs = S.spmm_sum(row, rowptr, col, value, colptr, csr2csc, mat)
                    elif reduce == "mean":
                        rowcount = rowptr[1:] - rowptr[:-1]
                        outs = S.spmm_mean(row, rowptr, col, value, rowcount, colptr, csr2csc, mat)
                    else:
                        outs = getattr(S, f"spmm_{reduce}")(rowptr, col, value, mat)
                    if rows == 0 and reduce in ("sum", "mean"):
                        # The backward of a product with no rows divides by zero in torch_sparse's kernels (SIGFPE,
                        # the process killed, on both sides): its forward alone.
                        return outs.detach()
                    return grads(outs, inputs)
                case(f"spmm_{reduce}/{tag}-{with_value}", spmm)

for nodes in (1, 12, 60):
    tag = f"n{nodes}"

    def graph():
        row, col, value, rowptr, colptr, csr2csc = sparse(nodes, nodes, density=0.15)
        return row, col, rowptr, colptr, csr2csc

    def relabel():
        row, col, rowptr, _, _ = graph()
        idx = torch.randperm(nodes)[:max(nodes // 3, 1)].sort().values
        return S.relabel(col, idx)

    def relabel_one_hop():
        row, col, rowptr, _, _ = graph()
        idx = torch.randperm(nodes)[:max(nodes // 3, 1)].sort().values
        value = torch.randn(col.numel())
        return (*S.relabel_one_hop(rowptr, col, value, idx, False)[:2],
                *S.relabel_one_hop(rowptr, col, None, idx, True)[:2])
    case(f"relabel/{tag}", relabel)
    case(f"relabel_one_hop/{tag}", relabel_one_hop)
    def random_walk(walk):
        # Every node with an edge (a ring under the random ones): from a node with none, torch_sparse's walk reads
        # past `col` (a segmentation fault on both sides).
        mask = (torch.rand(nodes, nodes) < 0.15) | torch.eye(nodes, dtype=torch.bool).roll(1, 1)
        row, col = mask.nonzero(as_tuple=True)
        return S.random_walk(S.ind2ptr(row, nodes), col, torch.arange(nodes), walk)

    def saint_subgraph():
        row, col, rowptr, _, _ = graph()
        return S.saint_subgraph(torch.randperm(nodes)[:max(nodes // 2, 1)].sort().values, rowptr, row, col)

    def idx():
        return torch.randperm(nodes)[:max(nodes // 4, 1)]

    def sample_adj(num, replace):
        row, col, rowptr, _, _ = graph()
        return S.sample_adj(rowptr, col, idx(), num, replace)

    def ego_k_hop(num, replace):
        # Its kernel draws from PyTorch's generator inside at::parallel_for: with two threads, the order of the draws,
        # and so the sample, follows the threads' scheduling (two runs of torch_sparse's own build differ under
        # load). One thread, for a sample the seed decides.
        row, col, rowptr, _, _ = graph()
        torch.set_num_threads(1)
        try:
            return S.ego_k_hop_sample_adj(rowptr, col, idx(), 2, num, replace)
        finally:
            torch.set_num_threads(2)

    def neighbor_sample(num, replace, directed):
        row, col, rowptr, colptr, csr2csc = graph()
        return S.neighbor_sample(colptr, row[csr2csc], idx(), [num, num], replace, directed)
    for walk in (1, 5):
        case(f"random_walk/{tag}-{walk}", lambda: random_walk(walk))
    case(f"saint_subgraph/{tag}", saint_subgraph)
    for replace in (False, True):
        for num in (-1, 2, 5):
            case(f"sample_adj/{tag}-{num}-{replace}", lambda: sample_adj(num, replace))
            case(f"ego_k_hop_sample_adj/{tag}-{num}-{replace}", lambda: ego_k_hop(num, replace))
            for directed in (False, True):
                case(f"neighbor_sample/{tag}-{num}-{replace}-{directed}",
                     lambda: neighbor_sample(num, replace, directed))

# Heterogeneous: two node types, three edge types, keyed as torch_geometric keys them ("src__rel__dst").
NODE_TYPES = ["paper", "author"]
EDGE_TYPES = [("paper", "cites", "paper"), ("author", "writes", "paper"), ("paper", "rev_writes", "author")]
SIZES = {"paper": 30, "author": 12}


def hetero():
    colptr, row = {}, {}
    for src, rel, dst in EDGE_TYPES:
        mask = torch.rand(SIZES[src], SIZES[dst]) < 0.2
        r, c = mask.nonzero(as_tuple=True)
        perm = (c * SIZES[src] + r).argsort()
        key = f"{src}__{rel}__{dst}"
        colptr[key], row[key] = S.ind2ptr(c[perm], SIZES[dst]), r[perm]
    return colptr, row


for num in (-1, 3):
    for replace in (False, True):
        for directed in (False, True):
            def hetero_neighbor():
                colptr, row = hetero()
                inputs = {"paper": torch.randperm(SIZES["paper"])[:4]}
                nums = {k: [num, num] for k in colptr}
                return flat(S.hetero_neighbor_sample(NODE_TYPES, EDGE_TYPES, colptr, row, inputs, nums, 2, replace,
                                                     directed))

            def hetero_temporal():
                colptr, row = hetero()
                inputs = {"paper": torch.randperm(SIZES["paper"])[:4]}
                # With replacement, torch_sparse's temporal sampler loops until it draws a neighbour no later than
                # its root ("TODO Infinity loop if no neighbor satisfies time constraint"): one time for all then.
                times = {t: torch.zeros(SIZES[t], dtype=torch.long) if replace else torch.randint(0, 5, (SIZES[t],))
                         for t in NODE_TYPES}
                nums = {k: [num, num] for k in colptr}
                return flat(S.hetero_temporal_neighbor_sample(NODE_TYPES, EDGE_TYPES, colptr, row, inputs, nums, times,
                                                              2, replace, directed))
            case(f"hetero_neighbor_sample/{num}-{replace}-{directed}", hetero_neighbor)
            case(f"hetero_temporal_neighbor_sample/{num}-{replace}-{directed}", hetero_temporal)
    def hgt():
        colptr, row = hetero()
        inputs = {"paper": torch.randperm(SIZES["paper"])[:4]}
        return flat(S.hgt_sample(colptr, row, inputs, {t: [max(num, 1)] * 2 for t in NODE_TYPES}, 2))
    case(f"hgt_sample/{num}", hgt)

# METIS's partitions: this CPU build has not WITH_METIS (raised alike).
row, col, value, rowptr, colptr, csr2csc = sparse(20, 20)
case("partition", lambda: S.partition(rowptr, col, None, 2, False))
case("partition2", lambda: S.partition2(rowptr, col, None, None, 2, False))
case("mt_partition", lambda: S.mt_partition(rowptr, col, None, None, 2, False, 1))
case("cuda_version", lambda: S.cuda_version())

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

torch.manual_seed(0)
row, col, value, rowptr, colptr, csr2csc = sparse(8, 6)
CHECKS = {
    "ind2ptr": (row, 8),
    "spmm_sum": (row, rowptr, col, value, colptr, csr2csc, torch.randn(6, 3)),
    "spmm_max": (rowptr, col, value, torch.randn(6, 3)),
    "relabel": (col, torch.tensor([0, 2, 3])),
}
check_ops(side, S, CHECKS)
