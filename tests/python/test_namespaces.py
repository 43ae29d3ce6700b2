"""Namespaces PyTorch accepts that C++ reserves (issue 34, item 1): vLLM
registers its ops as torch.ops._C, torch.ops._C_cache_ops, torch.ops._moe_C.
opgen registers such a namespace as written and puts its generated C++ (and
the kernels' declarations) in a derived C++ namespace (`_C` -> `C_ns`,
model::cpp_namespace), with the Python package named apart from it.

A library in namespace `_C`, one stable-ABI and one unstable op, is built
with this tree's tool and torch; a fresh process calls torch.ops._C.* and
runs the library's generated suite (opcheck, torch.compile, fake vs real).
Needs the built tool and this machine's torch: run through CTest.
"""

import subprocess
from pathlib import Path

import pytest

from cli_helpers import SOURCE_DIR, build_with_opgen, check_built_library, requires_opgen, run_opgen

pytestmark = requires_opgen

STABLE_KERNEL = """#include "_C/kernels/scale.h"

#include <torch/csrc/stable/ops.h>

torch::stable::Tensor C_ns::kernels::scale_cpu(const torch::stable::Tensor& x, double alpha) {
  torch::stable::Tensor y = torch::stable::empty_like(x);
  const float* in = x.const_data_ptr<float>();
  float* out = y.mutable_data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = static_cast<float>(in[i] * alpha);
  return y;
}
"""

UNSTABLE_KERNEL = """#include "_C/kernels/shift.h"

#include <ATen/ops/add.h>

at::Tensor C_ns::kernels::shift_cpu(const at::Tensor& x) { return at::add(x, 1); }
"""

CHECK = """
import torch, c_ops
x = torch.arange(6, dtype=torch.float32)
assert torch.equal(torch.ops._C.scale(x, 2.0), x * 2)
assert torch.equal(torch.ops._C.shift(x), x + 1)
assert str(torch.ops._C.scale.default._schema) == "_C::scale(Tensor x, float alpha) -> Tensor"
assert torch.equal(c_ops.shift(x), x + 1)
print("ok")
"""


def test_the_cpp_namespace_is_derived_only_where_cpp_reserves_the_name(tmp_path):
    for ns, cpp in [("_C", "C_ns"), ("_C_cache_ops", "C_cache_ops_ns"), ("_moe_C", "moe_C_ns"), ("my__ops", "my_ops_ns"),
                    ("vllm", "vllm"), ("dup", "dup_ns"), ("clock", "clock_ns")]:
        proc = run_opgen("new", f"{ns}::f", "--schema", "(Tensor x) -> Tensor", "--dispatch", "CPU",
                         "--schemas-dir", tmp_path / ns / "schemas", "--kernels-dir", tmp_path / ns / "kernels")
        assert proc.returncode == 0, proc.stderr
        kernel = (tmp_path / ns / "kernels" / "f.cpp").read_text()
        assert f"{cpp}::kernels::f_cpu(" in kernel, kernel
        gen = run_opgen("generate", "--namespace", ns, "-o", tmp_path / ns / "out", tmp_path / ns / "schemas")
        assert gen.returncode == 0, gen.stderr
        header = (tmp_path / ns / "out" / "include" / ns / "kernels" / "f.h").read_text()
        assert f"namespace {cpp}::kernels {{" in header
        registration = "".join(p.read_text() for p in (tmp_path / ns / "out" / "csrc").glob("*.cpp"))
        assert f"TORCH_LIBRARY_FRAGMENT({ns}, m)" in registration or f"TORCH_LIBRARY({ns}, m)" in registration


def test_a_namespace_the_c_library_declares_compiles(tmp_path):
    """`dup` is POSIX's dup() at global scope once torch's headers are in (<unistd.h>): as a C++ namespace it
    was "redeclared as different kind of entity". Its derived C++ namespace (dup_ns) compiles."""
    import torch
    proc = run_opgen("new", "dup::f", "--schema", "(Tensor x) -> Tensor", "--abi", "unstable", "--dispatch", "CPU",
                     "--schemas-dir", tmp_path / "schemas", "--kernels-dir", tmp_path / "kernels")
    assert proc.returncode == 0, proc.stderr
    gen = run_opgen("generate", "--namespace", "dup", "-o", tmp_path / "out", tmp_path / "schemas")
    assert gen.returncode == 0, gen.stderr
    include = Path(torch.__file__).parent / "include"
    for source in [tmp_path / "out" / "csrc" / "f.cpp", tmp_path / "kernels" / "f.cpp"]:
        compiled = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", "-Wall", "-Werror", f"-I{tmp_path / 'out' / 'include'}",
                                   "-isystem", include, "-isystem", include / "torch" / "csrc" / "api" / "include",
                                   source], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr[-3000:]


def test_a_kernel_at_global_scope_named_as_the_namespace_compiles(tmp_path):
    """kernels-community's relu binds `void relu(at::Tensor& out, const at::Tensor& input)`, a function at global
    scope, in namespace relu: the generated code's C++ namespace `relu` was "redeclared as different kind of
    entity". Where a kernel the specs bind is so named, the C++ namespace is `relu_ns`."""
    import torch
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "relu.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                              "void relu(at::Tensor& out, const at::Tensor& input);\n")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "relu.yaml").write_text(
        'schema: "relu(Tensor! out, Tensor input) -> ()"\nabi: unstable\ndispatch: [CPU]\n'
        'kernels:\n  include: "relu.h"\n  CPU: "relu"\nfake: []\nsamples: []\n')
    gen = run_opgen("generate", "--namespace", "relu", "-o", tmp_path / "out", tmp_path / "schemas")
    assert gen.returncode == 0, gen.stderr
    header = (tmp_path / "out" / "include" / "relu" / "kernels" / "relu.h").read_text()
    assert "relu_ns::" in header or "namespace relu_ns" in header, header
    include = Path(torch.__file__).parent / "include"
    for source in (tmp_path / "out" / "csrc").glob("*.cpp"):
        compiled = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", "-Wall", "-Werror", f"-I{tmp_path / 'out' / 'include'}",
                                   f"-I{tmp_path / 'csrc'}", "-isystem", include, "-isystem",
                                   include / "torch" / "csrc" / "api" / "include", source], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr[-3000:]


@pytest.mark.parametrize("ns, why", [
    ("aten", "PyTorch defines it"),
    ("linux", "defines it as a macro"),
    ("class", "keyword"),
])
def test_what_pytorch_or_cpp_cannot_take_is_still_refused(tmp_path, ns, why):
    proc = run_opgen("check", "--namespace", ns, SOURCE_DIR / "schemas")
    assert proc.returncode == 1 and "error[E0905]" in proc.stderr and why in proc.stderr, proc.stderr


def test_a_library_in_namespace_underscore_c_builds_loads_and_passes_its_suite(tmp_path):
    project = tmp_path / "project"
    for op, schema, abi in [("scale", "(Tensor x, float alpha) -> Tensor", "stable"),
                            ("shift", "(Tensor x) -> Tensor", "unstable")]:
        proc = run_opgen("new", f"_C::{op}", "--schema", schema, "--abi", abi, "--dispatch", "CPU",
                         "--schemas-dir", project / "schemas", "--kernels-dir", project / "kernels")
        assert proc.returncode == 0, proc.stderr
    (project / "kernels" / "scale.cpp").write_text(STABLE_KERNEL)
    (project / "kernels" / "shift.cpp").write_text(UNSTABLE_KERNEL)
    for op in ("scale", "shift"):
        spec = project / "schemas" / f"{op}.yaml"
        spec.write_text(spec.read_text() + "checks:\n  x: {dtype: [float32], contiguous: true}\n"
                        "samples:\n  - dims: {N: [2, 7]}\n    args:\n      x: {shape: [N, 5]}\n"
                        + ("      alpha: -2.5\n" if op == "scale" else ""))
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(c_ops CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
file(GLOB kernels kernels/*.cpp)
opgen_add_library(c_ops NAMESPACE _C PYTHON_PACKAGE c_ops SCHEMAS schemas KERNELS ${{kernels}})
""")
    _, env = build_with_opgen(project, tmp_path / "build")
    check_built_library(tmp_path / "build", "c_ops", CHECK, env, tmp_path)
