"""A project whose ops are torch.library.custom_op functions switches to
opgen (issue 34, items 7 and 8): `opgen import` writes each op's spec with
the schema custom_op infers from the type hints, the function as its kernel
and the fake it registered; the person changes what the report lists
(scripts/apply_python_deletions.py: the fakes' registrations out, each
custom_op decorator `@op_kernel(...)`); `opgen generate` writes the package
(nothing to build). Each side runs in its own process (both define
mylib::*) on the same seeded inputs: every result bit-identical, in-place
ops included, and the gradients of the autograd the project registers by
the op's name or on custom_op's object, also through calls of the
functions' names (which must still reach the ops), and a backward through
an op with no formula raising on both sides (the package defines the ops
through custom_op, `define: custom_op`); opcheck and
torch.compile(fullgraph=True) pass on the opgen side.

Needs the built tool: run through CTest.
"""

import json
import re
import shutil
import subprocess
import sys

from cli_helpers import SOURCE_DIR, assert_bit_identical, requires_opgen, run_opgen, run_saving_results

pytestmark = requires_opgen

OPS = '''\
from typing import Optional, Sequence

import torch
import torch.nn.functional as F
from torch.library import triton_op

# Defaults spelled with module constants: import reads their values as PyTorch fixes them
# (the conditional's branches agree), and moves the `_` fake with the values it repeats.
_DEFAULT_SHIFT = (
    int(F.ScalingType.RowWise) if hasattr(F, "ScalingType") else 1
)
BLOCK: int = 4
SCALE = 0.25
STEP = SCALE


@torch.library.custom_op("mylib::scaled_add", mutates_args=(), device_types="cpu")
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    out = x + alpha * y
    return out if bias is None else out + bias


@scaled_add.register_fake
def _scaled_add_fake(x, y, alpha=1.0, bias=None):
    return torch.empty_like(x)


def _scaled_add_setup(ctx, inputs, output):
    ctx.alpha = inputs[2]


def _scaled_add_backward(ctx, grad):
    return grad, grad * ctx.alpha, None, None


# Autograd registered on the op by name: it stays the project's, and works against the package's def.
torch.library.register_autograd("mylib::scaled_add", _scaled_add_backward, setup_context=_scaled_add_setup)


@torch.library.custom_op("mylib::round_ste", mutates_args=())
def round_ste(x: torch.Tensor) -> torch.Tensor:
    return torch.round(x)


@round_ste.register_fake
def _(x):
    return torch.empty_like(x)


# A straight-through gradient: what only the op has (the function's own is round's, zero).
torch.library.register_autograd("mylib::round_ste", lambda ctx, grad: grad)


# As TorchMD-Net's warp ops are written: the kernel is `_`, and so is the fake after it, which rebinds the name.
@torch.library.custom_op("mylib::twice", mutates_args=(), device_types=["cpu"])
def _(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@torch.library.register_fake("mylib::twice")
def _(x):
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


@torch.library.custom_op("mylib::shifted", mutates_args=())
def shifted(x: torch.Tensor, shift: int = _DEFAULT_SHIFT, block: int = BLOCK, step: float = STEP) -> torch.Tensor:
    return x * step + shift * block


@shifted.register_fake
def _(x, shift=_DEFAULT_SHIFT, block=BLOCK, step=STEP):
    return torch.empty_like(x)


# The custom_op object's own registrations, as PyTorch's docs write them: they stay the project's, and reach
# the op through op_kernel's object once the decorator is switched.
@torch.library.custom_op("mylib::cube", mutates_args=())
def cube(x: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError("cube's CPU kernel is the one registered below")


@cube.register_fake
def _cube_fake(x):
    return torch.empty_like(x)


@cube.register_kernel("cpu")
def _cube_cpu(x):
    return x * x * x


def _cube_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _cube_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 3 * x * x


cube.register_autograd(_cube_backward, setup_context=_cube_setup)


def _halve(x: torch.Tensor) -> torch.Tensor:
    return x / 2


# custom_op called, not decorating: the custom_op object is the name it is assigned to.
halve = torch.library.custom_op("mylib::halve", _halve, mutates_args=())


@halve.register_fake
def _halve_fake(x):
    return torch.empty_like(x)


def _negate(x: torch.Tensor) -> torch.Tensor:
    return -x


negate = torch.library.custom_op("mylib::negate", mutates_args=())(_negate)


@torch.library.register_fake("mylib::negate")
def _negate_fake(x):
    return torch.empty_like(x)


# triton_op: its function is its fake too, traced by torch.compile (plain torch ops stand in for
# wrap_triton launches, which need a GPU).
@triton_op("mylib::traced_scale", mutates_args=())
def traced_scale(x: torch.Tensor, a: float = 2.0) -> torch.Tensor:
    out = torch.empty_like(x)
    out.copy_(x * a)
    return out


# A triton_op with a fake of its own (ExecuTorch's, for torch.export): it replaces the function as the fake.
@triton_op("mylib::traced_shift", mutates_args=())
def traced_shift(x: torch.Tensor, b: float) -> torch.Tensor:
    return x + b


@traced_shift.register_fake
def _traced_shift_fake(x, b):
    return torch.empty_like(x)
'''

# Every op on the same seeded inputs; the results saved for the other process to compare.
RUN = '''
import sys
import torch
{setup}
import mylib.ops as named
torch.manual_seed(0)
results = []
for shape in [(4, 8), (3, 1), (0, 5), (2, 3, 4)]:
    x, y, bias = torch.randn(shape), torch.randn(shape), torch.randn(shape[-1:])
    results += [torch.ops.mylib.scaled_add(x, y), torch.ops.mylib.scaled_add(x, y, 0.5, bias)]
    acc = torch.randn(shape)
    torch.ops.mylib.accumulate_(acc, [x, y], 3)
    results.append(acc)
    results += list(torch.ops.mylib.row_stats(x)) + list(torch.ops.mylib.row_stats(x, True))
    results += [torch.ops.mylib.shifted(x), torch.ops.mylib.shifted(x, 3, 2, 0.5)]
    x.requires_grad_(), y.requires_grad_()
    torch.ops.mylib.scaled_add(x, y, 0.5).backward(torch.randn(shape))
    results += [x.grad, y.grad]
    # By their Python names, as the project's own code calls them: the ops (custom_op's objects, then op_kernel's).
    rounded = named.round_ste(x * 3)
    rounded.backward(torch.randn(shape))
    results += [rounded.detach(), x.grad, named.scaled_add(x.detach(), y.detach(), 0.5)]
    results.append(torch.ops.mylib.twice(x.detach()))
    cubed = named.cube(x)
    cubed.backward(torch.randn(shape))
    results += [cubed.detach(), x.grad]
    results += [named.halve(x.detach()), named.negate(x.detach()), named.traced_scale(x.detach(), 0.5),
                torch.ops.mylib.traced_scale(x.detach()), named.traced_shift(x.detach(), 1.5)]
    # custom_op's Autograd kernel: a backward through an op with no formula raises (it does not pass silently).
    try:
        torch.ops.mylib.twice(x).sum().backward()
        raise AssertionError("a backward through mylib::twice did not raise")
    except RuntimeError as error:
        assert "no autograd formula was registered" in str(error), error
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
opcheck(torch.ops.mylib.shifted.default, (x,))
opcheck(torch.ops.mylib.round_ste.default, (x,))
opcheck(torch.ops.mylib.twice.default, (x,))
opcheck(torch.ops.mylib.cube.default, (x.requires_grad_(),))
x = x.detach()
opcheck(torch.ops.mylib.halve.default, (x,))
opcheck(torch.ops.mylib.negate.default, (x,))
opcheck(torch.ops.mylib.traced_scale.default, (x, 0.5))
opcheck(torch.ops.mylib.traced_shift.default, (x, 0.5))
def step(x, y):
    acc = torch.zeros_like(x)
    torch.ops.mylib.accumulate_(acc, [x, y], 2)
    acc = torch.ops.mylib.traced_scale(torch.ops.mylib.negate(acc), 0.5)
    mean, top = torch.ops.mylib.row_stats(torch.ops.mylib.scaled_add(torch.ops.mylib.shifted(acc), y, 0.5))
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

    imported = run_opgen("import", "--python-package", "mylib_ops", "mylib/ops.py", cwd=project)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "11 ops imported" in imported.stdout and "need a person" not in imported.stdout, imported.stdout
    assert "drop the sources' own registrations" not in imported.stdout, imported.stdout  # none in a build
    # Where each decorator and fake registration is, for the person (or a script) to change.
    lines = OPS.splitlines()
    at = [f"mylib/ops.py:{i + 1}" for i, line in enumerate(lines)
          if line.startswith(("@torch.library.custom_op", "@triton_op")) or " = torch.library.custom_op(" in line]
    assert "replace the custom_op and triton_op decorators and calls of the 11 functions the specs name under " \
           '\'kernels:\' with op_kernel("<ns>::<op>") (`@op_kernel(...)` on a def, `op_kernel(...)(fn)` called), ' \
           "`from mylib_ops._opgen_runtime import op_kernel` (the package defines those ops and registers the " \
           "functions as their kernels; a call of a function's name still calls its op, as custom_op's object " \
           f"did): {', '.join(at)}" in imported.stdout, imported.stdout
    fakes = [f"mylib/ops.py:{i + 1}" for i, line in enumerate(lines) if "register_fake" in line]
    assert "registrations of the 9 fakes the specs take" in imported.stdout, imported.stdout
    assert all(f in imported.stdout for f in fakes), imported.stdout
    autograd = next(i + 1 for i, line in enumerate(lines) if line.startswith("torch.library.register_autograd"))
    assert f"scaled_add: Autograd (mylib/ops.py:{autograd}, register_autograd of _scaled_add_backward in Python)" \
        in imported.stdout, imported.stdout
    # The custom_op object's other registrations are kept, named with where they are.
    for method, key in (("register_kernel", "CPU"), ("register_autograd", "Autograd")):
        line = next(i + 1 for i, text in enumerate(lines) if text.startswith(("cube." + method, "@cube." + method)))
        assert f"{key} (mylib/ops.py:{line}, cube.{method} in Python)" in imported.stdout, imported.stdout
    spec = (project / "schemas" / "scaled_add.yaml").read_text()
    # Defined through custom_op, as the project had it: its Autograd kernel raises where no formula is registered.
    assert "define: custom_op" in spec, spec
    traced = (project / "schemas" / "traced_scale.yaml").read_text()  # triton_op's kernel is its fake
    assert "define: triton_op" in traced and "fake:" not in traced, traced
    assert 'schema: "traced_scale(Tensor x, float a=2.0) -> Tensor"' in traced, traced
    shift = (project / "schemas" / "traced_shift.yaml").read_text()  # but for a fake of the project's
    assert "define: triton_op" in shift and 'fake: {python: "mylib.ops:_traced_shift_fake"}' in shift, shift
    assert 'schema: "scaled_add(Tensor x, Tensor y, float alpha=1.0, Tensor? bias=None) -> Tensor"' in spec, spec
    assert 'CPU: {python: "mylib.ops:scaled_add"}' in spec and 'fake: {python: "mylib.ops:_scaled_add_fake"}' in spec
    accumulate = (project / "schemas" / "accumulate_.yaml").read_text()
    assert "accumulate_(Tensor(a0!) acc, Tensor[] xs, SymInt scale=2) -> ()" in accumulate, accumulate
    assert "CompositeExplicitAutograd: {python:" in accumulate, accumulate  # custom_op without device_types
    shifted = (project / "schemas" / "shifted.yaml").read_text()
    assert 'schema: "shifted(Tensor x, SymInt shift=1, SymInt block=4, float step=0.25) -> Tensor"' in shifted, shifted
    fakes = (project / "python" / "_fakes.py").read_text()
    assert "def shifted(x, shift=1, block=4, step=0.25):" in fakes, fakes

    # The person's step the report names: the decorators come off, the functions stay (the report's lines).
    (tmp_path / "report.txt").write_text(imported.stdout)
    taken = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "apply_python_deletions.py",
                            tmp_path / "report.txt", project], capture_output=True, text=True)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    switched = [re.sub(r'^@(?:torch\.library\.custom_op|triton_op)\(("[^"]*").*', r"@op_kernel(\1)", line)
                for line in OPS.split("\n")]
    switched = [re.sub(r'^(\w+) = torch\.library\.custom_op\(("[^"]*"), (\w+),.*', r"\1 = op_kernel(\2)(\3)", line)
                for line in switched]
    switched = [re.sub(r'^(\w+) = torch\.library\.custom_op\(("[^"]*").*\((\w+)\)$', r"\1 = op_kernel(\2)(\3)", line)
                for line in switched]
    switched = ["" if line.startswith("@") and "register_fake" in line else line for line in switched]
    assert ops.read_text().split("\n") == ["from mylib_ops._opgen_runtime import op_kernel"] + switched
    generated = run_opgen("generate", "--namespace", "mylib", "--fragment", "--python-package", "mylib_ops", "-o",
                          tmp_path / "gen", project / "schemas")
    assert generated.returncode == 0, generated.stderr
    shutil.copy(project / "python" / "_fakes.py", tmp_path / "gen" / "python" / "mylib_ops")  # as the report says

    # After: the package opgen generated, over the same functions.
    run(project, RUN.format(setup="import mylib_ops, mylib.ops", checks=CHECKS), tmp_path / "after.pt",
        f"{tmp_path / 'gen' / 'python'}:{project}:{SOURCE_DIR / 'python'}")
    assert_bit_identical(tmp_path / "before.pt", tmp_path / "after.pt", 88)


RUN_TIME_DEFAULTS = '''\
import torch
import torch.nn.functional as F
from .config import e4m3_dtype

LIMIT = 1 if torch.cuda.is_available() else 2
TWICE = 1
TWICE = 2
GROWN = 1
GROWN += 1
LOOP = LOOP_BACK
LOOP_BACK = LOOP
try:
    BLOCKED = 1
finally:
    pass


@torch.library.custom_op("later::branches", mutates_args=())
def branches(x: torch.Tensor, n: int = LIMIT) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::elsewhere", mutates_args=())
def elsewhere(x: torch.Tensor, dtype: torch.dtype = e4m3_dtype) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::rebound", mutates_args=())
def rebound(x: torch.Tensor, a: int = TWICE) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::blocked", mutates_args=())
def blocked(x: torch.Tensor, b: int = BLOCKED) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::grown", mutates_args=())
def grown(x: torch.Tensor, b: int = GROWN) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::member", mutates_args=())
def member(x: torch.Tensor, scaling: int = F.ScalingType.TensorWise) -> torch.Tensor:
    return x.clone()


@torch.library.custom_op("later::cycle", mutates_args=())
def cycle(x: torch.Tensor, n: int = LOOP) -> torch.Tensor:
    return x.clone()
'''


def test_a_default_known_only_when_its_module_runs_needs_a_person_with_the_reason(tmp_path):
    """A default import cannot fix from the source alone (branches that differ, a value from a module it
    does not run, a name bound twice, an enum member custom_op cannot write, names that only lead to each
    other) is not guessed: the op needs a person, told why."""
    (tmp_path / "later").mkdir()
    (tmp_path / "later" / "ops.py").write_text(RUN_TIME_DEFAULTS)
    proc = run_opgen("import", "later/ops.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "7 ops need a person" in proc.stdout and "0 ops imported" in proc.stdout, proc.stdout
    for reason in ("(LIMIT (line 5): it is 1 or 2, as `torch.cuda.is_available()` decides when the module runs)",
                   "(e4m3_dtype is imported from a module import does not run)",
                   "(TWICE is assigned more than once, or inside a block, in its module)",
                   "(GROWN is assigned more than once, or inside a block, in its module)",
                   "(BLOCKED is assigned more than once, or inside a block, in its module)",
                   "(F.ScalingType.TensorWise is an enum member, which custom_op writes as no default: "
                   "int(F.ScalingType.TensorWise) is one)",
                   "(LOOP (line 10): LOOP_BACK (line 11): LOOP refers back to itself)"):
        assert reason in proc.stdout, (reason, proc.stdout)


def test_pytorchs_enums_are_read_with_the_values_torch_gives_them(tmp_path):
    """`int(F.ScalingType.X)` as a default: the value import writes for every member PyTorch's enums have
    is the one torch.library.infer_schema writes (the table in python_values.cpp, checked against torch)."""
    import torch
    import torch.nn.functional as F

    members = [(enum, member) for enum in ("ScalingType", "SwizzleType")
               for member in getattr(F, enum).__members__]
    params = ", ".join(f"p{i}: int = int(F.{enum}.{member})" for i, (enum, member) in enumerate(members))
    source = (f"import torch\nimport torch.nn.functional as F\n\n\n@torch.library.custom_op(\"enums::all\", "
              f"mutates_args=())\ndef all_members(x: torch.Tensor, {params}) -> torch.Tensor:\n    return x\n")
    (tmp_path / "enums.py").write_text(source)
    proc = run_opgen("import", "enums.py", cwd=tmp_path)
    assert proc.returncode == 0 and "1 ops imported" in proc.stdout, proc.stdout + proc.stderr
    written = json.loads(re.search(r'^schema: (".*")$', (tmp_path / "schemas" / "all.yaml").read_text(), re.M)[1])
    scope = {}
    exec(compile(source.replace("enums::all", "opgen_test_enums::all"), "enums.py", "exec"), scope)
    expected = str(torch.ops.opgen_test_enums.all.default._schema).split("::", 1)[1]
    assert torch._C.parse_schema(f"ns::{written}") == torch._C.parse_schema(f"ns::{expected}"), (written, expected)


def test_a_custom_op_called_inside_another_statement_needs_a_person(tmp_path):
    """The switch replaces the statement that defines an op (a decorator, `name = custom_op(...)`); one called
    inside another statement would go on defining the op beside the package (PyTorch refuses the second def), so
    it needs a person, told how to make it one the report can switch."""
    (tmp_path / "ops.py").write_text('''\
import torch


def _twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _thrice(x: torch.Tensor) -> torch.Tensor:
    return x * 3


OPS = {"twice": torch.library.custom_op("nested::twice", _twice, mutates_args=())}
thrice = torch.library.custom_op("nested::thrice", _thrice, mutates_args=())
''')
    proc = run_opgen("import", "ops.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported" in proc.stdout and "1 ops need a person" in proc.stdout, proc.stdout
    assert ("ops.py:12: custom_op is called inside another statement: make it one of its own "
            '(`twice = custom_op("nested::twice", _twice, ...)`) for the report to switch it') in proc.stdout, proc.stdout
    assert "functions the specs name under 'kernels:' with op_kernel" in proc.stdout and "ops.py:13\n" in proc.stdout


def test_switching_a_block_s_only_statement_leaves_pass(tmp_path):
    """A fake registered as the only statement of a block (`if hasattr(...):`, as vLLM's _custom_ops.py guards
    its fakes) comes out as the report says, and the block keeps a `pass`: the switched module still imports."""
    (tmp_path / "blocky").mkdir()
    (tmp_path / "blocky" / "ops.py").write_text('''\
import torch


@torch.library.custom_op("blocky::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _twice_fake(x):
    return torch.empty_like(x)


if hasattr(torch.library, "register_fake"):
    torch.library.register_fake("blocky::twice", _twice_fake)
print("imported")
''')
    proc = run_opgen("import", "--python-package", "blocky_ops", "blocky/ops.py", cwd=tmp_path)
    assert proc.returncode == 0 and "1 ops imported" in proc.stdout, proc.stdout + proc.stderr
    # The decorator's switch before the fake's line, as a report of several namespaces orders them (one's
    # switch, then the next one's fakes): each change is made whatever came before it.
    lines = proc.stdout.splitlines()
    switch = next(i for i, line in enumerate(lines) if "replace the custom_op" in line)
    lines.insert(0, lines.pop(switch))
    (tmp_path / "report.txt").write_text("\n".join(lines) + "\n")
    taken = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "apply_python_deletions.py",
                            tmp_path / "report.txt", tmp_path], capture_output=True, text=True)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    switched = (tmp_path / "blocky" / "ops.py").read_text().splitlines()
    assert switched[0] == "from blocky_ops._opgen_runtime import op_kernel", switched
    assert switched[4] == '@op_kernel("blocky::twice")' and switched[13:16] == [
        'if hasattr(torch.library, "register_fake"):', "    pass", 'print("imported")'], switched


HELPER = '''\
from typing import Callable

import torch
from torch.library import Library, infer_schema

# create a library to hold the custom op
vl_lib = Library("vl", "FRAGMENT")  # noqa


def current_dispatch_key() -> str:  # vLLM's current_platform.dispatch_key
    return "CPU"


def direct_register_custom_op(
    op_name: str,
    op_func: Callable,
    mutates_args: list[str] | None = None,
    fake_impl: Callable | None = None,
    target_lib: Library | None = None,
    dispatch_key: str | None = None,
    tags: tuple[torch.Tag, ...] = (),
):
    if mutates_args is None:
        mutates_args = []

    if dispatch_key is None:
        dispatch_key = current_dispatch_key()

    schema_str = infer_schema(op_func, mutates_args=mutates_args)

    my_lib = target_lib or vl_lib
    my_lib.define(op_name + schema_str, tags=tags)
    my_lib.impl(op_name, op_func, dispatch_key=dispatch_key)
    if fake_impl is not None:
        my_lib._register_fake(op_name, fake_impl)
'''

HELPER_CALLS = '''\
import torch

from vl.utils import direct_register_custom_op


def scaled(x: torch.Tensor, alpha: float = 2.0) -> torch.Tensor:
    return x * alpha


def scaled_fake(x: torch.Tensor, alpha: float = 2.0) -> torch.Tensor:
    return torch.empty_like(x)


direct_register_custom_op(
    op_name="scaled",
    op_func=scaled,
    fake_impl=scaled_fake,
    tags=(torch.Tag.pt2_compliant_tag,),
)


def accumulate_(acc: torch.Tensor, x: torch.Tensor) -> None:
    acc.add_(x)


def accumulate_fake(acc: torch.Tensor, x: torch.Tensor) -> None:
    return None


direct_register_custom_op("accumulate_", accumulate_, ["acc"], accumulate_fake)
'''

HELPER_RUN = '''
import sys
import torch
import vl.layer  # registers the ops, through the helper
torch.manual_seed(0)
results = []
for shape in [(3,), (2, 5), (0, 4)]:
    x = torch.randn(shape)
    results += [torch.ops.vl.scaled(x), torch.ops.vl.scaled(x, 0.5)]
    acc = torch.randn(shape)
    torch.ops.vl.accumulate_(acc, x)
    results.append(acc)
torch.save(results, sys.argv[1])
from torch.library import opcheck
opcheck(torch.ops.vl.scaled.default, (torch.randn(3), 3.0))
opcheck(torch.ops.vl.accumulate_.default, (torch.randn(3), torch.randn(3)))
compiled = torch.compile(lambda t: torch.ops.vl.scaled(t) + 1, fullgraph=True, backend="aot_eager")
assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 3.0))
assert torch.ops.vl.scaled.default.tags == [torch.Tag.pt2_compliant_tag]
print("ok")
'''


def test_a_projects_registration_helper_switches_and_gives_the_same_results(tmp_path):
    """vLLM's and SGLang's `direct_register_custom_op` (infer_schema, define, impl and _register_fake in one call),
    given with the files that call it: each call is an op, its schema the one infer_schema makes of op_func, its
    fake fake_impl, its kernel the helper's impl at the key the module computes, kept. The switch: the helper's
    define and _register_fake come out (the package defines the ops and registers their fakes), it imports the
    package; every result the same, opcheck and compile pass on both sides."""
    project = tmp_path / "project"
    (project / "vl").mkdir(parents=True)
    (project / "vl" / "__init__.py").write_text("")
    (project / "vl" / "utils.py").write_text(HELPER)
    (project / "vl" / "layer.py").write_text(HELPER_CALLS)
    run(project, HELPER_RUN, tmp_path / "before.pt", str(project))

    imported = run_opgen("import", "--python-package", "vl_ops", "vl", cwd=project)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "2 ops imported" in imported.stdout and "need a person" not in imported.stdout, imported.stdout
    assert "define() with a schema built at run time" not in imported.stdout, imported.stdout  # the helper's own
    assert "of direct_register_custom_op make" not in imported.stdout, imported.stdout  # every call is a spec
    assert "scaled: a key computed when the module runs (vl/layer.py:14, direct_register_custom_op of scaled in " \
           "Python)" in imported.stdout, imported.stdout
    line = {what: next(i + 1 for i, text in enumerate(HELPER.split("\n")) if what in text)
            for what in ("def direct_register_custom_op", "my_lib.define(", "my_lib._register_fake(")}
    assert "take out the project's defs of the 2 ops the specs define (the package defines them: a second def " \
           f"raises): vl/utils.py:{line['my_lib.define(']}\n" in imported.stdout, imported.stdout
    assert "take out the project's registrations of the 2 fakes the specs take" in imported.stdout and \
           f"vl/utils.py:{line['my_lib._register_fake(']}\n" in imported.stdout, imported.stdout
    assert "import the package where direct_register_custom_op is defined, so that the ops it registers kernels for " \
           "are defined wherever it runs (`import vl_ops  # noqa: F401`): " \
           f"vl/utils.py:{line['def direct_register_custom_op']}\n" in imported.stdout, imported.stdout
    accumulate = (project / "schemas" / "accumulate_.yaml").read_text()
    assert 'schema: "accumulate_(Tensor(a0!) acc, Tensor x) -> ()"' in accumulate, accumulate
    assert 'dispatch: []' in accumulate and 'fake: {python: "vl.layer:accumulate_fake"}' in accumulate, accumulate
    assert "tags: [pt2_compliant_tag]" in (project / "schemas" / "scaled.yaml").read_text()

    (tmp_path / "report.txt").write_text(imported.stdout)
    taken = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "apply_python_deletions.py",
                            tmp_path / "report.txt", project], capture_output=True, text=True)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    helper = (project / "vl" / "utils.py").read_text().split("\n")
    # (One line more at the top: the import.)
    assert helper[0] == "import vl_ops  # noqa: F401" and helper[line["my_lib.define("]] == "" and \
        helper[line["my_lib._register_fake("]] == "        pass", helper
    generated = run_opgen("generate", "--namespace", "vl", "--fragment", "--python-package", "vl_ops", "-o",
                          tmp_path / "gen", project / "schemas")
    assert generated.returncode == 0, generated.stderr
    # The package's fakes import vl.layer when first called: vl.layer imports vl.utils, which imports the package.
    run(project, HELPER_RUN, tmp_path / "after.pt", f"{tmp_path / 'gen' / 'python'}:{project}")
    assert_bit_identical(tmp_path / "before.pt", tmp_path / "after.pt", 9)


def test_a_helper_call_that_makes_no_spec_keeps_the_helpers_define(tmp_path):
    """Taking direct_register_custom_op's define out is for when every op it registers is a spec: a call import
    cannot read (a name the module computes) keeps needing it, and the report says so."""
    (tmp_path / "vl").mkdir()
    (tmp_path / "vl" / "utils.py").write_text(HELPER)
    (tmp_path / "vl" / "layer.py").write_text(HELPER_CALLS + "\n\nfor suffix in ('a', 'b'):\n"
                                              "    direct_register_custom_op('scaled_' + suffix, scaled)\n")
    proc = run_opgen("import", "--python-package", "vl_ops", "vl", cwd=tmp_path)
    assert proc.returncode == 0 and "2 ops imported" in proc.stdout, proc.stdout + proc.stderr
    assert "direct_register_custom_op(...) registers an op through the project's own helper, its name one the " \
           "module computes: not imported" in proc.stdout, proc.stdout
    assert "note: 1 call of direct_register_custom_op makes no spec (above): taking its define and _register_fake " \
           "out leaves its op without a def; keep them until every op it registers is a spec, and every file that " \
           "calls it was given" in proc.stdout, proc.stdout
