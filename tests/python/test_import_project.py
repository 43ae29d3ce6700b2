"""A real project becomes a building, loading opgen project with one
`opgen import` and no edit to its kernels.

The project is kernels-community's `activation` (tests/import/projects/,
verbatim, provenance in tests/import/sources/MANIFEST.json). Its binding file
defines each op twice: for the stable ABI under `#if defined(CUDA_KERNEL)`
and for the unstable one under `#else`, where per-backend `#if`s pick the
impls (MPS, CPU). A build reads one configuration; so does import, with
`--define`. The CPU configuration is built here through opgen_add_library
with the project's own CPU kernel files (its AVX512 file included, compiled
with the flags the project gives it), loaded, checked against PyTorch's
silu and put through opcheck. The CUDA configuration (stable ABI) is built
with the project's CUDA file, unchanged, when nvcc is here, and loaded: its
kernels run only on a GPU, its registrations and fakes are checked here.

Needs the built tool: run through CTest.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import SOURCE_DIR, build_projects_own_library, build_with_opgen, requires_opgen, run_opgen

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "huggingface__kernels-community" / "activation"
BINDING = "torch-ext/torch_binding.cpp"
OPS = ["silu_and_mul", "mul_and_silu", "gelu_and_mul", "gelu_tanh_and_mul", "fatrelu_and_mul", "gelu_new",
       "gelu_fast", "gelu_quick", "gelu_tanh", "silu", "gelu"]


def project_copy(tmp_path):
    project = tmp_path / "activation"
    shutil.copytree(PROJECT, project)
    return project


def source_schemas(abi_block):
    """The schemas the binding file defines in one of its two blocks, as written."""
    text = (PROJECT / BINDING).read_text()
    start = text.index(abi_block)
    return re.findall(r'ops\.def\("([^"]*)"\)', text[start:text.index("\n}\n", start)])


def test_without_a_configuration_each_op_is_refused_with_the_way_out(tmp_path):
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--namespace", "activation", BINDING, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in (project / "schemas").iterdir()) == sorted(f"{op}.yaml.todo" for op in OPS)
    assert "0 ops imported" in proc.stdout
    assert "defined twice, stable ABI at torch-ext/torch_binding.cpp:16 (under #if defined(CUDA_KERNEL) || " \
           "defined(ROCM_KERNEL)) and unstable ABI at torch-ext/torch_binding.cpp:67" in proc.stdout, proc.stdout
    assert "--define" in proc.stdout


def test_the_cuda_configuration_imports_every_op_on_the_stable_abi(tmp_path):
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--namespace", "activation", "--define", "CUDA_KERNEL", BINDING, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "11 ops imported as schemas/<op>.yaml, 11 of them with their kernels as they are" in proc.stdout
    # The CMake to build them, and registration.h (kernel-builder's, not in the project) left out. The
    # binding file holds nothing but the registrations the specs now make: it leaves the build.
    assert "    drop torch-ext/torch_binding.cpp (nothing in it but those registrations)\n" in proc.stdout, proc.stdout
    assert "    opgen_add_library(activation_ops NAMESPACE activation SCHEMAS schemas KERNELS <the kernels' sources>)\n" \
           "    target_include_directories(activation_ops PRIVATE torch-ext)\n" \
           "    target_compile_definitions(activation_ops PRIVATE CUDA_KERNEL)\n" in proc.stdout, proc.stdout
    assert "declared in torch_binding.h; left out: registration.h (not beside it)" in proc.stdout
    written = {}
    for spec in sorted((project / "schemas").glob("*.yaml")):
        text = spec.read_text()
        assert "abi: stable\ndispatch: [CUDA]\nkernels:\n  include: \"torch_binding.h\"\n" in text, text
        assert f'  CUDA: "{spec.stem}"\n' in text
        written[spec.stem] = json.loads(re.search(r"^schema: (\".*\")$", text, re.M)[1])
    assert sorted(written) == sorted(OPS)
    assert sorted(written.values()) == sorted(source_schemas("STABLE_TORCH_LIBRARY_EXPAND"))
    check = run_opgen("check", "--namespace", "activation", *sorted((project / "schemas").glob("*.yaml")))
    assert check.returncode == 0, check.stderr


def build(project, tmp_path, cmake_lists, *options):
    (project / "CMakeLists.txt").write_text(cmake_lists)
    output, env = build_with_opgen(project, tmp_path / "build", *options)
    # Warnings may come from the project's own files (its AVX512 file: GCC's intrinsics headers), none from opgen's.
    generated_warnings = [line for line in output.splitlines()
                          if "warning:" in line and "activation_ops_generated" in line]
    assert not generated_warnings, generated_warnings
    return env


def test_the_cuda_configuration_builds_with_the_projects_cuda_file_and_loads(tmp_path):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(nvcc).exists():
        pytest.skip("no nvcc")
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--namespace", "activation", "-D", "CUDA_KERNEL", BINDING, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = build(project, tmp_path, f"""cmake_minimum_required(VERSION 3.25)
project(activation_imported CXX CUDA)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(activation_ops NAMESPACE activation SCHEMAS schemas KERNELS activation/activation_kernels.cu)
target_include_directories(activation_ops PRIVATE torch-ext activation)
target_compile_definitions(activation_ops PRIVATE CUDA_KERNEL)
""", "-DOPGEN_ENABLE_CUDA=ON", f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_CUDA_ARCHITECTURES=90a")
    check = subprocess.run([sys.executable, "-c", f"""
import torch, activation
ops = {OPS!r}
for name in ops:
    op = getattr(torch.ops.activation, name).default
    table = torch._C._dispatch_dump(f"activation::{{name}}")
    assert "CUDA: registered at" in table and "CPU: registered" not in table, table
# A mutating op with no outputs traces without a fake of its own: on meta tensors, as torch.compile sees it.
x, out = torch.empty(4, 16, device="meta"), torch.empty(4, 8, device="meta")
torch.ops.activation.fatrelu_and_mul(out, x, 0.5)
print("cuda configuration loads")
"""], env=env, capture_output=True, text=True)
    assert check.returncode == 0 and "cuda configuration loads" in check.stdout, check.stdout + check.stderr


CPU_KERNELS = ["activation_cpu/silu_and_mul_cpu_torch.cpp", "activation_cpu/silu_and_mul_cpu.cpp",
               "activation_cpu/silu_and_mul_avx512.cpp"]
# The project's own flags for its AVX512 file (its build.toml): it is chosen at run time, by CPU.
AVX512_FLAGS = """set_source_files_properties(activation_cpu/silu_and_mul_avx512.cpp PROPERTIES COMPILE_OPTIONS
  "-O3;-mf16c;-mavx512f;-mavx512bf16;-mavx512vl;-mavx512dq;-mavx512bw;-DCPU_CAPABILITY_AVX512;-DCPU_CAPABILITY=AVX512")
"""


@pytest.fixture(scope="module")
def cpu_import(tmp_path_factory):
    """The CPU configuration imported and built once, for the tests below: (the import's output, the project, an
    environment that imports its package)."""
    tmp_path = tmp_path_factory.mktemp("cpu")
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--namespace", "activation", "-D", "CPU_KERNEL", BINDING, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = build(project, tmp_path, f"""cmake_minimum_required(VERSION 3.25)
project(activation_imported CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
{AVX512_FLAGS}opgen_add_library(activation_ops NAMESPACE activation SCHEMAS schemas KERNELS {" ".join(CPU_KERNELS)})
target_include_directories(activation_ops PRIVATE torch-ext activation_cpu)
target_compile_definitions(activation_ops PRIVATE CPU_KERNEL)
""")
    return proc, project, env


def test_the_cpu_configuration_builds_loads_and_runs_the_projects_kernel(cpu_import):
    proc, project, env = cpu_import
    # The CPU build registers silu_and_mul's kernel and the other schemas with none (their impls stand
    # under #if branches it leaves out): imported as that build registers them, the schema alone.
    assert "11 ops imported as schemas/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout
    assert "10 of them with the schema alone (dispatch: [])" in proc.stdout and "need a person" not in proc.stdout
    gelu = (project / "schemas" / "gelu.yaml").read_text()
    assert gelu.endswith("its impls are in other configurations: CUDA (torch-ext/torch_binding.cpp:58, under "
                         "#if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)); MPS (torch-ext/torch_binding.cpp:130, "
                         "under #else (after #if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)) && "
                         "#if defined(METAL_KERNEL))\ndispatch: []\n"), gelu
    spec = (project / "schemas" / "silu_and_mul.yaml").read_text()
    assert 'abi: unstable\ndispatch: [CPU]\nkernels:\n  include: "torch_binding.h"\n  CPU: "silu_and_mul"\n' in spec
    check = subprocess.run([sys.executable, "-c", """
import torch, activation
import torch.nn.functional as F
from torch.library import opcheck
op = torch.ops.activation.silu_and_mul.default
assert str(op._schema) == str(torch._C.parse_schema("activation::silu_and_mul(Tensor! out, Tensor input) -> ()"))
for dtype, shape in ((torch.float32, (3, 5, 12)), (torch.bfloat16, (4, 64)), (torch.float64, (2, 2))):
    x = torch.randn(shape, dtype=dtype)
    d = shape[-1] // 2
    out = torch.empty(*shape[:-1], d, dtype=dtype)
    op(out, x)
    torch.testing.assert_close(out, F.silu(x[..., :d]) * x[..., d:])
    result = opcheck(op, (out, x))
    assert set(result.values()) == {"SUCCESS"}, result
print("silu_and_mul ok")
"""], env=env, capture_output=True, text=True)
    assert check.returncode == 0 and "silu_and_mul ok" in check.stdout, check.stdout + check.stderr


# kernel-builder's registration.h, which the binding file includes and the
# repository does not hold: the two macros it uses, as kernel-builder (and
# vLLM's registration.h) define them.
REGISTRATION_H = """#pragma once
#include <Python.h>
#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)
#define _STRINGIFY(A) #A
#define STRINGIFY(A) _STRINGIFY(A)
#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)
#define REGISTER_EXTENSION(NAME)                                                                      \\
  PyMODINIT_FUNC CONCAT(PyInit_, NAME)() {                                                            \\
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(NAME), nullptr, 0, nullptr}; \\
    return PyModule_Create(&module);                                                                  \\
  }
"""


@pytest.fixture(scope="module")
def cpu_own_build(tmp_path_factory):
    """The project's own CPU extension, as kernel-builder builds it: its binding file and kernel files
    unchanged, TORCH_EXTENSION_NAME=activation, the same compiler flags as the imported build. Returns the .so."""
    tmp_path = tmp_path_factory.mktemp("own")
    project = project_copy(tmp_path)
    (project / "kernel_builder").mkdir()
    (project / "kernel_builder" / "registration.h").write_text(REGISTRATION_H)
    build = build_projects_own_library(
        project, tmp_path / "build", "_activation",
        f"add_library(_activation MODULE torch-ext/torch_binding.cpp {' '.join(CPU_KERNELS)})\n"
        'set_target_properties(_activation PROPERTIES PREFIX "")  # _activation.so, the module kernel-builder names',
        include_dirs="torch-ext activation_cpu kernel_builder", definitions="CPU_KERNEL TORCH_EXTENSION_NAME=activation",
        python_module=True, before=AVX512_FLAGS)
    (library,) = build.glob("_activation*.so")
    return library


# Every op of the binding file on seeded inputs: shapes with odd and even
# widths, a 3-D batch, an empty batch, a wide row; four dtypes. An op without
# a CPU kernel in this configuration is refused alike.
RUN_OPS = """
import sys, torch
mode, where, out_file = sys.argv[1:4]
if mode == "own":
    torch.ops.load_library(where)
else:
    import activation
OPS = {ops!r}
results = {{}}
for name in OPS:
    op = getattr(torch.ops.activation, name).default
    cases = []
    for dtype in (torch.float32, torch.bfloat16, torch.float64, torch.float16):
        for shape in ((1, 2), (4, 64), (3, 5, 130), (0, 8), (7, 4096)):
            torch.manual_seed(len(cases))
            x = torch.randn(shape, dtype=dtype) * 4
            out = torch.full((*shape[:-1], shape[-1] // 2), float("nan"), dtype=dtype)
            args = (out, x, 0.5) if name == "fatrelu_and_mul" else (out, x)
            try:
                op(*args)
                cases.append(("ok", out))
            except Exception as e:
                cases.append(("raised", type(e).__name__))
    results[name] = {{"schema": str(op._schema), "cases": cases}}
torch.save(results, out_file)
"""


def run_ops(mode, where, out_file, env=None):
    proc = subprocess.run([sys.executable, "-c", RUN_OPS.format(ops=OPS), mode, str(where), str(out_file)],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import torch
    return torch.load(out_file)


def test_the_cpu_configuration_gives_the_projects_own_results_bit_for_bit(cpu_import, cpu_own_build, tmp_path):
    """Issue 34's proof of adoption: the project's own build and the imported one, each in its own process
    (both register the namespace activation), on the same seeded inputs."""
    import torch
    _, _, env = cpu_import
    own = run_ops("own", cpu_own_build, tmp_path / "own.pt")
    imported = run_ops("imported", "", tmp_path / "imported.pt", env)
    assert sorted(own) == sorted(imported) == sorted(OPS)
    computed = 0
    for name in OPS:
        assert own[name]["schema"] == imported[name]["schema"], name
        for i, (mine, theirs) in enumerate(zip(imported[name]["cases"], own[name]["cases"], strict=True)):
            assert mine[0] == theirs[0], (name, i, mine, theirs)
            if mine[0] == "ok":
                a, b = mine[1], theirs[1]
                assert a.dtype == b.dtype and a.shape == b.shape, (name, i)
                assert torch.equal(a.view(-1).view(torch.uint8), b.view(-1).view(torch.uint8)), (name, i)
                computed += 1
            else:
                assert mine[1] == theirs[1], (name, i, mine, theirs)
    # silu_and_mul computes in four dtypes x five shapes; the ops with no CPU kernel are refused alike.
    assert computed == 20
    assert all(case == ("raised", "NotImplementedError") for name in OPS if name != "silu_and_mul"
               for case in own[name]["cases"])


def test_the_cpu_configuration_compiles_to_the_same_bits(cpu_import):
    """torch.compile(fullgraph=True) of the imported op (a mutating op the graph keeps whole) gives the eager bits."""
    _, _, env = cpu_import
    check = subprocess.run([sys.executable, "-c", """
import torch, activation
def f(x):
    out = torch.empty(*x.shape[:-1], x.shape[-1] // 2, dtype=x.dtype)
    torch.ops.activation.silu_and_mul(out, x)
    return out * 2
compiled = torch.compile(f, fullgraph=True)
for dtype in (torch.float32, torch.bfloat16):
    torch.manual_seed(0)
    x = torch.randn(5, 256, dtype=dtype)
    assert torch.equal(compiled(x), f(x)), dtype
print("compiled ok")
"""], env=env, capture_output=True, text=True)
    assert check.returncode == 0 and "compiled ok" in check.stdout, check.stdout + check.stderr


def test_the_vendored_projects_are_the_upstream_files_byte_for_byte():
    """Every file under tests/import/projects/ is listed in its README with the git blob it had upstream, and
    still is that blob: the projects are test input, unmodified (each test edits a copy, as a person would)."""
    import hashlib

    projects = SOURCE_DIR / "tests" / "import" / "projects"
    readme = (projects / "README.md").read_text()
    listed = {}
    for section in re.split(r"^## ", readme, flags=re.M)[1:]:
        repo = section.split(",", 1)[0].strip()
        root = projects / repo.replace("/", "__")
        assert root.is_dir(), repo
        for path, blob in re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{40})` \|$", section, re.M):
            listed[root / path] = blob
    on_disk = {p for p in projects.rglob("*") if p.is_file() and p.name != "README.md"}
    assert on_disk == set(listed), sorted(map(str, on_disk ^ set(listed)))
    for file, blob in listed.items():
        data = file.read_bytes()
        assert hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() == blob, file
