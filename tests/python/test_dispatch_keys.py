"""What PyTorch accepts, opgen accepts: the dispatch keys a spec may name
(codegen/src/model/dispatch_keys.cpp, listed in spec.schema.json) are the
keys this torch's parser takes, but those no call reaches, which opgen
refuses by a documented rule (E0823). An op registered for every key opgen
takes compiles against this torch's headers. Needs the built tool: run
through CTest."""

import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

from cli_helpers import requires_opgen, run_opgen

pytestmark = requires_opgen

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_KEYS = json.loads((ROOT / "codegen" / "spec.schema.json").read_text())["$defs"]["dispatchKey"]["enum"]

# Keys PyTorch registers a kernel for without complaint and never calls it at: a functionality without
# a backend, and Undefined (CompositeImplicitAutograd).
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


def test_an_op_for_every_key_compiles_against_this_torch(tmp_path):
    """One unstable-ABI op with a kernel for each of the keys: every TORCH_LIBRARY_IMPL it registers names a
    c10::DispatchKey this torch's headers have."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "f.yaml").write_text(
        f"schema: 'f(Tensor x) -> Tensor'\nabi: unstable\ndispatch: [{', '.join(SPEC_KEYS)}]\n"
        "checks:\n  x: {dtype: [float32]}\nfake: like(x)\nsamples: []\n")
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
