"""A project whose ops are torch.library.custom_op functions switches to
opgen (issue 34, items 7 and 8): `opgen import` writes each op's spec with
the schema custom_op infers from the type hints, the function as its kernel
and the fake it registered; the person takes the decorators off, as the
report says; `opgen generate` writes the package (nothing to build). Each
side runs in its own process (both define mylib::*) on the same seeded
inputs: every result bit-identical, in-place ops included; opcheck and
torch.compile(fullgraph=True) pass on the opgen side.

Needs the built tool: run through CTest.
"""

import re

from cli_helpers import SOURCE_DIR, assert_bit_identical, requires_opgen, run_opgen, run_saving_results

pytestmark = requires_opgen

OPS = '''\
from typing import Optional, Sequence

import torch


@torch.library.custom_op("mylib::scaled_add", mutates_args=(), device_types="cpu")
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    out = x + alpha * y
    return out if bias is None else out + bias


@scaled_add.register_fake
def _scaled_add_fake(x, y, alpha=1.0, bias=None):
    return torch.empty_like(x)


@torch.library.custom_op("mylib::accumulate_", mutates_args=("acc",))
def accumulate_(acc: torch.Tensor, xs: Sequence[torch.Tensor], scale: int = 2) -> None:
    for x in xs:
        acc.add_(x, alpha=scale)


@torch.library.custom_op("mylib::row_stats", mutates_args=())
def row_stats(x: torch.Tensor, keep: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    return x.mean(-1, keepdim=keep), x.amax(-1, keepdim=keep)


@torch.library.register_fake("mylib::row_stats")
def _row_stats_fake(x, keep=False):
    shape = (*x.shape[:-1], 1) if keep else x.shape[:-1]
    return x.new_empty(shape), x.new_empty(shape)
'''

# Every op on the same seeded inputs; the results saved for the other process to compare.
RUN = '''
import sys
import torch
{setup}
torch.manual_seed(0)
results = []
for shape in [(4, 8), (3, 1), (0, 5), (2, 3, 4)]:
    x, y, bias = torch.randn(shape), torch.randn(shape), torch.randn(shape[-1:])
    results += [torch.ops.mylib.scaled_add(x, y), torch.ops.mylib.scaled_add(x, y, 0.5, bias)]
    acc = torch.randn(shape)
    torch.ops.mylib.accumulate_(acc, [x, y], 3)
    results.append(acc)
    results += list(torch.ops.mylib.row_stats(x)) + list(torch.ops.mylib.row_stats(x, True))
torch.save(results, sys.argv[1])
{checks}
print("ok")
'''

CHECKS = '''
from torch.library import opcheck
x, y = torch.randn(4, 8), torch.randn(4, 8)
opcheck(torch.ops.mylib.scaled_add.default, (x, y, 0.5, torch.randn(8)))
opcheck(torch.ops.mylib.accumulate_.default, (torch.randn(4, 8), [x, y], 3))
opcheck(torch.ops.mylib.row_stats.default, (x, True))
def step(x, y):
    acc = torch.zeros_like(x)
    torch.ops.mylib.accumulate_(acc, [x, y], 2)
    mean, top = torch.ops.mylib.row_stats(torch.ops.mylib.scaled_add(acc, y, 0.5))
    return mean + top
compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
torch.testing.assert_close(compiled(x, y), step(x, y), rtol=0, atol=0)
'''


def run(project, code, results, pythonpath):
    run_saving_results(code, results, project, {"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin"})


def test_a_custom_op_project_switches_and_gives_the_same_results(tmp_path):
    project = tmp_path / "project"
    (project / "mylib").mkdir(parents=True)
    (project / "mylib" / "__init__.py").write_text("")
    ops = project / "mylib" / "ops.py"
    ops.write_text(OPS)

    # Before: the project as it is.
    run(project, RUN.format(setup="import mylib.ops", checks=""), tmp_path / "before.pt", str(project))

    imported = run_opgen("import", "mylib/ops.py", cwd=project)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "3 ops imported" in imported.stdout and "need a person" not in imported.stdout, imported.stdout
    assert "take the custom_op decorators off the 3 functions" in imported.stdout, imported.stdout
    spec = (project / "schemas" / "scaled_add.yaml").read_text()
    assert 'schema: "scaled_add(Tensor x, Tensor y, float alpha=1.0, Tensor? bias=None) -> Tensor"' in spec, spec
    assert 'CPU: {python: "mylib.ops:scaled_add"}' in spec and 'fake: {python: "mylib.ops:_scaled_add_fake"}' in spec
    accumulate = (project / "schemas" / "accumulate_.yaml").read_text()
    assert "accumulate_(Tensor(a0!) acc, Tensor[] xs, SymInt scale=2) -> ()" in accumulate, accumulate
    assert "CompositeExplicitAutograd: {python:" in accumulate, accumulate  # custom_op without device_types

    # The person's step the report names: the decorators come off, the functions stay.
    ops.write_text(re.sub(r"^@.*\n", "", OPS, flags=re.M))
    generated = run_opgen("generate", "--namespace", "mylib", "--fragment", "--python-package", "mylib_ops", "-o",
                          tmp_path / "gen", project / "schemas")
    assert generated.returncode == 0, generated.stderr

    # After: the package opgen generated, over the same functions.
    run(project, RUN.format(setup="import mylib_ops", checks=CHECKS), tmp_path / "after.pt",
        f"{tmp_path / 'gen' / 'python'}:{project}:{SOURCE_DIR / 'python'}")
    assert_bit_identical(tmp_path / "before.pt", tmp_path / "after.pt", 28)
