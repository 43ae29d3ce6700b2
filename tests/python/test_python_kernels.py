"""Python kernels (docs/python-kernels.md): the page's example, a library
whose kernels are all Python, generated with `opgen generate` and imported
as written, with nothing built: the package defines the ops, registers the
kernels after the spec's checks, and the fake, autograd and generated suite
come from the specs as for C++ kernels. Checked through PyTorch: eager
against a reference, gradients against autograd through the reference,
opcheck, torch.compile(fullgraph=True) with aot_eager and Inductor (the op
one node of the graph), the checks' errors, and the generated suite.

Needs the built tool: run through CTest.
"""

import re
import subprocess
import sys

import pytest

from cli_helpers import SOURCE_DIR, requires_opgen, run_opgen

pytestmark = requires_opgen

PAGE = SOURCE_DIR / "docs" / "python-kernels.md"


def page_files():
    """The page's code blocks whose first line names a file: path -> text."""
    files = {}
    for body in re.findall(r"^```(?:yaml|python)\n(.*?)^```", PAGE.read_text(), re.M | re.S):
        if m := re.match(r"^# ([\w/.]+\.(?:yaml|py))$", body.splitlines()[0]):
            files[m[1]] = body
    return files


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("pyclip")
    for path, text in page_files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    result = run_opgen("generate", "--namespace", "pyclip", "-o", root / "gen", root / "schemas")
    assert result.returncode == 0, result.stderr
    return root


def run_python(library, code):
    env = {"PYTHONPATH": f"{library / 'gen' / 'python'}:{library}:{SOURCE_DIR / 'python'}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], cwd=library, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_page_has_the_example():
    assert set(page_files()) == {"schemas/softclip.yaml", "schemas/softclip_backward.yaml", "pyclip_kernels.py"}


def test_nothing_of_it_is_cpp(library):
    gen = library / "gen"
    assert "nothing of it is C++" in (gen / "csrc" / "softclip.cpp").read_text()
    assert "nothing of it is C++" in (gen / "include" / "pyclip" / "kernels" / "softclip.h").read_text()
    package = gen / "python" / "pyclip"
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "_opgen_runtime.py", "_ops.py", "_ops.pyi", "py.typed"]
    assert "load_library" not in (package / "_ops.py").read_text()


CHECKS = r'''
import pytest
import torch
import torch._dynamo.testing
import pyclip

def reference(x, limit):
    return limit * torch.tanh(x / limit)

torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(5, 7, dtype=dtype) * 3
    torch.testing.assert_close(pyclip.softclip(x, 2.0), reference(x, 2.0))
    # Gradients: the backward op against autograd through the reference.
    a = x.clone().requires_grad_()
    b = x.clone().requires_grad_()
    grad = torch.randn_like(x)
    pyclip.softclip(a, 0.5).backward(grad)
    reference(b, 0.5).backward(grad)
    torch.testing.assert_close(a.grad, b.grad)
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(lambda t: pyclip.softclip(t, 1.5), (x,))
torch.library.opcheck(torch.ops.pyclip.softclip.default, (x.detach(), 2.0))
torch.library.opcheck(torch.ops.pyclip.softclip.default, (x, 2.0))

# The spec's checks run before the Python kernel.
with pytest.raises(RuntimeError, match="pyclip::softclip: expected 'x' to have dtype float32 or float64"):
    pyclip.softclip(torch.ones(3, dtype=torch.int64), 1.0)
with pytest.raises(RuntimeError, match="pyclip::softclip: requires limit > 0.0"):
    pyclip.softclip(torch.ones(3), -1.0)

# torch.compile: the op is one node; forward and backward compile.
for backend in ("aot_eager", "inductor"):
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    f = torch.compile(lambda t: pyclip.softclip(t * 2, 3.0).sum(), backend=counter, fullgraph=True)
    t = torch.randn(6, 4, requires_grad=True)
    out = f(t)
    out.backward()
    torch.testing.assert_close(out, reference(t.detach() * 2, 3.0).sum())
    torch.testing.assert_close(t.grad, 2 * (1 - torch.tanh(t.detach() * 2 / 3.0) ** 2))
    assert counter.frame_count == 1
    targets = [n.target for n in counter.graphs[0].graph.nodes if n.op == "call_function"]
    assert torch.ops.pyclip.softclip.default in targets, targets
print("ok")
'''


def test_through_pytorch(library):
    assert run_python(library, CHECKS).strip().endswith("ok")


def test_the_generated_suite_passes(library):
    env = {"PYTHONPATH": f"{library / 'gen' / 'python'}:{library}:{SOURCE_DIR / 'python'}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "gen/tests"],
                            cwd=library, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(r"\d+ passed", result.stdout), result.stdout
