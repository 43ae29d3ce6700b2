"""A second real CPU project switches to opgen with one `opgen import`, its
kernels unchanged, and gives its own results bit for bit (issue 34, item 8).

The project is pyg-lib's `scatter` and `softmax` ops (tests/import/projects/,
verbatim, provenance in its README): one file per op family defines the
schemas (`TORCH_LIBRARY_FRAGMENT(pyg, m)`, `TORCH_SELECTIVE_SCHEMA("pyg::...")`)
beside the C++ API wrappers that call them through the dispatcher; the CPU
kernels sit in anonymous namespaces of their own files, with their
TORCH_LIBRARY_IMPL blocks; the gradients are C++ autograd Functions
registered for Autograd (and scatter_mean for CompositeExplicitAutograd).
pyg-lib has no fakes.

Import keeps the namespace and every schema as written; the kernels have
internal linkage, so their impls stay in the project's build, as the Autograd
impls do, and the specs own the defs, the fakes and the tests. The person's
steps are the report's: delete the def blocks it names, write the fakes it
asks for, build with the CMake it prints. Then the project's own library and
the imported one, each in a process of its own, run every op on the same
seeded inputs (values and gradients), and every result is compared bit for
bit; the imported ops pass opcheck and compile with fullgraph=True.

Needs the built tool: run through CTest.
"""

import re
import shutil
import subprocess
import sys

import pytest

from cli_helpers import (SOURCE_DIR, build_projects_own_library, build_with_opgen, requires_opgen, run_opgen,
                         run_saving_results)

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "pyg-team__pyg-lib"
OPS = ["scatter_sum", "scatter_mul", "scatter_mean", "scatter_min", "scatter_max", "softmax_csr",
       "softmax_csr_backward"]
KERNEL_FILES = ["pyg_lib/csrc/ops/cpu/scatter_kernel.cpp", "pyg_lib/csrc/ops/cpu/softmax_kernel.cpp",
                "pyg_lib/csrc/ops/autograd/scatter_kernel.cpp", "pyg_lib/csrc/ops/autograd/softmax_kernel.cpp"]
DEF_FILES = ["pyg_lib/csrc/ops/scatter.cpp", "pyg_lib/csrc/ops/softmax.cpp"]

# The fakes the report asks for (pyg-lib has none): what a person writes,
# from the kernels' output shapes. An output sized by the index's largest
# value, when dim_size is not given, has a size only the data decides.
FAKES = '''import torch


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
        sizes[dim] = torch.library.get_ctx().new_dynamic_size()
    return src.new_empty(sizes)


def scatter_sum(src, index, dim=-1, out=None, dim_size=None):
    return _scatter_result(src, index, dim, out, dim_size)


scatter_mul = scatter_mean = scatter_sum


def scatter_min(src, index, dim=-1, out=None, dim_size=None):
    result = _scatter_result(src, index, dim, out, dim_size)
    return result, index.new_empty(result.shape)


scatter_max = scatter_min


def softmax_csr(src, ptr, dim=0):
    return torch.empty_like(src)


def softmax_csr_backward(out, out_grad, ptr, dim=0):
    return torch.empty_like(out)
'''


def project_copy(tmp_path):
    project = tmp_path / "pyg-lib"
    shutil.copytree(PROJECT, project)
    return project


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The project imported as the report says, and built: (the import's output, the project, an environment that
    imports the generated package)."""
    tmp_path = tmp_path_factory.mktemp("imported")
    project = project_copy(tmp_path)
    proc = run_opgen("import", "-I", ".", "pyg_lib/csrc/ops", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = proc.stdout
    # Every op, none for a person; the namespace kept (pyg-lib only adds to it: FRAGMENT).
    assert "7 ops imported as schemas/<op>.yaml, 0 of them with their kernels as they are" in report, report
    assert "need a person" not in report and "7 of them need their fake written" in report
    for spec in (project / "schemas").glob("*.yaml"):
        assert "dispatch: []  # its kernels are the impls kept in the project's build" in spec.read_text()
    assert ("scatter_sum: Autograd (pyg_lib/csrc/ops/autograd/scatter_kernel.cpp:433; its kernel scatter_sum_autograd "
            "has internal linkage: an anonymous namespace, pyg_lib/csrc/ops/autograd/scatter_kernel.cpp:67), CPU "
            "(pyg_lib/csrc/ops/cpu/scatter_kernel.cpp:516; its kernel scatter_sum_kernel has internal linkage: an "
            "anonymous namespace, pyg_lib/csrc/ops/cpu/scatter_kernel.cpp:29)") in report, report
    # The person's steps, as the report words them: delete the blocks it names...
    blocks = re.findall(r"^    (\S+):(\d+)-(\d+): delete the block TORCH_LIBRARY_FRAGMENT\(pyg,m\) \(the rest of the "
                        r"file stays in the build\)$", report, re.M)
    assert sorted(path for path, _, _ in blocks) == DEF_FILES, report
    for path, first, last in blocks:
        lines = (project / path).read_text().splitlines(keepends=True)
        assert lines[int(first) - 1].startswith("TORCH_LIBRARY_FRAGMENT(pyg, m) {") and lines[int(last) - 1] == "}\n"
        (project / path).write_text("".join(lines[:int(first) - 1] + lines[int(last):]))
    # ...write the fakes...
    (project / "python" / "_fakes.py").write_text(FAKES)
    # ...and build with the CMake it prints, whole.
    cmake = re.search(r"^    (opgen_add_library\(.*\))\n    (target_include_directories\(.*\))$", report, re.M)
    assert cmake, report
    assert cmake[1].endswith("KERNELS " + " ".join(sorted(KERNEL_FILES + DEF_FILES)) + ")"), cmake[1]
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(pyg_imported CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
{cmake[1]}
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
                                       f"add_library(pyg_own SHARED {' '.join(DEF_FILES + KERNEL_FILES)})",
                                       include_dirs=".")
    (library,) = build.glob("libpyg_own*.so")
    return library


# Every op on seeded inputs, in three dtypes: the size given and inferred, an
# `out` accumulated into, a 1-D index broadcast, an empty source, a negative
# dim; gradients through the project's C++ autograd. An input an op refuses is
# recorded as the exception's type, and must be refused alike.
RUN_OPS = """
import sys, torch
mode, where, out_file = sys.argv[1:4]
if mode == "own":
    torch.ops.load_library(where)
else:
    import pyg
ops = torch.ops.pyg
results = [str(getattr(ops, name).default._schema) for name in {ops!r}]

def record(compute):
    try:
        value = compute()
    except Exception as e:
        results.append(type(e).__name__)
        return
    flat = []
    for v in value if isinstance(value, tuple) else (value,):
        flat.extend(v if isinstance(v, tuple) else (v,))
    results.extend(t.detach().clone() for t in flat)

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
    own, mine = torch.load(tmp_path / "own.pt"), torch.load(tmp_path / "imported.pt")
    assert len(own) == len(mine)
    assert own[:len(OPS)] == mine[:len(OPS)]  # the schemas, as registered
    computed = 0
    for i, (a, b) in enumerate(zip(own, mine)):
        assert type(a) is type(b), (i, a, b)
        if isinstance(a, torch.Tensor):
            assert a.dtype == b.dtype and a.shape == b.shape, (i, a, b)
            assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8)), (i, a, b)
            computed += 1
        else:
            assert a == b, (i, a, b)
    # Every scatter case in three dtypes, values and gradients; softmax refuses bfloat16 alike (its CPU kernel
    # dispatches float and double), each of its 3 cases x 3 results: 9 refusals of each kind.
    assert computed == 567, computed
    refused = [x for x in mine[len(OPS):] if isinstance(x, str)]
    assert sorted(refused) == ["NotImplementedError"] * 9 + ["RuntimeError"] * 9, refused


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
print("ok")
"""


def test_the_imported_ops_pass_opcheck_and_compile_to_the_same_bits(imported):
    _, project, env = imported
    proc = subprocess.run([sys.executable, "-c", CHECKS], cwd=project, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-6000:]
