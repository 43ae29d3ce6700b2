"""What PyTorch accepts, opgen accepts: the dispatch keys a spec may name
(codegen/src/model/dispatch_keys.cpp, listed in spec.schema.json) are the
keys this torch's parser takes, but those no call reaches, which opgen
refuses by a documented rule (E0823). An op registered for every key opgen
takes compiles against this torch's headers. Needs the built tool: run
through CTest."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_opgen

pytestmark = requires_opgen

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_KEYS = json.loads((ROOT / "codegen" / "spec.schema.json").read_text())["$defs"]["dispatchKey"]["enum"]

# Keys a spec does not name: those PyTorch registers a kernel for without complaint and never calls it at
# (a functionality without a backend), and Undefined, which it files under CompositeImplicitAutograd.
UNREACHED = {"Dense", "Sparse", "Quantized", "SparseCsr", "NestedTensor", "AutogradFunctionality", "Undefined"}


def parsed_by_torch():
    keys = set()
    for name in torch._C.DispatchKey.__members__:
        try:
            torch.library.Library("opgen_key_probe", "IMPL", name)
        except RuntimeError as e:
            assert "could not parse dispatch key" in str(e), e
            continue
        keys.add(name)
    return keys


def test_the_spec_keys_are_the_keys_torch_parses_but_the_unreached_ones():
    parsed = parsed_by_torch()
    assert UNREACHED <= parsed
    assert sorted(SPEC_KEYS) == sorted(parsed - UNREACHED)


def test_a_key_no_call_reaches_is_refused_with_the_key_to_use(tmp_path):
    (tmp_path / "f.yaml").write_text(
        f"schema: 'f(Tensor x) -> Tensor'\nabi: unstable\ndispatch: [{', '.join(sorted(UNREACHED))}]\n"
        "fake: like(x)\nsamples: []\n")
    proc = run_opgen("check", "--namespace", "keys", tmp_path)
    assert proc.returncode == 1
    refused = [line for line in proc.stderr.splitlines() if "error[E0823]" in line]
    assert len(refused) == len(UNREACHED), proc.stderr
    assert "note: use SparseCPU or SparseCUDA" in proc.stderr
    assert "PyTorch registers a kernel at 'Undefined' as its CompositeImplicitAutograd kernel" in proc.stderr


def test_an_op_for_every_key_compiles_against_this_torch(tmp_path):
    """One unstable-ABI op with a kernel for each of the keys: every TORCH_LIBRARY_IMPL it registers names a
    c10::DispatchKey this torch's headers have."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "f.yaml").write_text(
        f"schema: 'f(Tensor x) -> Tensor'\nabi: unstable\ndispatch: [{', '.join(SPEC_KEYS)}]\n"
        "checks:\n  x: {dtype: [float32]}\nsamples: []\n")  # no fake: a CompositeImplicitAutograd op takes none
    out = tmp_path / "out"
    proc = run_opgen("generate", "--namespace", "keys", "-o", out, specs)
    assert proc.returncode == 0, proc.stderr
    source = (out / "csrc" / "f.cpp").read_text()
    for key in SPEC_KEYS:
        assert f"TORCH_LIBRARY_IMPL(keys, {key}, m)" in source, key
    import torch.utils.cpp_extension as cpp

    compile = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{out / 'include'}",
                              *(f"-isystem{p}" for p in cpp.include_paths()), out / "csrc" / "f.cpp"],
                             capture_output=True, text=True)
    assert compile.returncode == 0, compile.stderr[-4000:]


@pytest.mark.parametrize("key", ["AutogradCPU", "FuncTorchBatched"])
def test_a_kernel_that_redispatches_is_refused_on_the_stable_abi(tmp_path, key):
    (tmp_path / "f.yaml").write_text(f"schema: 'f(Tensor x) -> Tensor'\ndispatch: [CPU, {key}]\nfake: like(x)\n"
                                     "samples: []\n")
    proc = run_opgen("check", "--namespace", "keys", tmp_path)
    assert proc.returncode == 1 and f"error[E0824]: a kernel at '{key}'" in proc.stderr, proc.stderr


AUTOCAST_KERNELS = '''
import torch

def f_cpu(x):
    return x * 2

def f_autocast(x):
    with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU)):
        return torch.ops.keys.f(x.float())
'''

AUTOCAST_CHECK = '''
import torch, keys
h = torch.arange(6, dtype=torch.bfloat16)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = torch.ops.keys.f(h)
assert y.dtype == torch.float32 and torch.equal(y, h.float() * 2), y
try:
    torch.ops.keys.f(h)
    raise AssertionError("the check let a bfloat16 input through")
except RuntimeError as e:
    assert "expected 'x' to have dtype float32" in str(e), e
print("ok")
'''


def test_python_kernels_check_where_they_compute_not_where_they_redispatch(tmp_path):
    """The spec's check (float32 only) runs in front of the CPU kernel, after the AutocastCPU kernel has cast
    the input; without autocast a bfloat16 input is refused."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "f.yaml").write_text(
        "schema: 'f(Tensor x) -> Tensor'\nabi: unstable\ndispatch: [CPU, AutocastCPU]\n"
        "kernels:\n  CPU: {python: 'keys_kernels:f_cpu'}\n  AutocastCPU: {python: 'keys_kernels:f_autocast'}\n"
        "checks:\n  x: {dtype: [float32]}\nfake: like(x)\nsamples: []\n")
    (tmp_path / "keys_kernels.py").write_text(AUTOCAST_KERNELS)
    out = tmp_path / "out"
    proc = run_opgen("generate", "--namespace", "keys", "-o", out, specs)
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out / "python"), str(tmp_path)])}
    run = subprocess.run([sys.executable, "-c", AUTOCAST_CHECK], env=env, capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert run.returncode == 0 and "ok" in run.stdout, (run.stdout[-2000:], run.stderr[-4000:])


def test_a_build_without_cuda_leaves_out_every_kernel_that_is_cuda_code(tmp_path):
    """opgen_add_library passes --exclude-dispatch-key CUDA where there is no nvcc, and drops the .cu sources:
    the CUDA layouts' kernels (SparseCUDA, QuantizedCUDA, ...), CUDA code as well, are not registered either, or
    the library would name kernels no source defines. An AutogradCUDA kernel redispatches and is plain C++: it
    stays."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "f.yaml").write_text(
        "schema: 'f(Tensor x) -> Tensor'\nabi: unstable\n"
        "dispatch: [CPU, CUDA, SparseCUDA, QuantizedCUDA, NestedTensorCUDA, AutogradCUDA]\nfake: like(x)\nsamples: []\n")
    out = tmp_path / "out"
    proc = run_opgen("generate", "--namespace", "keys", "--exclude-dispatch-key", "CUDA", "-o", out, specs)
    assert proc.returncode == 0, proc.stderr
    source = (out / "csrc" / "f.cpp").read_text()
    registered = sorted(line.split(", ")[1] for line in source.splitlines() if line.startswith("TORCH_LIBRARY_IMPL("))
    assert registered == ["AutogradCUDA", "CPU"], registered
    new = run_opgen("new", "keys::g", "--schema", "(Tensor x) -> Tensor", "--abi", "unstable",
                    *(arg for key in ("SparseCUDA", "AutogradCUDA", "CPU") for arg in ("--dispatch", key)),
                    "--schemas-dir", tmp_path / "s", "--kernels-dir", tmp_path / "k")
    assert new.returncode == 0, new.stderr
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == ["g.cu", "g_AutogradCUDA.cpp", "g_CPU.cpp"]


def build_keys_project(tmp_path, ops_h, kernels, specs):
    """A project of C++ kernels (csrc/ops.h, csrc/kernels.cpp) and specs ({name: text}) in namespace keys,
    built with opgen; returns the build directory and the environment that imports its package."""
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True, exist_ok=True)
    (project / "schemas").mkdir(exist_ok=True)
    (project / "csrc" / "ops.h").write_text(ops_h)
    (project / "csrc" / "kernels.cpp").write_text(kernels)
    for name, text in specs.items():
        (project / "schemas" / name).write_text(text)
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(keys CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(keys_ops NAMESPACE keys SCHEMAS schemas KERNELS csrc/kernels.cpp)
target_include_directories(keys_ops PRIVATE csrc)
""")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    return build, env


def run_in(env, tmp_path, *args, timeout=300):
    """Runs Python with `args` against the built package; returns the finished process."""
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, cwd=tmp_path,
                          timeout=timeout)


DECOMPOSING_OPS_H = """#pragma once
#include <ATen/core/Tensor.h>
namespace proj {
at::Tensor scale(const at::Tensor& x, double a);
}
"""

DECOMPOSING_KERNELS = """#include "ops.h"
#include <ATen/ops/mul.h>
namespace proj {
at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a); }
}
"""

DECOMPOSING_CHECK = """
import torch, keys
x = torch.arange(6, dtype=torch.float32, requires_grad=True)
y = torch.ops.keys.scale(x, 3.0)
y.sum().backward()
# Autograd recorded the at::mul the kernel calls: no 'autograd:' in the spec, the gradient is the decomposition's.
assert torch.equal(x.grad, torch.full((6,), 3.0)), x.grad
# torch.compile traces through the kernel, as PyTorch does for any CompositeImplicitAutograd op.
compiled = torch.compile(lambda t: torch.ops.keys.scale(t, 3.0), fullgraph=True, backend="aot_eager")
assert torch.equal(compiled(x.detach()), x.detach() * 3)
# The spec's check runs in the kernel's wrapper, eagerly and on fake tensors alike.
for call in (lambda: torch.ops.keys.scale(x.double(), 3.0), lambda: compiled(x.detach().double())):
    try:
        call()
        raise AssertionError("the check let a float64 input through")
    except Exception as e:
        assert "expected 'x' to have dtype float32" in str(e), e
print("ok")
"""


def test_an_op_that_decomposes_builds_loads_and_passes_its_suite(tmp_path):
    """A C++ kernel at CompositeImplicitAutograd: the package registers no fake (PyTorch would refuse it), the
    gradient and torch.compile go through the kernel's own ATen calls, and the generated suite, which calls the
    op eagerly (W0803), passes."""
    spec = ('schema: "scale(Tensor x, float a) -> Tensor"\nabi: unstable\ndispatch: [CompositeImplicitAutograd]\n'
            'kernels:\n  include: "ops.h"\n  CompositeImplicitAutograd: "proj::scale"\n'
            "checks:\n  x: {dtype: [float32]}\n"
            "samples:\n  - dims: {N: [3, 8]}\n    args:\n      x: {shape: [N, 5]}\n      a: 2.5\n")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "scale.yaml").write_text(spec)
    check = run_opgen("check", "--namespace", "keys", tmp_path / "schemas")
    assert check.returncode == 0 and "warning[W0803]" in check.stderr, check.stderr
    build, env = build_keys_project(tmp_path, DECOMPOSING_OPS_H, DECOMPOSING_KERNELS, {"scale.yaml": spec})
    ops = next(build.rglob("keys/_ops.py")).read_text()
    assert "register_fake" not in ops and "No fake: the op decomposes" in ops, ops
    loaded = run_in(env, tmp_path, "-c", DECOMPOSING_CHECK)
    assert loaded.returncode == 0 and "ok" in loaded.stdout, (loaded.stdout[-2000:], loaded.stderr[-4000:])
    suite = next(build.rglob("test_keys_ops.py"))
    run = run_in(env, tmp_path, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider", suite, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"test_input_check\[[^]]*\] PASSED", run.stdout), run.stdout[-4000:]
    assert "decomposes: it has no fake" in run.stdout and "works in eager calls only" in run.stdout, run.stdout[-4000:]


def test_new_scaffolds_an_op_that_decomposes_without_a_fake(tmp_path):
    """`opgen new --dispatch CompositeImplicitAutograd` writes no fake (E0827): its own scaffold checks."""
    proc = run_opgen("new", "proj::twice", "--schema", "(Tensor x) -> Tensor", "--abi", "unstable", "--dispatch",
                     "CompositeImplicitAutograd", "--schemas-dir", tmp_path / "s", "--kernels-dir", tmp_path / "k")
    assert proc.returncode == 0, proc.stderr
    spec = (tmp_path / "s" / "twice.yaml").read_text()
    assert "dispatch: [CompositeImplicitAutograd]" in spec and "fake" not in spec, spec
    check = run_opgen("check", "--namespace", "proj", tmp_path / "s")
    assert check.returncode == 0, check.stderr


META_OPS_H = """#pragma once
#include <ATen/core/Tensor.h>
namespace proj {
at::Tensor scale_cpu(const at::Tensor& x, double a);
at::Tensor scale_meta(const at::Tensor& x, double a);
at::Tensor shift_cpu(const at::Tensor& x, double b);
}
"""

# shift's Meta kernel stays the project's: registered by its own block, in a source the library builds.
META_KERNELS = """#include "ops.h"
#include <ATen/ops/add.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <torch/library.h>
namespace proj {
at::Tensor scale_cpu(const at::Tensor& x, double a) { return at::mul(x, a); }
at::Tensor scale_meta(const at::Tensor& x, double) { return at::empty_like(x); }
at::Tensor shift_cpu(const at::Tensor& x, double b) { return at::add(x, b); }
}
namespace {
at::Tensor shift_meta(const at::Tensor& x, double) { return at::empty_like(x); }
}
TORCH_LIBRARY_IMPL(keys, Meta, m) {
  m.impl("shift", &shift_meta);
}
"""

META_CHECK = """
import torch, keys
from torch._subclasses.fake_tensor import FakeTensorMode
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
assert torch.equal(torch.ops.keys.scale(x, 3.0), x * 3)
with FakeTensorMode() as mode:  # the Meta kernel is the fake
    y = torch.ops.keys.scale(mode.from_tensor(x), 3.0)
    assert y.shape == (2, 3) and y.dtype == torch.float32, y
compiled = torch.compile(lambda t: torch.ops.keys.shift(torch.ops.keys.scale(t, 3.0), 1.0), fullgraph=True,
                         backend="aot_eager")
assert torch.equal(compiled(x), x * 3 + 1)
with FakeTensorMode() as mode:  # the project's own Meta kernel is shift's fake
    assert torch.ops.keys.shift(mode.from_tensor(x), 1.0).shape == (2, 3)
torch.library.opcheck(torch.ops.keys.scale.default, (x, 3.0))
torch.library.opcheck(torch.ops.keys.shift.default, (x, 1.0))
print("ok")
"""


def test_an_op_whose_fake_is_its_meta_kernel_builds_loads_and_passes_its_suite(tmp_path):
    """A C++ kernel at Meta is the op's fake: the spec takes none (a fake beside it is E0828, which torch 2.11's
    register_fake refuses at import), the package registers none, and fake tensors, torch.compile, opcheck and
    the generated suite run the Meta kernel; so they do one a source of the library registers itself
    (`fake: {meta: ...}`, as opgen import writes for a Meta impl it keeps in the project's build)."""
    spec = ('schema: "scale(Tensor x, float a) -> Tensor"\nabi: unstable\ndispatch: [CPU, Meta]\n'
            'kernels:\n  include: "ops.h"\n  CPU: "proj::scale_cpu"\n  Meta: "proj::scale_meta"\n'
            "samples:\n  - dims: {N: [3, 8]}\n    args:\n      x: {shape: [N, 5]}\n      a: 2.5\n")
    specs = {
        "scale.yaml": spec,
        "shift.yaml": 'schema: "shift(Tensor x, float b) -> Tensor"\nabi: unstable\ndispatch: [CPU]\n'
                      'kernels:\n  include: "ops.h"\n  CPU: "proj::shift_cpu"\nfake: {meta: "csrc/kernels.cpp"}\n'
                      "samples:\n  - dims: {N: [3, 8]}\n    args:\n      x: {shape: [N, 5]}\n      b: 0.5\n",
    }
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "shift.yaml").write_text(specs["shift.yaml"])
    (schemas / "scale.yaml").write_text(spec + "fake: like(x)\n")
    check = run_opgen("check", "--namespace", "keys", schemas)
    assert check.returncode == 1 and "error[E0828]" in check.stderr, check.stderr
    (schemas / "scale.yaml").write_text(spec)
    check = run_opgen("check", "--namespace", "keys", schemas)
    assert check.returncode == 0, check.stderr
    build, env = build_keys_project(tmp_path, META_OPS_H, META_KERNELS, specs)
    ops = next(build.rglob("keys/_ops.py")).read_text()
    assert "register_fake" not in ops and "No fake: its Meta kernel is its fake" in ops, ops
    assert "No fake: a Meta kernel registered outside the spec is its fake" in ops, ops
    assert '_opgen.require_meta_kernel("keys::shift", ' in ops, ops  # checked once the library is loaded
    loaded = run_in(env, tmp_path, "-c", META_CHECK)
    assert loaded.returncode == 0 and "ok" in loaded.stdout, (loaded.stdout[-2000:], loaded.stderr[-4000:])
    suite = next(build.rglob("test_keys_ops.py"))
    run = run_in(env, tmp_path, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider", suite, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert len(re.findall(r"test_fake_matches_real\[[^]]*\] PASSED", run.stdout)) == 2, run.stdout[-4000:]
