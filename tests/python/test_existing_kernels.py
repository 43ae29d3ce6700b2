"""Existing functions as kernels (`kernels:`, docs/existing-kernels.md).

The page's own example (a spec, the project's header and kernel, unchanged)
is built the documented way, with opgen_add_library and
target_include_directories, loaded, checked against a reference and put
through its generated suite. Functions that cannot take the schema's
arguments fail the build with the generated static_assert that names them.
The construct test (test_every_construct.py) covers the conversions on both
ABIs.

Needs the built tool: run through CTest.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_opgen

pytestmark = requires_opgen

PAGE = SOURCE_DIR / "docs" / "existing-kernels.md"


def page_files():
    """The page's code blocks whose first line names a file: path -> text."""
    files = {}
    for lang, body in re.findall(r"^```(yaml|cpp)\n(.*?)^```", PAGE.read_text(), re.M | re.S):
        first = body.splitlines()[0]
        if m := re.match(r"^(?:#|//) ([\w/.]+\.(?:yaml|h|cpp))(?::|$)", first):
            files[m[1]] = body
    return files


def test_the_documented_example_builds_runs_and_passes_its_suite(tmp_path):
    files = page_files()
    assert set(files) == {"schemas/rmsnorm.yaml", "include/norm_kernels.h", "kernels/norm.cpp"}, files.keys()
    project = tmp_path / "project"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(existing_kernels_example CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(sgl_ops NAMESPACE sgl SCHEMAS schemas/rmsnorm.yaml KERNELS kernels/norm.cpp)
target_include_directories(sgl_ops PRIVATE include)
""")
    build = tmp_path / "build"
    output, env = build_with_opgen(project, build)
    assert "warning:" not in output, output
    check = subprocess.run([sys.executable, "-c", """
import torch, sgl
x, w, out = torch.randn(4, 8), torch.randn(8), torch.empty(4, 8)
torch.ops.sgl.rmsnorm(out, x, w, 1e-6)
torch.testing.assert_close(out, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w)
print("rmsnorm ok")
"""], env=env, capture_output=True, text=True)
    assert check.returncode == 0 and "rmsnorm ok" in check.stdout, check.stdout + check.stderr
    suite = next((build / "sgl_ops_generated" / "tests").glob("test_*.py"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                          env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout


# Functions that cannot take the schema's arguments: (schema, the function, what the build says).
MISMATCHES = {
    "int_for_float": ("(Tensor x, float alpha) -> Tensor",
                      "torch::stable::Tensor int_for_float(torch::stable::Tensor x, int alpha);",
                      "its parameter 1 cannot take argument 'alpha' (float, passed as double)"),
    "float_for_int": ("(Tensor x, int n) -> Tensor",
                      "torch::stable::Tensor float_for_int(torch::stable::Tensor x, double n);",
                      "its parameter 1 cannot take argument 'n' (int, passed as int64_t)"),
    "plain_for_optional": ("(Tensor x, Tensor? bias) -> Tensor",
                           "torch::stable::Tensor plain_for_optional(torch::stable::Tensor x, torch::stable::Tensor b);",
                           "its parameter 1 cannot take argument 'bias' (Tensor?, passed as"),
    "arity": ("(Tensor x, int n) -> Tensor", "torch::stable::Tensor arity(torch::stable::Tensor x);",
              "must take the schema's 2 arguments, in its order"),
    "result": ("(Tensor x) -> Tensor", "int result(torch::stable::Tensor x);",
               "its result cannot be returned as torch::stable::Tensor, the schema's"),
}


def test_mismatched_functions_fail_the_build_naming_the_spec(tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    for op, (schema, _, _) in MISMATCHES.items():
        (specs / f"{op}.yaml").write_text(
            f'schema: "{op}{schema}"\ndispatch: [CPU]\nkernels: {{include: legacy.h, CPU: legacy::{op}}}\n'
            "fake: [like(x)]\nsamples: []\n")
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", "mm", "--shards", "1", "--source-root", tmp_path, "-o", out, specs)
    assert generate.returncode == 0, generate.stderr
    declarations = "\n".join(decl for _, decl, _ in MISMATCHES.values())
    (out / "include" / "legacy.h").write_text(
        f"#pragma once\n#include <torch/csrc/stable/tensor.h>\nnamespace legacy {{\n{declarations}\n}}\n")
    torch_dir = os.path.dirname(torch.__file__)
    proc = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", f"-I{out / 'include'}", "-isystem",
                           f"{torch_dir}/include", str(out / "csrc" / "mm-stable-shard0.cpp")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    for op, (_, _, message) in MISMATCHES.items():
        expected = f"mm::{op}: the CPU kernel legacy::{op} (specs/{op}.yaml, kernels:)"
        assert any(expected in line and message in line for line in proc.stderr.splitlines()), (
            f"{op}: no static_assert saying {message!r}:\n{proc.stderr[-6000:]}")
    # The adapter itself stays quiet: every error is one of the static_asserts.
    errors = [line for line in proc.stderr.splitlines() if " error: " in line]
    assert errors and all("static assertion failed: mm::" in line for line in errors), "\n".join(errors)


@pytest.mark.parametrize("text, code", [
    ("kernels: {include: k.h, CUDA: f}\ndispatch: [CPU]", "E0814"),
    ("kernels: {include: k.h, CPU: '&f'}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: 'a\"b.h', CPU: f}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: k.h, CPU: 'int'}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: k.h, CPU: 'f<>'}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: k.h, CPU: ''}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: '', CPU: f}\ndispatch: [CPU]", "E0815"),
    ("kernels: {include: k.h, '': f}\ndispatch: [CPU]", "E0814"),
    ("kernels: {CPU: f}\ndispatch: [CPU]", "E0816"),
    ("kernels: {include: k.h}\ndispatch: [CPU]", "E0816"),
])
def test_kernels_entries_are_checked(tmp_path, text, code):
    spec = tmp_path / "op.yaml"
    spec.write_text(f'schema: "op(Tensor x) -> Tensor"\n{text}\nfake: [like(x)]\nsamples: []\n')
    proc = run_opgen("check", spec)
    assert proc.returncode == 1 and f"error[{code}]" in proc.stderr, proc.stderr


@pytest.mark.parametrize("name", ["f", "ns::f", "::ns::inner::f", "f<4>", "ns::gemm<at::Half, 128>", "f<T*, U&>"])
def test_cpp_function_names_are_accepted(tmp_path, name):
    spec = tmp_path / "op.yaml"
    spec.write_text(f'schema: "op(Tensor x) -> Tensor"\ndispatch: [CPU]\nkernels: {{include: k.h, CPU: "{name}"}}\n'
                    "fake: [like(x)]\nsamples: []\n")
    proc = run_opgen("check", spec)
    assert proc.returncode == 0, proc.stderr
