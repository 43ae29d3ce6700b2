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


DEFINED = {
    "schemas/twice.yaml": '''\
schema: "twice(Tensor x) -> Tensor"
dispatch: [CPU, CUDA]
kernels:
  CPU: {python: "defkernels:twice"}
  CUDA: {python: "defkernels:twice"}
define: custom_op
fake: like(x)
samples:
  - args:
      x: {shape: [3]}
''',
    "schemas/soft.yaml": '''\
schema: "soft(Tensor x) -> Tensor"
dispatch: [CPU]
kernels:
  CPU: {python: "defkernels:soft"}
define: custom_op
fake: like(x)
autograd:
  backward: soft_backward
  grads: [x]
autocast:
  cpu: {cast_inputs: float32}
samples:
  - args:
      x: {shape: [3]}
''',
    "schemas/soft_backward.yaml": '''\
schema: "soft_backward(Tensor grad, Tensor x) -> Tensor"
dispatch: [CPU]
kernels:
  CPU: {python: "defkernels:soft_backward"}
fake: like(x)
samples:
  - args:
      grad: {shape: [3]}
      x: {shape: [3]}
''',
    "schemas/traced_add.yaml": '''\
schema: "traced_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor"
dispatch: [CompositeExplicitAutograd]
kernels:
  CompositeExplicitAutograd: {python: "defkernels:traced_add"}
define: triton_op
checks:
  y: {same_dtype: x}
samples:
  - args:
      x: {shape: [3]}
      y: {shape: [3]}
''',
    "defkernels.py": '''\
import torch


def twice(x):
    return x * 2


def soft(x):
    return torch.tanh(x)


def soft_backward(grad, x):
    return grad * (1 - torch.tanh(x) ** 2)


def traced_add(x, y, alpha):  # what launches Triton kernels through wrap_triton; traced as the op's fake too
    out = torch.empty_like(x)
    out.copy_(x + alpha * y)
    return out
''',
}

DEFINED_CHECKS = r'''
import torch
from torch._library.custom_ops import _maybe_get_opdef
from torch.library import opcheck
import defined

# custom_op's and triton_op's objects: what torch.library's functions by name reach.
assert all(_maybe_get_opdef(f"defined::{op}") for op in ("twice", "soft", "traced_add"))
assert _maybe_get_opdef("defined::soft_backward") is None  # define: library, the default
assert torch.Tag.pt2_compliant_tag in torch.ops.defined.twice.default.tags  # custom_op's tag

x = torch.randn(5, requires_grad=True)
assert torch.equal(defined.twice(x.detach()), x.detach() * 2)
try:  # custom_op's Autograd kernel: no formula, so a backward raises (it does not pass silently)
    defined.twice(x).sum().backward()
    raise AssertionError("a backward through defined::twice did not raise")
except RuntimeError as error:
    assert "no autograd formula was registered" in str(error), error
defined.soft(x).sum().backward()  # the spec's autograd, registered on the custom_op object
torch.testing.assert_close(x.grad, 1 - torch.tanh(x.detach()) ** 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert defined.soft(x.detach().bfloat16()).dtype == torch.float32
torch.library.register_autograd("defined::twice", lambda ctx, grad: grad * 2)  # by name, as a project does
x.grad = None
defined.twice(x).sum().backward()
torch.testing.assert_close(x.grad, torch.full_like(x, 2.0))

y = torch.randn(5)
assert torch.equal(defined.traced_add(x.detach(), y, 0.5), x.detach() + 0.5 * y)
try:
    defined.traced_add(x.detach(), y.double())
    raise AssertionError("the spec's checks did not run")
except RuntimeError as error:
    assert "same dtype" in str(error), error
for op, args in ((torch.ops.defined.twice.default, (torch.randn(3),)),
                 (torch.ops.defined.soft.default, (torch.randn(3, requires_grad=True),)),
                 (torch.ops.defined.traced_add.default, (torch.randn(3), torch.randn(3), 2.0))):
    opcheck(op, args)
f = torch.compile(lambda a, b: defined.traced_add(defined.soft(a), b), fullgraph=True, backend="aot_eager")
torch.testing.assert_close(f(x.detach(), y), torch.tanh(x.detach()) + y)
print("ok")
'''


def test_ops_defined_through_custom_op_and_triton_op(tmp_path):
    """`define: custom_op` and `define: triton_op`: the package defines the ops through torch.library's
    custom_op and triton_op, so they have what those register (custom_op's raising Autograd kernel, its
    object for registrations by name, triton_op's kernel as its fake), with the spec's checks, autograd,
    autocast and suite."""
    for path, text in DEFINED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    result = run_opgen("generate", "--namespace", "defined", "-o", tmp_path / "gen", tmp_path / "schemas")
    assert result.returncode == 0, result.stderr
    assert run_python(tmp_path, DEFINED_CHECKS).strip().endswith("ok")
    test_the_generated_suite_passes(tmp_path)
