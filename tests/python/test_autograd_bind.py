"""`autograd: bind:` (issue 34, item 5): a backward that takes values computed
from the forward's inputs, as torchvision's roi_align_backward takes the
input's batch size, channels, height and width (neither forward arguments
nor outputs). The spec gives each such argument a rule over the forward's
arguments; setup_context evaluates it and the backward receives it.

A pure-Python library (no build), generated with `opgen generate`, checked
through PyTorch: gradients against autograd through a reference and
gradcheck, opcheck, torch.compile(fullgraph=True) with aot_eager and
Inductor, static and dynamic shapes (the bound sizes stay symbolic: one
graph for two shapes), an empty batch, and the generated suite.

Needs the built tool: run through CTest.
"""

import subprocess
import sys

import pytest

from cli_helpers import SOURCE_DIR, requires_opgen, run_opgen

pytestmark = requires_opgen

POOL = """\
schema: "pool(Tensor x, float scale=1.0) -> Tensor"
doc: scale * x.sum(-1) over a [batch, channels, width] tensor.
dispatch: [CPU]
kernels:
  CPU: {python: "pool_kernels:pool"}
checks:
  x: {dtype: [float32, float64], dim: 3}
fake: empty([x.size(0), x.size(1)])
autograd:
  backward: pool_backward
  grads: [x]
  bind:
    batch_size: x.size(0)
    channels: x.size(1)
    width: x.size(-1)
samples:
  - dims: {N: [2, 5]}
    args:
      x: {shape: [N, 3, 4]}
      scale: 0.5
"""

POOL_BACKWARD = """\
schema: "pool_backward(Tensor grad, float scale, SymInt batch_size, SymInt channels, SymInt width) -> Tensor"
dispatch: [CPU]
kernels:
  CPU: {python: "pool_kernels:pool_backward"}
checks:
  grad: {dim: 2}
require:
  - grad.size(0) == batch_size
  - grad.size(1) == channels
fake: empty([batch_size, channels, width], dtype=grad.dtype)
samples:
  - args:
      grad: {shape: [2, 3]}
      scale: 2.0
      batch_size: 2
      channels: 3
      width: 5
"""

KERNELS = """\
import torch


def pool(x, scale):
    return scale * x.sum(-1)


def pool_backward(grad, scale, batch_size, channels, width):
    # The gradient's width is the forward input's: nothing the backward gets
    # but the bound `width` says it.
    return (scale * grad).unsqueeze(-1).expand(batch_size, channels, width).contiguous()
"""

CHECKS = r"""
import torch
import torch._dynamo.testing
from torch.library import opcheck
import abpool

torch.manual_seed(0)
for shape in [(2, 3, 4), (5, 1, 7), (0, 2, 3)]:
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(*shape, dtype=dtype, requires_grad=True)
        reference_x = x.detach().clone().requires_grad_()
        out, reference = abpool.pool(x, 0.5), 0.5 * reference_x.sum(-1)
        grad = torch.randn_like(reference)
        out.backward(grad)
        reference.backward(grad)
        torch.testing.assert_close(x.grad, reference_x.grad)
        opcheck(torch.ops.abpool.pool.default, (x.detach().requires_grad_(), 0.5))
    if x.numel():
        torch.autograd.gradcheck(lambda t: abpool.pool(t, 0.5),
                                 (torch.randn(*shape, dtype=torch.float64, requires_grad=True),))

for backend in ("aot_eager", "inductor"):
    for dynamic in (False, True):
        counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
        step = torch.compile(lambda t: abpool.pool(t, 2.0).sum(), backend=counter, fullgraph=True, dynamic=dynamic)
        for shape in [(2, 3, 4), (3, 5, 6)]:
            x = torch.randn(*shape, requires_grad=True)
            step(x).backward()
            torch.testing.assert_close(x.grad, torch.full(shape, 2.0))
        # Dynamic: the bound sizes are symbolic, so one graph serves both shapes.
        assert counter.frame_count == (1 if dynamic else 2), (backend, dynamic, counter.frame_count)
print("ok")
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("abpool")
    (root / "schemas").mkdir()
    (root / "schemas" / "pool.yaml").write_text(POOL)
    (root / "schemas" / "pool_backward.yaml").write_text(POOL_BACKWARD)
    (root / "pool_kernels.py").write_text(KERNELS)
    result = run_opgen("generate", "--namespace", "abpool", "-o", root / "gen", root / "schemas")
    assert result.returncode == 0, result.stderr
    return root


def run_python(library, *args):
    env = {"PYTHONPATH": f"{library / 'gen' / 'python'}:{library}:{SOURCE_DIR / 'python'}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, *args], cwd=library, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result.stdout


def test_setup_context_computes_the_bound_arguments(library):
    ops = (library / "gen" / "python" / "abpool" / "_ops.py").read_text()
    assert "def _pool_backward_bindings(x, scale=1.0):\n    return (x.size(0), x.size(1), x.size(-1))" in ops
    assert "ctx.opgen_batch_size, ctx.opgen_channels, ctx.opgen_width = _pool_backward_bindings(*inputs)" in ops


def test_gradients_opcheck_and_compile(library):
    assert "ok" in run_python(library, "-c", CHECKS)


def test_the_generated_suite_passes(library):
    suite = next((library / "gen").rglob("test_abpool_ops.py"))
    assert " passed" in run_python(library, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite))
