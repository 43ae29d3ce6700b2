"""What a type checker sees of a built op library (here the in-tree one,
opgen_ops): the package ships py.typed (PEP 561) and the generated _ops.pyi,
whose __all__ lists the ops, so mypy checks a user's calls against each op's schema. mypy runs on a small
script with known mistakes and must report exactly those (a star-import
gives the ops and nothing else only because __all__ has values).

Needs the built package on PYTHONPATH (CTest sets it to <build>/python).
mypy analyses torch too (about 25 s): a Tensor where an int belongs is
caught only with torch's own types.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

USER_SCRIPT = """\
import torch
import opgen_ops
from opgen_ops import *

x, w = torch.randn(4, 8), torch.randn(8)
ok: torch.Tensor = opgen_ops.rms_norm(x, w, 1e-6)
ok = opgen_ops.rms_norm(x, w, eps=1e-6)
ok = rms_norm(x, w)  # through the star-import
Sequence  # E: name-defined
out, rstd = opgen_ops.rms_norm_backward(x, x, w, 1e-6)
handle: int = opgen_ops.runner_create(2.0)
opgen_ops.rms_norm(x, w, "1e-6")  # E: arg-type
opgen_ops.rms_norm(x)  # E: call-arg
opgen_ops.rms_norm(x, w, epsilon=1e-6)  # E: call-arg
n: int = opgen_ops.rms_norm(x, w)  # E: assignment
opgen_ops.runner_apply(x, x)  # E: arg-type
result = opgen_ops.multi_tensor_scale_([x], 2.0)  # E: func-returns-value
opgen_ops.frobnicate(x)  # E: attr-defined
"""


def package_dir():
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and (Path(entry) / "opgen_ops" / "_ops.pyi").is_file():
            return Path(entry)
    pytest.skip("the built opgen_ops package is not on PYTHONPATH")


def test_mypy_checks_calls_against_the_generated_stub(tmp_path):
    site = package_dir()
    assert (site / "opgen_ops" / "py.typed").is_file()
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary",
                           "--show-error-codes", script.name], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(site)})
    reported = sorted({(int(line), code) for line, code in
                       re.findall(r"^user\.py:(\d+): error: .*\[([a-z-]+)\]$", proc.stdout, re.M)})
    expected = sorted((n, m.group(1)) for n, text in enumerate(USER_SCRIPT.splitlines(), 1)
                      if (m := re.search(r"# E: ([a-z-]+)$", text)))
    assert reported == expected, proc.stdout + proc.stderr
