"""A second real CPU project switches to opgen with one `opgen import`, its
kernels unchanged, and gives its own results bit for bit (issue 34, item 8).

The project is pyg-lib's C++ library, `pyg_lib/csrc` (tests/import/projects/,
verbatim, provenance in its README; its CUDA files left out): one file per op
family defines the schemas (`TORCH_LIBRARY_FRAGMENT(pyg, m)`,
`TORCH_SELECTIVE_SCHEMA("pyg::...")`) beside the C++ API wrappers that call
them through the dispatcher; the CPU kernels of `ops/` sit in anonymous
namespaces of their own files, with their TORCH_LIBRARY_IMPL blocks; the
gradients are C++ autograd Functions registered for Autograd (and
scatter_mean for CompositeExplicitAutograd); the samplers' kernels are
declared in headers (or in the file that registers them), some registered at
BackendSelect, as they take dicts; two torch classes are registered in
blocks of their own. pyg-lib has no fakes. Its grouped matmuls and
distributed samplers use the parallel-hashmap headers it takes as a git
submodule (copied beside it, at the commit it pins); `pyg_lib/csrc/config.h`
is what its CMake configures (no MKL, no METIS), written by the test.

Import keeps the namespace and every schema as written; the specs bind the
samplers' kernels as they are (the generated bindings call them); the other
kernels have internal linkage, so their impls stay in the project's build, as
the Autograd impls do, and the specs own the defs, the fakes and the tests. The person's
steps are the report's: delete the def blocks it names, write the fakes it
asks for, build with the CMake it prints, adding the project's support
sources (`pyg_lib/csrc/utils/*.cpp`, which register nothing). Then the
project's own library and the imported one, each in a process of its own, run
every op on the same seeded inputs (values and gradients), and every result
is compared bit for bit; the imported ops pass opcheck and compile with
fullgraph=True.

Needs the built tool: run through CTest.
"""

import re
import shutil
import subprocess
import sys

import pytest

from cli_helpers import (SOURCE_DIR, build_projects_own_library, build_with_opgen, compare_saved_results,
                         requires_opgen, run_check, run_opgen, run_saving_results)

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "pyg-team__pyg-lib"
# The ops the specs bind to pyg-lib's kernels as they are (declared in its headers, or in the registering file,
# whose declarations import copies); the others keep their impls in the project's build.
BOUND = ["cuda_version", "dist_neighbor_sample", "hetero_neighbor_sample", "hetero_relabel_neighborhood",
         "merge_sampler_outputs", "neighbor_sample", "relabel_neighborhood"]
OPS = sorted(BOUND + [
    "edge_sample", "fps", "gather_coo", "gather_csr", "graclus_cluster", "grid_cluster", "grouped_matmul", "index_sort",
    "knn", "metis", "nearest", "radius", "random_walk", "sampled_op", "scatter_max", "scatter_mean", "scatter_min",
    "scatter_mul", "scatter_sum", "segment_matmul", "segment_max_coo", "segment_max_csr", "segment_mean_coo",
    "segment_mean_csr", "segment_min_coo", "segment_min_csr", "segment_sum_coo", "segment_sum_csr", "softmax_csr",
    "softmax_csr_backward", "spline_basis", "spline_basis_backward", "spline_weighting",
    "spline_weighting_backward_basis", "spline_weighting_backward_weight", "spline_weighting_backward_x", "subgraph"])
FAMILIES = ["cluster", "edge_sampler", "fps", "graclus", "index_sort", "knn", "matmul", "nearest", "radius", "sampled",
            "scatter", "segment_coo", "segment_csr", "softmax", "spline"]
SAMPLERS = ["dist_merge_outputs", "dist_relabel", "neighbor", "random_walk", "subgraph"]
# The files whose blocks register the defs: each block goes, the rest of the file stays.
DEF_FILES = ([f"pyg_lib/csrc/ops/{family}.cpp" for family in FAMILIES] +
             [f"pyg_lib/csrc/sampler/{sampler}.cpp" for sampler in SAMPLERS] +
             ["pyg_lib/csrc/library.cpp", "pyg_lib/csrc/partition/metis.cpp"])
# The files of the kernels: impls kept in the project's build, or blocks of the bound ones' impls deleted.
KERNEL_FILES = sorted(
    [f"pyg_lib/csrc/ops/cpu/{family}_kernel.cpp" for family in FAMILIES] +
    [f"pyg_lib/csrc/ops/autograd/{family}_kernel.cpp"
     for family in ("matmul", "sampled", "scatter", "segment_coo", "segment_csr", "softmax", "spline")] +
    [f"pyg_lib/csrc/sampler/cpu/{sampler}_kernel.cpp" for sampler in SAMPLERS] +
    ["pyg_lib/csrc/partition/cpu/metis_kernel.cpp"])
IMPL_BLOCKS = ["pyg_lib/csrc/sampler/cpu/dist_merge_outputs_kernel.cpp", "pyg_lib/csrc/sampler/cpu/dist_relabel_kernel.cpp",
               "pyg_lib/csrc/sampler/cpu/dist_relabel_kernel.cpp", "pyg_lib/csrc/sampler/cpu/neighbor_kernel.cpp",
               "pyg_lib/csrc/sampler/cpu/neighbor_kernel.cpp", "pyg_lib/csrc/sampler/cpu/neighbor_kernel.cpp"]
# Its torch classes, whose blocks register no op: the report keeps them in the build.
CLASS_FILES = ["pyg_lib/csrc/classes/cpu/hash_map.cpp", "pyg_lib/csrc/classes/cpu/neighbor_sampler.cpp"]
# What pyg-lib's build compiles beside them: the helpers its kernels call, which register nothing (the report's
# KERNELS lists them).
SUPPORT_FILES = ["pyg_lib/csrc/random/cpu/biased_sampling.cpp", "pyg_lib/csrc/utils/check.cpp",
                 "pyg_lib/csrc/utils/convert.cpp"]
INCLUDE_DIRS = ". third_party/parallel-hashmap"
# pyg_lib/csrc/config.h as pyg-lib's CMake configures it without MKL and METIS.
CONFIG_H = "#pragma once\n\n#define WITH_MKL_BLAS() 0\n#define NO_METIS() 1\n"

# The fakes the report asks for (pyg-lib has none): what a person writes,
# from the kernels' output shapes. An output sized by the index's largest
# value, when dim_size is not given, has a size only the data decides.
FAKES = '''import torch


def _dynamic():
    return torch.library.get_ctx().new_dynamic_size()


def _scatter_result(src, index, dim, out, dim_size):
    if out is not None:
        return out.new_empty(out.shape)
    dim = dim + src.dim() if dim < 0 else dim
    sizes = list(src.shape)
    if dim_size is not None:
        sizes[dim] = dim_size
    elif index.numel() == 0:
        sizes[dim] = 0
    else:
        sizes[dim] = _dynamic()
    return src.new_empty(sizes)


def scatter_sum(src, index, dim=-1, out=None, dim_size=None):
    return _scatter_result(src, index, dim, out, dim_size)


scatter_mul = scatter_mean = scatter_sum


def scatter_min(src, index, dim=-1, out=None, dim_size=None):
    result = _scatter_result(src, index, dim, out, dim_size)
    return result, index.new_empty(result.shape)


scatter_max = scatter_min


# Segments reduce along the index's (or indptr's) last dimension.
def segment_sum_coo(src, index, out=None, dim_size=None):
    return _scatter_result(src, index, index.dim() - 1, out, dim_size)


segment_mean_coo = segment_sum_coo


def segment_min_coo(src, index, out=None, dim_size=None):
    result = segment_sum_coo(src, index, out, dim_size)
    return result, index.new_empty(result.shape)


segment_max_coo = segment_min_coo


def segment_sum_csr(src, indptr, out=None):
    if out is not None:
        return out.new_empty(out.shape)
    sizes = list(src.shape)
    sizes[indptr.dim() - 1] = max(indptr.shape[-1] - 1, 0)
    return src.new_empty(sizes)


segment_mean_csr = segment_sum_csr


def segment_min_csr(src, indptr, out=None):
    result = segment_sum_csr(src, indptr, out)
    return result, indptr.new_empty(result.shape)


segment_max_csr = segment_min_csr


def gather_coo(src, index, out=None):
    sizes = list(src.shape)
    sizes[index.dim() - 1] = index.shape[-1]
    return src.new_empty(sizes if out is None else out.shape)


def gather_csr(src, indptr, out=None):
    if out is not None:
        return out.new_empty(out.shape)
    sizes = list(src.shape)
    sizes[indptr.dim() - 1] = _dynamic()  # indptr's last value
    return src.new_empty(sizes)


def softmax_csr(src, ptr, dim=0):
    return torch.empty_like(src)


def softmax_csr_backward(out, out_grad, ptr, dim=0):
    return torch.empty_like(out)


def spline_basis(pseudo, kernel_size, is_open_spline, degree=1):
    shape = (pseudo.shape[0], (degree + 1) ** pseudo.shape[1])
    return pseudo.new_empty(shape), pseudo.new_empty(shape, dtype=torch.int64)


def spline_basis_backward(grad_basis, pseudo, kernel_size, is_open_spline, degree=1):
    return torch.empty_like(pseudo)


def spline_weighting(x, weight, basis, weight_index):
    return x.new_empty(x.shape[0], weight.shape[2])


def spline_weighting_backward_x(grad_out, weight, basis, weight_index):
    return grad_out.new_empty(grad_out.shape[0], weight.shape[1])


def spline_weighting_backward_weight(grad_out, x, basis, weight_index, kernel_size):
    return grad_out.new_empty(kernel_size, x.shape[1], grad_out.shape[1])


def spline_weighting_backward_basis(grad_out, x, weight, weight_index):
    return grad_out.new_empty(weight_index.shape)


def sampled_op(left, right, left_index, right_index, op):
    rows = left.shape[0] if left_index is None else left_index.shape[0]
    return left.new_empty(rows, left.shape[1])


def segment_matmul(input, ptr, other):
    return input.new_empty(input.shape[0], other.shape[-1])


def grouped_matmul(input, other):
    return [x.new_empty(x.shape[0], y.shape[-1]) for x, y in zip(input, other)]


def index_sort(indices, max=None):
    return torch.empty_like(indices), torch.empty_like(indices)


def grid_cluster(pos, size, start=None, end=None):
    return pos.new_empty(pos.shape[0], dtype=torch.int64)


def nearest(x, y, ptr_x=None, ptr_y=None):
    return x.new_empty(x.shape[0], dtype=torch.int64)


def knn(x, y, ptr_x=None, ptr_y=None, k=1, cosine=False, num_workers=1):
    return x.new_empty(2, _dynamic(), dtype=torch.int64)


def radius(x, y, ptr_x=None, ptr_y=None, r=1.0, max_num_neighbors=32, num_workers=1, ignore_same_index=False):
    return x.new_empty(2, _dynamic(), dtype=torch.int64)


def fps(src, ptr, ratio=0.5, random_start=True):
    return ptr.new_empty(_dynamic())


def graclus_cluster(rowptr, col, weight=None):
    return rowptr.new_empty(rowptr.shape[0] - 1)


def edge_sample(start, rowptr, count=0, factor=1.0):
    return start.new_empty(_dynamic())


# The samplers' outputs are sized by what they draw, and some are lists of ints or dicts: they stay eager-only.
def _eager_only(*args, **kwargs):
    raise NotImplementedError("pyg-lib's samplers run eagerly: their outputs' sizes are drawn at run time")


neighbor_sample = hetero_neighbor_sample = dist_neighbor_sample = _eager_only
relabel_neighborhood = hetero_relabel_neighborhood = merge_sampler_outputs = _eager_only
random_walk = subgraph = metis = _eager_only
'''


def project_copy(tmp_path):
    project = tmp_path / "pyg-lib"
    shutil.copytree(PROJECT, project)
    (project / "pyg_lib" / "csrc" / "config.h").write_text(CONFIG_H)
    return project


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The project imported as the report says, and built: (the import's output, the project, an environment that
    imports the generated package)."""
    tmp_path = tmp_path_factory.mktemp("imported")
    project = project_copy(tmp_path)
    proc = run_opgen("import", *(f"-I{d}" for d in INCLUDE_DIRS.split()), "pyg_lib/csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = proc.stdout
    # Every op, none for a person; the namespace kept (pyg-lib only adds to it: FRAGMENT).
    assert "44 ops imported as schemas/<op>.yaml, 7 of them with their kernels as they are" in report, report
    assert "need a person" not in report and "43 of them need their fake written" in report
    assert sorted(p.name for p in (project / "schemas").glob("*.yaml")) == [f"{op}.yaml" for op in OPS]
    for op in OPS:
        spec = (project / "schemas" / f"{op}.yaml").read_text()
        assert ("\nkernels:\n" in spec) == (op in BOUND), spec
        assert ("dispatch: []  # its kernels are the impls kept in the project's build" in spec) == (
            op not in BOUND), spec
    for path in CLASS_FILES:
        assert re.search(rf"^  note: {path}:\d+-\d+: the block TORCH_LIBRARY_FRAGMENT\(pyg,m\) registers no op", report,
                         re.M), report
    assert ("scatter_sum: Autograd (pyg_lib/csrc/ops/autograd/scatter_kernel.cpp:433; its kernel scatter_sum_autograd "
            "has internal linkage: an anonymous namespace, pyg_lib/csrc/ops/autograd/scatter_kernel.cpp:67), CPU "
            "(pyg_lib/csrc/ops/cpu/scatter_kernel.cpp:516; its kernel scatter_sum_kernel has internal linkage: an "
            "anonymous namespace, pyg_lib/csrc/ops/cpu/scatter_kernel.cpp:29)") in report, report
    # The person's steps, as the report words them: delete the blocks it names...
    blocks = re.findall(r"^    (\S+):(\d+)-(\d+): delete the block (TORCH_LIBRARY_\w+)\(pyg,\w*,?m\) \(the rest of "
                        r"the file stays in the build\)$", report, re.M)
    assert sorted(path for path, _, _, _ in blocks) == sorted(DEF_FILES + IMPL_BLOCKS), report
    for path, first, last, head in sorted(blocks, key=lambda b: -int(b[1])):  # the last first: lines stay put
        lines = (project / path).read_text().splitlines(keepends=True)
        assert lines[int(first) - 1].startswith(head + "(pyg, ") and lines[int(last) - 1] == "}\n", (path, first)
        (project / path).write_text("".join(lines[:int(first) - 1] + lines[int(last):]))
    # ...write the fakes...
    (project / "python" / "_fakes.py").write_text(FAKES)
    # ...and build with the CMake it prints, whole.
    cmake = re.search(r"^    (opgen_add_library\(.*\))\n    (target_include_directories\(.*\))$", report, re.M)
    assert cmake, report
    # The kernels the specs bind are defined in files that stay: the line is whole, no placeholder for their sources;
    # the helpers the kernels call, which register nothing, follow them.
    assert cmake[1].endswith("KERNELS " + " ".join(sorted(KERNEL_FILES + DEF_FILES + CLASS_FILES) + SUPPORT_FILES)
                             + ")"), cmake[1]
    cmake_line = cmake[1]
    # Its include path: the -I given, the directory library.h's includers reach it from, the copied declarations'.
    assert cmake[2] == f"target_include_directories(pyg_ops PRIVATE {INCLUDE_DIRS} pyg_lib/csrc schemas)", cmake[2]
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(pyg_imported CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
{cmake_line}
{cmake[2]}
""")
    _, env = build_with_opgen(project, tmp_path / "build")
    return report, project, env


@pytest.fixture(scope="module")
def own_build(tmp_path_factory):
    """The project's own library: every file unchanged, its defs among them, the same flags. Returns the .so."""
    tmp_path = tmp_path_factory.mktemp("own")
    project = project_copy(tmp_path)
    build = build_projects_own_library(project, tmp_path / "build", "pyg_own",
                                       f"add_library(pyg_own SHARED {' '.join(DEF_FILES + KERNEL_FILES)} "
                                       f"{' '.join(CLASS_FILES + SUPPORT_FILES)})",
                                       include_dirs=INCLUDE_DIRS)
    (library,) = build.glob("libpyg_own*.so")
    return library


# Every op on seeded inputs, in three dtypes: the size given and inferred, an
# `out` accumulated into, a 1-D index broadcast, empty sources and segments, a
# negative dim; gradients through the project's C++ autograd; pyg-lib's random
# kernels (graclus, fps, edge sampling) from the same seeds. An input an op
# refuses is recorded as the exception's type, and must be refused alike.
RUN_OPS = """
import sys, torch
mode, where, out_file = sys.argv[1:4]
if mode == "own":
    torch.ops.load_library(where)
else:
    import pyg
ops = torch.ops.pyg
results = [str(getattr(ops, name).default._schema) for name in {ops!r}]

def flatten(value):  # tensors, and ("key", k) / ("value", repr) for the rest, dicts in key order
    if isinstance(value, torch.Tensor):
        return [value.detach().clone()]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in [("key", k)] + flatten(value[k])]
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in flatten(item)]
    return [("value", repr(value))]

def record(compute):
    try:
        value = compute()
    except Exception as e:
        results.append(type(e).__name__)
        return
    results.extend(flatten(value))

for dtype in (torch.float32, torch.float64, torch.bfloat16):
    for shape, index_shape, dim, n in (((6,), (6,), 0, 4), ((5, 4), (5, 4), 0, 3), ((3, 7, 2), (3, 7, 2), 1, 5),
                                       ((0, 3), (0, 3), 0, 2), ((4, 9), (4, 9), -1, 6), ((6, 3), (6,), 0, 4)):
        for reduce in ("sum", "mul", "mean", "min", "max"):
            op = getattr(ops, "scatter_" + reduce)
            torch.manual_seed(len(results))
            src = (torch.randn(shape, dtype=torch.float64) * 3).to(dtype)
            index = torch.randint(0, n, index_shape)
            record(lambda: op(src, index, dim, None, n))
            record(lambda: op(src, index, dim))
            size = list(shape)
            size[dim] = n
            acc = torch.randn(size, dtype=torch.float64).to(dtype)
            record(lambda: (op(src, index, dim, acc, None), acc))
            leaf = src.clone().requires_grad_()
            def grad():
                result = op(leaf, index, dim, None, n)
                first = result[0] if isinstance(result, tuple) else result
                (first * torch.linspace(-1, 2, first.numel(), dtype=first.dtype).view(first.shape)).sum().backward()
                return leaf.grad
            record(grad)
    # Not an empty source: pyg-lib's softmax kernel divides by src.size(dim) (SIGFPE, in its own build too).
    for shape, dim, ptr in (((7, 3), 0, [0, 2, 5, 7]), ((4, 10), 1, [0, 3, 3, 10]), ((2, 5, 6), 1, [0, 1, 5])):
        torch.manual_seed(len(results))
        src = (torch.randn(shape, dtype=torch.float64) * 3).to(dtype)
        ptr = torch.tensor(ptr)
        record(lambda: ops.softmax_csr(src, ptr, dim))
        out_grad = torch.randn(shape, dtype=torch.float64).to(dtype)
        record(lambda: ops.softmax_csr_backward(ops.softmax_csr(src, ptr, dim), out_grad, ptr, dim))
        leaf = src.clone().requires_grad_()
        def grad():
            (ops.softmax_csr(leaf, ptr, dim) * out_grad).sum().backward()
            return leaf.grad
        record(grad)
# Segments (CSR: sorted by pointer; COO: a sorted index), gathers, values and gradients, with `out` accumulated into.
for dtype in (torch.float32, torch.float64, torch.bfloat16):
    for shape, counts in (((9,), (2, 0, 4, 3)), ((7, 3), (3, 4)), ((2, 6, 4), (1, 2, 0, 3)), ((0, 2), (0, 0))):
        torch.manual_seed(len(results))
        src = (torch.randn(shape, dtype=torch.float64) * 3).to(dtype)
        dim = 0 if len(shape) < 3 else 1
        indptr = torch.tensor([0] + list(counts)).cumsum(0).view([1] * dim + [-1]).expand(*shape[:dim], -1)
        index = torch.repeat_interleave(torch.arange(len(counts)), torch.tensor(counts))
        index = index.view([1] * dim + [-1]).expand(*shape[:dim + 1]).contiguous()
        size = list(shape)
        size[dim] = len(counts)
        for reduce in ("sum", "mean", "min", "max"):
            csr, coo = getattr(ops, f"segment_{{reduce}}_csr"), getattr(ops, f"segment_{{reduce}}_coo")
            record(lambda: csr(src, indptr))
            record(lambda: coo(src, index))
            record(lambda: coo(src, index, None, len(counts) + 1))
            acc = torch.randn(size, dtype=torch.float64).to(dtype)
            record(lambda: (csr(src, indptr, acc), acc))
            acc2 = torch.randn(size, dtype=torch.float64).to(dtype)
            record(lambda: (coo(src, index, acc2), acc2))
            for op, by in ((csr, indptr), (coo, index)):
                leaf = src.clone().requires_grad_()
                def grad():
                    result = op(leaf, by)
                    first = result[0] if isinstance(result, tuple) else result
                    (first * torch.linspace(-1, 2, first.numel(), dtype=first.dtype).view(first.shape)).sum().backward()
                    return leaf.grad
                record(grad)
        segments = (torch.randn(size, dtype=torch.float64) * 3).to(dtype)
        record(lambda: ops.gather_csr(segments, indptr))
        record(lambda: ops.gather_coo(segments, index))
        for op, by in ((ops.gather_csr, indptr), (ops.gather_coo, index)):
            leaf = segments.clone().requires_grad_()
            def grad():
                op(leaf, by).square().sum().backward()
                return leaf.grad
            record(grad)
    # Splines: the basis of pseudo-coordinates, open and closed, degree 1 to 3; the weighting; each backward.
    for degree in (1, 2, 3):
        torch.manual_seed(len(results))
        pseudo = torch.rand(6, 2, dtype=torch.float64).to(dtype)
        kernel_size, is_open = torch.tensor([5, 4]), torch.tensor([1, 0], dtype=torch.uint8)
        record(lambda: ops.spline_basis(pseudo, kernel_size, is_open, degree))
        basis, weight_index = ops.spline_basis(pseudo, kernel_size, is_open, degree)
        x = torch.randn(6, 3, dtype=torch.float64).to(dtype)
        weight = torch.randn(20, 3, 4, dtype=torch.float64).to(dtype)
        record(lambda: ops.spline_weighting(x, weight, basis, weight_index))
        grad_out = torch.randn(6, 4, dtype=torch.float64).to(dtype)
        record(lambda: ops.spline_basis_backward(torch.randn_like(basis), pseudo, kernel_size, is_open, degree))
        record(lambda: ops.spline_weighting_backward_x(grad_out, weight, basis, weight_index))
        record(lambda: ops.spline_weighting_backward_weight(grad_out, x, basis, weight_index, 20))
        record(lambda: ops.spline_weighting_backward_basis(grad_out, x, weight, weight_index))
        leaves = [t.clone().requires_grad_() for t in (pseudo, x, weight)]
        def grad():
            b, i = ops.spline_basis(leaves[0], kernel_size, is_open, degree)
            ops.spline_weighting(leaves[1], leaves[2], b, i).square().sum().backward()
            return tuple(t.grad for t in leaves)
        record(grad)
    # Sampled ops, by index and not; segment and grouped matmuls.
    torch.manual_seed(len(results))
    left, right = (torch.randn(n, 5, dtype=torch.float64).to(dtype) for n in (4, 6))
    li, ri = torch.randint(0, 4, (9,)), torch.randint(0, 6, (9,))
    for op in ("add", "sub", "mul", "div"):
        record(lambda: ops.sampled_op(left, right, li, ri, op))
        record(lambda: ops.sampled_op(left, right[:4], None, None, op))
        leaves = [left.clone().requires_grad_(), right.clone().requires_grad_()]
        def grad():
            ops.sampled_op(leaves[0], leaves[1], li, ri, op).square().sum().backward()
            return tuple(t.grad for t in leaves)
        record(grad)
    inputs = torch.randn(10, 8, dtype=torch.float64).to(dtype)
    ptr = torch.tensor([0, 3, 3, 10])
    other = torch.randn(3, 8, 5, dtype=torch.float64).to(dtype)
    record(lambda: ops.segment_matmul(inputs, ptr, other))
    leaves = [inputs.clone().requires_grad_(), other.clone().requires_grad_()]
    def grad():
        ops.segment_matmul(leaves[0], ptr, leaves[1]).square().sum().backward()
        return tuple(t.grad for t in leaves)
    record(grad)
    record(lambda: tuple(ops.grouped_matmul([inputs[:3], inputs[3:], inputs[:0]], [other[0], other[1], other[2]])))
    # Points: clustering, nearest neighbours, radius graphs, farthest point sampling, in two batches.
    torch.manual_seed(len(results))
    pos = (torch.rand(12, 3, dtype=torch.float64) * 4).to(dtype)
    query = (torch.rand(5, 3, dtype=torch.float64) * 4).to(dtype)
    ptr_x, ptr_y = torch.tensor([0, 7, 12]), torch.tensor([0, 2, 5])
    record(lambda: ops.grid_cluster(pos, torch.tensor([1.0, 1.5, 2.0], dtype=dtype)))
    record(lambda: ops.grid_cluster(pos, torch.tensor([1.0, 1.5, 2.0], dtype=dtype), torch.zeros(3, dtype=dtype),
                                    torch.full((3,), 4.0, dtype=dtype)))
    for k, cosine in ((1, False), (3, False), (2, True)):
        record(lambda: ops.knn(pos, query, None, None, k, cosine))
        record(lambda: ops.knn(pos, query, ptr_x, ptr_y, k, cosine))
    record(lambda: ops.nearest(query, pos))
    record(lambda: ops.nearest(query, pos, ptr_y, ptr_x))
    for r, most in ((1.0, 32), (2.5, 2)):
        record(lambda: ops.radius(pos, query, None, None, r, most))
        record(lambda: ops.radius(pos, query, ptr_x, ptr_y, r, most, 1, False))
        record(lambda: ops.radius(pos, pos, None, None, r, most, 1, True))
    for ratio, random_start in ((0.5, False), (0.3, True)):
        record(lambda: ops.fps(pos, ptr_x, ratio, random_start))
# Graphs (CSR): a random clustering matching, sampled edges, a sort by index.
for seed in range(3):
    torch.manual_seed(seed)
    col = torch.randint(0, 8, (20,))
    rowptr = torch.tensor([0, 2, 5, 5, 9, 12, 15, 18, 20])
    record(lambda: ops.graclus_cluster(rowptr, col))
    record(lambda: ops.graclus_cluster(rowptr, col, torch.rand(20, dtype=torch.float64)))
    start = torch.tensor([0, 1, 3, 4, 7])
    record(lambda: ops.edge_sample(start, rowptr, 2))
    record(lambda: ops.edge_sample(start, rowptr, 0, 0.5))
    indices = torch.randint(0, 1000, (257,))
    record(lambda: ops.index_sort(indices))
    record(lambda: ops.index_sort(indices, 1000))
# Samplers: homogeneous and heterogeneous neighbour sampling (uniform, weighted, temporal; disjoint or not), the
# relabelling and merging the distributed sampler does, random walks, subgraphs.
record(lambda: ops.cuda_version())
record(lambda: ops.metis(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), 2))
for seed in range(3):
    torch.manual_seed(seed)
    rowptr, col = torch.tensor([0, 3, 5, 9, 10, 12, 15, 17, 20]), torch.randint(0, 8, (20,))
    seeds = torch.tensor([0, 3, 6])
    for num_neighbors, replace, disjoint in (([2, 2], False, False), ([3, -1], True, False), ([1, 2], False, True)):
        record(lambda: ops.neighbor_sample(rowptr, col, seeds, num_neighbors, None, None, None, None, False, replace,
                                           True, disjoint))
    record(lambda: ops.neighbor_sample(rowptr, col, seeds, [2, 2], None, None, None, torch.rand(20)))
    node_time = torch.zeros(8, dtype=torch.int64)  # a neighbourhood's times must be sorted
    record(lambda: ops.neighbor_sample(rowptr, col, seeds, [2, 2], node_time, None, None, None, False, False, True,
                                       True, "last"))
    record(lambda: ops.dist_neighbor_sample(rowptr, col, seeds, 2))
    record(lambda: ops.dist_neighbor_sample(rowptr, col, seeds, -1, None, None, None, None, False, False, True, True))
    node_types, edge_types = ["paper", "author"], [("paper", "cites", "paper"), ("author", "writes", "paper")]
    rel = ["paper__cites__paper", "author__writes__paper"]
    rowptr_dict = {{rel[0]: rowptr, rel[1]: torch.tensor([0, 2, 4, 6, 8, 10, 12, 14, 16])}}
    col_dict = {{rel[0]: col, rel[1]: torch.randint(0, 5, (16,))}}
    seed_dict = {{"paper": torch.tensor([1, 2])}}
    record(lambda: ops.hetero_neighbor_sample(node_types, edge_types, rowptr_dict, col_dict, seed_dict,
                                              {{rel[0]: [2, 1], rel[1]: [1, 1]}}, None, None, None, None, True))
    record(lambda: ops.random_walk(rowptr, col, seeds, 4, 1.0, 1.0))
    record(lambda: ops.subgraph(rowptr, col, torch.tensor([0, 2, 3, 7]), True))
    record(lambda: ops.subgraph(rowptr, col, torch.tensor([1, 4]), False))
    sampled = torch.tensor([0, 3, 6, 5, 2, 6, 1, 7, 4])
    record(lambda: ops.relabel_neighborhood(seeds, sampled, [2, 2, 2], 8))
    record(lambda: ops.relabel_neighborhood(seeds, sampled, [2, 2, 2], 8, None, True))
    record(lambda: ops.hetero_relabel_neighborhood(node_types, edge_types, {{"paper": seeds}},
                                                   {{"paper": sampled, "author": torch.tensor([1, 4, 2])}},
                                                   {{rel[0]: [[2, 2, 2]], rel[1]: [[1, 1, 1]]}},
                                                   {{"paper": 8, "author": 5}}))
node_ids = [torch.tensor([2, 7, 8]), torch.tensor([0, 1, 4, 5, 6]), torch.tensor([3, 9, 10])]
edge_ids = [torch.tensor([17, 18]), torch.tensor([14, 15, 16]), torch.tensor([19, 20])]
for num_neighbors in (2, -1):
    record(lambda: ops.merge_sampler_outputs(node_ids, edge_ids, [[1, 3], [2, 4, 5], [1, 3]], [1, 1, 0, 2],
                                             [0, 1, 0, 0], 3, num_neighbors, None, False))
torch.save(results, out_file)
print("ok")
"""


def test_every_op_gives_the_projects_own_results_and_gradients_bit_for_bit(imported, own_build, tmp_path):
    import torch
    _, project, env = imported
    code = RUN_OPS.format(ops=OPS)
    run_saving_results(code.replace("sys.argv[1:4]", f"['own', {str(own_build)!r}, sys.argv[1]]"),
                       tmp_path / "own.pt", project, env)
    run_saving_results(code.replace("sys.argv[1:4]", "['imported', '', sys.argv[1]]"), tmp_path / "imported.pt",
                       project, env)
    computed, others = compare_saved_results(torch.load(tmp_path / "own.pt"), torch.load(tmp_path / "imported.pt"),
                                             len(OPS))
    # Every case in three dtypes, values and gradients, but those refused alike: softmax's bfloat16 (its CPU
    # kernel dispatches float and double), each of its 3 cases x 3 results, 9 refusals of each kind; nearest's
    # bfloat16 (NotImplementedError), knn's cosine distance on a CPU (RuntimeError), twice in each dtype; metis,
    # which a build without METIS refuses (RuntimeError). The samplers' lists and dicts are compared as values.
    assert computed == 1535, computed
    refused = [x for x in others if isinstance(x, str)]  # the samplers' other values are ("key", k), ("value", v)
    assert sorted(refused) == ["NotImplementedError"] * 11 + ["RuntimeError"] * 16, refused


CHECKS = """
import torch, pyg
from torch.library import opcheck
ops = torch.ops.pyg
torch.manual_seed(0)
src = torch.randn(6, 4, requires_grad=True)
index = torch.randint(0, 3, (6, 4))
for reduce in ("sum", "mul", "mean", "min", "max"):
    result = opcheck(getattr(ops, "scatter_" + reduce).default, (src, index, 0, None, 3))
    assert set(result.values()) == {"SUCCESS"}, (reduce, result)
ptr = torch.tensor([0, 2, 6])
# Without a gradient: pyg-lib's backward refuses a non-contiguous out_grad (the expanded ones opcheck's sum gives
# it), in its own build too. Its gradients are compared below, and bit for bit with its own build above.
result = opcheck(ops.softmax_csr.default, (src.detach(), ptr, 0))
assert set(result.values()) == {"SUCCESS"}, result
out = ops.softmax_csr(src.detach(), ptr, 0)
result = opcheck(ops.softmax_csr_backward.default, (out, torch.randn(6, 4), ptr, 0))
assert set(result.values()) == {"SUCCESS"}, result

# The other families: each op once, with gradients where pyg-lib's autograd kernels can be traced. Not for the
# segments and gathers, whose backward writes an `out=` the schema does not declare written (below). The Autograd
# kernels of spline_basis, sampled_op and segment_matmul (the project's C++ Functions, kept) read sizes as plain
# integers, which AOT autograd's dynamic shapes refuse, with or without a gradient: those three are checked without
# test_aot_dispatch_dynamic, as is edge_sample, which draws with std::rand (a second run, AOT's, draws other edges).
indptr, sorted_index = torch.tensor([0, 2, 2, 6]), torch.tensor([0, 0, 2, 2, 2, 2])
segments = torch.randn(3, 4, requires_grad=True)
pseudo = torch.rand(6, 2, dtype=torch.float64)
kernel_size, is_open = torch.tensor([5, 4]), torch.tensor([1, 0], dtype=torch.uint8)
basis, weight_index = ops.spline_basis(pseudo, kernel_size, is_open, 2)
x, weight = torch.randn(6, 3, dtype=torch.float64), torch.randn(20, 3, 4, dtype=torch.float64)
grad_out = torch.randn(6, 4, dtype=torch.float64)
pos, query = torch.rand(12, 3) * 4, torch.rand(5, 3) * 4
ptr_x, ptr_y = torch.tensor([0, 7, 12]), torch.tensor([0, 2, 5])
rowptr, col = torch.tensor([0, 2, 5, 5, 9, 12, 15, 18, 20]), torch.randint(0, 8, (20,))
cases = [(getattr(ops, f"segment_{reduce}_csr").default, (src.detach(), indptr))
         for reduce in ("sum", "mean", "min", "max")]
cases += [(getattr(ops, f"segment_{reduce}_coo").default, (src.detach(), sorted_index, None, 3))
          for reduce in ("sum", "mean", "min", "max")]
cases += [
    (ops.gather_csr.default, (segments.detach(), indptr)),
    (ops.gather_coo.default, (segments.detach(), sorted_index)),
    (ops.spline_basis.default, (pseudo, kernel_size, is_open, 2)),
    (ops.spline_weighting.default, (x.clone().requires_grad_(), weight.clone().requires_grad_(), basis,
                                    weight_index)),
    (ops.spline_basis_backward.default, (torch.randn_like(basis), pseudo, kernel_size, is_open, 2)),
    (ops.spline_weighting_backward_x.default, (grad_out, weight, basis, weight_index)),
    (ops.spline_weighting_backward_weight.default, (grad_out, x, basis, weight_index, 20)),
    (ops.spline_weighting_backward_basis.default, (grad_out, x, weight, weight_index)),
    (ops.sampled_op.default, (src.detach(), torch.randn(5, 4), torch.tensor([0, 5, 1]), torch.tensor([4, 0, 2]),
                              "mul")),
    (ops.segment_matmul.default, (torch.randn(7, 4), torch.tensor([0, 3, 7]), torch.randn(2, 4, 5))),
    (ops.grouped_matmul.default, ([torch.randn(3, 4), torch.randn(2, 4)], [torch.randn(4, 5), torch.randn(4, 2)])),
    (ops.index_sort.default, (torch.randint(0, 100, (50,)), 100)),
    (ops.grid_cluster.default, (pos, torch.tensor([1.0, 1.5, 2.0]))),
    (ops.nearest.default, (query, pos, ptr_y, ptr_x)),
    (ops.knn.default, (pos, query, ptr_x, ptr_y, 3)),
    (ops.radius.default, (pos, query, ptr_x, ptr_y, 2.0, 4)),
    (ops.fps.default, (pos, ptr_x, 0.5, False)),
    (ops.graclus_cluster.default, (rowptr, col)),
    (ops.edge_sample.default, (torch.tensor([0, 1, 3]), rowptr, 2)),
]
static = (ops.spline_basis.default, ops.sampled_op.default, ops.segment_matmul.default, ops.edge_sample.default)
for op, args in cases:
    utils = ("test_schema", "test_autograd_registration", "test_faketensor") + (
        () if op in static else ("test_aot_dispatch_dynamic",))
    result = opcheck(op, args, test_utils=utils)
    assert set(result.values()) == {"SUCCESS"} and len(result) == len(utils), (op, result)

def f(src, index):
    total = ops.scatter_sum(src, index, 0, None, 3)
    largest, _ = ops.scatter_max(src, index, 0, None, 3)
    return ops.softmax_csr(total * 2 + largest, torch.tensor([0, 1, 3]), 0)

compiled = torch.compile(f, fullgraph=True)
for rows in (6, 9):
    x = torch.randn(rows, 4)
    i = torch.randint(0, 3, (rows, 4))
    assert torch.equal(compiled(x, i), f(x, i)), rows
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    compiled(a, i).square().sum().backward()
    f(b, i).square().sum().backward()
    assert torch.equal(a.grad, b.grad), rows

def g(pos, query, pseudo, x):
    cluster = ops.grid_cluster(pos, torch.tensor([1.0, 1.5, 2.0]))
    nearest = ops.nearest(query, pos)
    basis, weight_index = ops.spline_basis(pseudo, kernel_size, is_open, 1)
    weighted = ops.spline_weighting(x, weight, basis, weight_index)
    largest, arg = ops.segment_max_csr(weighted, torch.tensor([0, 2, pseudo.shape[0]]))
    mixed = ops.segment_matmul(weighted, torch.tensor([0, 1, pseudo.shape[0]]), weight[:2].transpose(1, 2))
    return cluster, nearest, largest * 2, arg, mixed

compiled = torch.compile(g, fullgraph=True)
for rows in (6, 9):
    args = (torch.rand(rows, 3) * 4, torch.rand(4, 3) * 4, torch.rand(rows, 2, dtype=torch.float64),
            torch.randn(rows, 3, dtype=torch.float64))
    for got, want in zip(compiled(*args), g(*args)):
        assert torch.equal(got, want), rows
print("ok")
"""


def test_the_imported_ops_pass_opcheck_and_compile_to_the_same_bits(imported):
    _, project, env = imported
    run_check(CHECKS, env, project)


# pyg-lib's `out=` arguments are written and returned (the result is `out`), but its schemas say `Tensor? out=None)
# -> Tensor`: neither written nor aliased. opcheck's schema check, which needs no fake, says so in the project's own
# build as in the imported one; the schemas are imported as written. Under AOT autograd the same lie breaks the sum
# and mean segments' gradients, whose backward calls gather_csr/gather_coo with an `out=`.
OUT_ALIASES = """
import sys, torch
if sys.argv[1]:
    torch.ops.load_library(sys.argv[1])
else:
    import pyg
from torch.library import opcheck
ops = torch.ops.pyg
src, indptr, index = torch.randn(6, 4), torch.tensor([0, 2, 2, 6]), torch.tensor([0, 0, 2, 2, 2, 2])
for op, args in ((ops.scatter_sum, (src, index.view(6, 1).expand(6, 4), 0, torch.zeros(3, 4))),
                 (ops.segment_sum_csr, (src, indptr, torch.zeros(3, 4))),
                 (ops.segment_sum_coo, (src, index, torch.zeros(3, 4))),
                 (ops.gather_csr, (torch.randn(3, 4), indptr, torch.zeros(6, 4)))):
    try:
        opcheck(op.default, args, test_utils=("test_schema",))
        print("passed")
    except Exception as e:
        print(str(e).splitlines()[0])
"""


def test_the_projects_out_arguments_alias_their_result_unannotated_in_both_builds(imported, own_build):
    _, project, env = imported
    said = []
    for library in (str(own_build), ""):
        proc = subprocess.run([sys.executable, "-c", OUT_ALIASES, library], cwd=project, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        said.append(proc.stdout)
    assert said[0] == said[1], said
    assert said[0].splitlines() == ["opcheck(op, ...): test_schema failed with Argument out is not defined to alias "
                                    "output but was aliasing (scroll up for stack trace)"] * 4, said[0]
