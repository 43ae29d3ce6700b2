"""A project that defines its ops in Python the way bitsandbytes does
(issue 34, items 2, 5 and 7): `torch.library.define`, a fake registered as
`_` (every fake of the file is `_`, so none can be named), and kernels the
project registers with `register_kernel`. `opgen import` moves each `_`
fake into python/_fakes.py (under the op's name, with the module's
imports) and keeps the project's kernel registrations where they are,
registered against the spec's def. The person's step is the report's:
drop the defs and fakes now in the specs, keep the kernels. With no C++
kernel in the library the package defines every op: `opgen generate`, as
the report says, and nothing to build. The kernel is the project's, the
fake the moved one: results bit-identical to the project's own, fake
against real, opcheck and torch.compile(fullgraph=True).

Needs the built tool: run through CTest.
"""

import shutil

import pytest

from cli_helpers import SOURCE_DIR, assert_bit_identical, requires_opgen, run_opgen, run_saving_results

pytestmark = requires_opgen

OPS = '''\
from typing import Optional

import torch

register_fake = torch.library.register_fake

torch.library.define("proj::row_scale", "(Tensor x, Tensor? scale=None, float alpha=1.0) -> (Tensor, Tensor)")


@register_fake("proj::row_scale")
def _(x: torch.Tensor, scale: Optional[torch.Tensor] = None, alpha: float = 1.0):
    torch._check(x.dim() == 2, lambda: "x must be 2-D")
    rows = x.shape[0]
    return torch.empty_like(x), torch.empty((rows,), device=x.device, dtype=torch.float32)


@torch.library.register_kernel("proj::row_scale", "cpu")
def _(x, scale=None, alpha=1.0):
    y = x * alpha if scale is None else x * scale[:, None] * alpha
    return y, y.float().abs().amax(dim=1)
'''

# torchao's form (torchao/ops.py): the fakes, all '_', registered through a decorator of the project's own,
# which names the op from its parameter (an f-string import cannot read where it is written).
OPS_THROUGH_HELPER = OPS.replace('''register_fake = torch.library.register_fake
''', '''
def register_custom_op(name):
    def decorator(func):
        return torch.library.register_fake(f"{name}")(func)

    return decorator
''').replace('@register_fake("proj::row_scale")', '@register_custom_op("proj::row_scale")')

RUN = '''
import sys
import torch
{setup}
torch.manual_seed(0)
results = []
for rows, cols in [(4, 8), (1, 3), (0, 5)]:
    x, scale = torch.randn(rows, cols), torch.randn(rows)
    results += list(torch.ops.proj.row_scale(x)) + list(torch.ops.proj.row_scale(x, scale, 0.5))
torch.save(results, sys.argv[1])
{checks}
print("ok")
'''

CHECKS = '''
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.library import opcheck
x, scale = torch.randn(4, 8), torch.randn(4)
with FakeTensorMode() as mode:  # the moved fake, against the project's kernel
    fake = torch.ops.proj.row_scale(mode.from_tensor(x), mode.from_tensor(scale), 0.5)
real = torch.ops.proj.row_scale(x, scale, 0.5)
assert [(f.shape, f.dtype) for f in fake] == [(r.shape, r.dtype) for r in real]
opcheck(torch.ops.proj.row_scale.default, (x, scale, 0.5))
compiled = torch.compile(lambda x, s: torch.ops.proj.row_scale(x, s, 2.0)[1] + 1, fullgraph=True, backend="aot_eager")
torch.testing.assert_close(compiled(x, scale), torch.ops.proj.row_scale(x, scale, 2.0)[1] + 1, rtol=0, atol=0)
'''


@pytest.mark.parametrize("source", [OPS, OPS_THROUGH_HELPER], ids=["torch.library", "the project's decorator"])
def test_a_python_defined_project_switches_with_its_fakes_moved_and_its_kernels_kept(tmp_path, source):
    import os

    project = tmp_path / "project"
    (project / "proj").mkdir(parents=True)
    (project / "proj" / "__init__.py").write_text("")
    ops = project / "proj" / "ops.py"
    ops.write_text(source)
    plain = {"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"}
    run_saving_results(RUN.format(setup="import proj.ops", checks=""), tmp_path / "before.pt", project, plain)

    imported = run_opgen("import", "--python-package", "proj_ops", "proj/ops.py", cwd=project)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    report = imported.stdout
    assert "1 ops imported" in report and "need a person" not in report and "note:" not in report, report
    assert "1 of them with their fake moved into python/_fakes.py" in report, report
    fake_line = next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith('("proj::row_scale")'))
    assert f"next: take out the project's registrations of the 1 fakes the specs take (the package registers them: " \
           f"torch 2.11 refuses a second, later releases let it replace the first): proj/ops.py:{fake_line}" in report
    kernel_line = source.splitlines().index('@torch.library.register_kernel("proj::row_scale", "cpu")') + 1
    assert f"row_scale: cpu (proj/ops.py:{kernel_line}, register_kernel of _ in Python)" in report, report
    assert ("next: generate the package, nothing to build (no C++ kernel): opgen generate --namespace proj "
            "--fragment --python-package proj_ops -o <dir> schemas, then copy python/_fakes.py into the package") \
        in report, report
    spec = (project / "schemas" / "row_scale.yaml").read_text()
    assert "dispatch: []" in spec and 'fake: {python: "proj_ops._fakes:row_scale"}' in spec, spec

    # The person's step: the def and the fake are the specs' now; the kernel registration stays.
    ops.write_text(source.replace(source[source.index("torch.library.define"):
                                         source.index("@torch.library.register_kernel")], ""))
    gen = tmp_path / "gen"
    generated = run_opgen("generate", "--namespace", "proj", "--fragment", "--python-package", "proj_ops", "-o", gen,
                          project / "schemas")
    assert generated.returncode == 0, generated.stderr
    shutil.copy(project / "python" / "_fakes.py", gen / "python" / "proj_ops" / "_fakes.py")
    assert "optional=True)" in (gen / "python" / "proj_ops" / "_ops.py").read_text()  # none built here
    env = {"PYTHONPATH": os.pathsep.join([str(gen / "python"), str(project), str(SOURCE_DIR / "python")]),
           "PATH": "/usr/bin:/bin"}
    # The package defines the op and its fake; then the project registers its kernel against that def.
    run_saving_results(RUN.format(setup="import proj_ops\nimport proj.ops", checks=CHECKS), tmp_path / "after.pt",
                       project, env)
    assert_bit_identical(tmp_path / "before.pt", tmp_path / "after.pt", 12)


NAMED_FAKE = '''\
import torch

torch.library.define("named::twice", "(Tensor x) -> Tensor")


@torch.library.register_fake("named::twice")
def twice_fake(x):
    return torch.empty_like(x)


@torch.library.register_kernel("named::twice", "cpu")
def twice_cpu(x):
    return x * 2
'''


def second_fake_refused():
    """Whether this torch refuses a second register_fake of one op (2.11 does; 2.14 replaces the first)."""
    import torch

    torch.library.define("opgen_probe::f", "(Tensor x) -> Tensor")
    torch.library.register_fake("opgen_probe::f", lambda x: x)
    try:
        torch.library.register_fake("opgen_probe::f", lambda x: x)
    except RuntimeError:
        return True
    return False


def test_a_fake_the_spec_takes_is_registered_once_when_the_report_is_followed(tmp_path):
    """The spec names the project's own fake (`fake: {python: "named.ops:twice_fake"}`), which the package
    registers. The project's registration must go, as the report says where: torch 2.11 refuses a second one
    when the package imports the module."""
    import os
    import subprocess
    import sys

    project = tmp_path / "project"
    (project / "named").mkdir(parents=True)
    (project / "named" / "__init__.py").write_text("")
    ops = project / "named" / "ops.py"
    ops.write_text(NAMED_FAKE)
    imported = run_opgen("import", "--python-package", "named_ops", "named/ops.py", cwd=project)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "registrations of the 1 fakes the specs take (the package registers them: torch 2.11 refuses a second, " \
           "later releases let it replace the first): named/ops.py:6" in imported.stdout, imported.stdout
    spec = (project / "schemas" / "twice.yaml").read_text()
    assert 'fake: {python: "named.ops:twice_fake"}' in spec, spec
    gen = tmp_path / "gen"
    generated = run_opgen("generate", "--namespace", "named", "--fragment", "--python-package", "named_ops", "-o", gen,
                          project / "schemas")
    assert generated.returncode == 0, generated.stderr
    env = {"PYTHONPATH": os.pathsep.join([str(gen / "python"), str(project), str(SOURCE_DIR / "python")]),
           "PATH": "/usr/bin:/bin"}
    check = ("import torch, named_ops, named.ops\n"
             "from torch._subclasses.fake_tensor import FakeTensorMode\n"
             "x = torch.randn(3)\n"
             "assert torch.equal(torch.ops.named.twice(x), x * 2)\n"
             "with FakeTensorMode() as mode:\n"
             "    assert torch.ops.named.twice(mode.from_tensor(x)).shape == (3,)\n"
             "print('ok')\n")
    run = lambda: subprocess.run([sys.executable, "-c", check], env=env, cwd=tmp_path, capture_output=True, text=True)
    # The def moved to the spec; the fake's registration (line 6) not yet: torch 2.11 refuses the second one
    # (later releases let it replace the first, and which fake runs is then the order of imports).
    ops.write_text(NAMED_FAKE.replace('torch.library.define("named::twice", "(Tensor x) -> Tensor")\n', ""))
    before = run()
    if second_fake_refused():
        assert before.returncode != 0 and "already has an fake impl" in before.stderr, before.stderr[-2000:]
    # The report's step: that registration taken out, the function kept (the spec names it).
    ops.write_text(ops.read_text().replace('@torch.library.register_fake("named::twice")\n', ""))
    after = run()
    assert after.returncode == 0 and "ok" in after.stdout, after.stderr[-2000:]
