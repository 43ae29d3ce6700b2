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

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_opgen

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
    # The CMake to build them, and registration.h (kernel-builder's, not in the project) left out.
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


def test_the_cpu_configuration_builds_loads_and_runs_the_projects_kernel(tmp_path):
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--namespace", "activation", "-D", "CPU_KERNEL", BINDING, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The CPU build registers silu_and_mul's kernel and the other schemas with none: a person says which.
    assert "1 ops imported" in proc.stdout and "10 ops need a person" in proc.stdout, proc.stdout
    assert "'dispatch: []'" in proc.stdout
    spec = (project / "schemas" / "silu_and_mul.yaml").read_text()
    assert 'abi: unstable\ndispatch: [CPU]\nkernels:\n  include: "torch_binding.h"\n  CPU: "silu_and_mul"\n' in spec
    env = build(project, tmp_path, f"""cmake_minimum_required(VERSION 3.25)
project(activation_imported CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
# The project's own flags for its AVX512 file (its build.toml): it is chosen at run time, by CPU.
set_source_files_properties(activation_cpu/silu_and_mul_avx512.cpp PROPERTIES COMPILE_OPTIONS
  "-O3;-mf16c;-mavx512f;-mavx512bf16;-mavx512vl;-mavx512dq;-mavx512bw;-DCPU_CAPABILITY_AVX512;-DCPU_CAPABILITY=AVX512")
opgen_add_library(activation_ops NAMESPACE activation SCHEMAS schemas
  KERNELS activation_cpu/silu_and_mul_cpu_torch.cpp activation_cpu/silu_and_mul_cpu.cpp
          activation_cpu/silu_and_mul_avx512.cpp)
target_include_directories(activation_ops PRIVATE torch-ext activation_cpu)
target_compile_definitions(activation_ops PRIVATE CPU_KERNEL)
""")
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
