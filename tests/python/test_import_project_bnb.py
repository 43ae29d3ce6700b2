"""A third real project switches: bitsandbytes, whose ops are defined in
Python (issue 34, item 8). `_ops.py` defines each op with
`torch.library.define` and registers its fake as `_` (no name to name it
by); the kernels are `register_kernel`s of backends (`backends/default/ops.py`
is the portable one, pure PyTorch, at the `default` key). The files are
tests/import/projects/, verbatim; the test writes the package's
`__init__.py` (bitsandbytes' own imports its native library and every
backend), importing the two modules that register.

`opgen import --python-package bnb_ops bitsandbytes` takes every op with the
schema as written, in its namespace, and every fake (19 of 19, each moved into
python/_fakes.py, those of the `-> ()` ops too, with their checks); the
kernels stay the project's, registered against the spec's def. The person's
steps are the report's: take out the defs and the fake registrations it
lists (line by line), generate the package (nothing to build), and import it
before the project. Then both, each in a process of its own, call every op
on the same seeded inputs, and every result is compared bit for bit; the
imported ops pass opcheck and compile with fullgraph=True.

bitsandbytes' default kernels wrap four helpers in torch.compile, with a
fallback to eager: the comparison runs them eagerly in both processes
(TORCHDYNAMO_DISABLE=1), as Inductor's CPU compile of every shape would take
minutes; the checks run with Dynamo.

Needs the built tool: run through CTest.
"""

import ast
import os
import re
import shutil
import subprocess
import sys

import pytest

from cli_helpers import SOURCE_DIR, compare_saved_results, requires_opgen, run_check, run_opgen, run_saving_results

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "bitsandbytes-foundation__bitsandbytes"
# What bitsandbytes' own __init__.py imports of the files here (it imports its native library and every backend too).
INIT = "from . import _ops\nfrom .backends.default import ops as default_ops\n"
NAMESPACE_OPS = 19


def project_copy(tmp_path):
    project = tmp_path / "bitsandbytes-project"
    shutil.copytree(PROJECT, project)
    (project / "bitsandbytes" / "__init__.py").write_text(INIT)
    return project


def take_out(path, lines, fake_lines):
    """The report's steps on one file: each define() statement's lines, and each fake whose registration
    (its decorator) is at one of fake_lines, with its function, as a person deletes them."""
    text = path.read_text()
    doomed = set()
    for first, last in lines:
        doomed.update(range(first, last + 1))
    fakes = set(fake_lines)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and any(d.lineno in fakes for d in node.decorator_list):
            fakes -= {d.lineno for d in node.decorator_list}
            doomed.update(range(node.decorator_list[0].lineno, node.end_lineno + 1))
    assert not fakes, f"no decorated function at {fakes}"
    path.write_text("".join(line for n, line in enumerate(text.splitlines(keepends=True), 1) if n not in doomed))


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The project imported and switched as the report says: (the report, the project, an environment in which
    Python imports the generated package and the project)."""
    tmp_path = tmp_path_factory.mktemp("imported")
    project = project_copy(tmp_path)
    proc = run_opgen("import", "--python-package", "bnb_ops", "bitsandbytes", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = proc.stdout
    assert f"{NAMESPACE_OPS} ops imported as schemas/<op>.yaml, 0 of them with their kernels as they are" in report
    assert f"{NAMESPACE_OPS} of them with their fake moved into python/_fakes.py" in report, report
    assert "need a person" not in report and "need their fake written" not in report, report
    # Every schema as written, in its namespace.
    written = dict(re.findall(r'torch\.library\.define\(\s*"bitsandbytes::([^"]+)",\s*((?:"[^"]*"\s*)+),?\s*\)',
                              (PROJECT / "bitsandbytes" / "_ops.py").read_text()))
    assert len(written) == NAMESPACE_OPS
    for op, literals in written.items():
        schema = "".join(re.findall(r'"([^"]*)"', literals))
        spec = (project / "schemas" / f"{op}.yaml").read_text()
        assert f'schema: "bitsandbytes::{op}{schema}"' in spec, spec
        assert f'fake: {{python: "bnb_ops._fakes:{op.replace(".", "_")}"}}' in spec, spec
    # The person's steps, as the report words them: the defs and the fakes' registrations out...
    defs = re.search(r"^  next: take out the project's defs of the 19 ops the specs define \(the package defines "
                     r"them: a second def raises\): (.*)$", report, re.M)
    fakes = re.search(r"^  next: take out the project's registrations of the 19 fakes the specs take .*: (.*)$",
                      report, re.M)
    assert defs and fakes, report
    def_lines = [tuple(map(int, (m[1], m[2] or m[1]))) for m in re.finditer(r"bitsandbytes/_ops\.py:(\d+)(?:-(\d+))?",
                                                                           defs[1])]
    fake_lines = [int(n) for n in re.findall(r"bitsandbytes/_ops\.py:(\d+)", fakes[1])]
    assert len(def_lines) == len(fake_lines) == NAMESPACE_OPS, report
    take_out(project / "bitsandbytes" / "_ops.py", def_lines, fake_lines)
    # The comments before a define stay with it, not with the fake moved from above it.
    assert "# Higher level op" not in (project / "python" / "_fakes.py").read_text()
    left = (project / "bitsandbytes" / "_ops.py").read_text()
    assert "torch.library.define" not in left and "@register_fake" not in left, left
    # ...then the package, generated as the report says, nothing to build.
    step = re.search(r"^  next: generate the package, nothing to build \(no C\+\+ kernel\): opgen (generate .*) "
                     r"-o <dir> schemas, then copy python/_fakes.py into the package$", report, re.M)
    assert step, report
    gen = tmp_path / "gen"
    generated = run_opgen(*step[1].split(), "-o", gen, project / "schemas")
    assert generated.returncode == 0, generated.stderr
    shutil.copy(project / "python" / "_fakes.py", gen / "python" / "bnb_ops" / "_fakes.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(gen / "python"), str(project), str(SOURCE_DIR / "python")])}
    return report, project, env


# Every op on seeded inputs: three dtypes; a decode row, small batches and an empty one; outliers and none; two
# blocksizes with a remainder; nf4 and fp4 in two storage dtypes; nested absmax; six optimizers, three steps
# each. An op the project has no CPU kernel for is refused alike (NotImplementedError), recorded by type.
RUN_OPS = """
import sys, torch
{setup}
out_file = sys.argv[1]
ops = torch.ops.bitsandbytes
NAMES = ["int8_mixed_scaled_mm", "int8_scaled_mm", "int8_linear_matmul", "int8_vectorwise_quant",
         "int8_vectorwise_dequant", "int8_mm_dequant", "int8_double_quant", "dequantize_4bit", "quantize_4bit",
         "gemm_4bit", "dequantize_blockwise", "quantize_blockwise", "gemv_4bit", "optimizer_update_32bit",
         "optimizer_update_8bit_blockwise"]
results = [str(s._schema) for n in NAMES for s in (getattr(ops, n).default,)]
results += [str(getattr(ops, n).out._schema) for n in ("int8_linear_matmul", "dequantize_4bit",
                                                      "dequantize_blockwise", "gemv_4bit")]


def record(compute, *extra):  # the op's results and the tensors it writes, or the type of what it raised
    try:
        value = compute()
    except Exception as e:
        results.append(type(e).__name__)
        return
    for v in (value if isinstance(value, tuple) else (value,)) + extra:
        results.append(v if v is None else v.detach().clone())


def seeded(*shape, dtype=torch.float32, scale=3.0):
    torch.manual_seed(len(results))
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dtype)


code = torch.linspace(-1, 1, 256)  # sorted, as the blockwise ops assume
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    for rows, cols, n in ((1, 64, 32), (5, 128, 24), (16, 256, 8), (0, 64, 4)):
        a = seeded(rows, cols, dtype=dtype)
        for threshold in (0.0, 4.0):
            record(lambda: ops.int8_vectorwise_quant(a, threshold))
        ca, sca, _ = ops.int8_vectorwise_quant(seeded(rows, cols, dtype=dtype)) if rows else (
            torch.zeros(0, cols, dtype=torch.int8), torch.zeros(0), None)
        cb, scb, _ = ops.int8_vectorwise_quant(seeded(n, cols, dtype=dtype))
        record(lambda: ops.int8_vectorwise_dequant(cb, scb))
        record(lambda: ops.int8_linear_matmul(ca, cb))
        out = torch.full((rows, n), 7, dtype=torch.int32)
        record(lambda: ops.int8_linear_matmul.out(ca, cb, out), out)
        bias = seeded(n, dtype=dtype)
        record(lambda: ops.int8_mm_dequant(ops.int8_linear_matmul(ca, cb), sca, scb))
        record(lambda: ops.int8_mm_dequant(ops.int8_linear_matmul(ca, cb), sca, scb, dtype, bias))
        record(lambda: ops.int8_scaled_mm(ca, cb, sca, scb))
        record(lambda: ops.int8_scaled_mm(ca, cb, sca, scb, bias, dtype))
        outliers = torch.tensor([1, cols - 3])
        record(lambda: ops.int8_mixed_scaled_mm(a, ca, cb, sca, scb))
        record(lambda: ops.int8_mixed_scaled_mm(a, ca, cb, sca, scb, outliers, bias))
        record(lambda: ops.int8_double_quant(a, 0.0))
        for blocksize in (64, 256):
            q, absmax = ops.quantize_blockwise(a, code, blocksize)
            record(lambda: (q, absmax))
            record(lambda: ops.dequantize_blockwise(q, absmax, code, blocksize, dtype))
            record(lambda: ops.dequantize_blockwise.out(q, absmax, code, blocksize, dtype, torch.empty_like(a)))
        w = seeded(n, cols, dtype=dtype)
        for quant_type in ("nf4", "fp4"):
            for storage in (torch.uint8, torch.bfloat16):
                record(lambda: ops.quantize_4bit(w, 64, quant_type, storage))
            packed, absmax = ops.quantize_4bit(w, 64, quant_type, torch.uint8)
            record(lambda: ops.dequantize_4bit(packed, absmax, 64, quant_type, [n, cols], dtype))
            record(lambda: ops.dequantize_4bit.out(packed, absmax, 64, quant_type, [n, cols], dtype,
                                                   torch.empty(n, cols, dtype=dtype)))
            record(lambda: ops.gemm_4bit(a, packed, [n, cols], absmax, 64, quant_type))
            record(lambda: ops.gemm_4bit(a, packed, [n, cols], absmax, 64, quant_type, bias))
            nested, nested_absmax = ops.quantize_blockwise(absmax - absmax.mean(), code, 256)
            record(lambda: ops.gemm_4bit(a, packed, [n, cols], nested_absmax, 64, quant_type, None, nested, code,
                                         absmax.mean()))
            four_bit_code = ops.dequantize_4bit(torch.tensor([0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF],
                                                             dtype=torch.uint8), torch.ones(1), 64, quant_type, [16],
                                                torch.float32)
            record(lambda: ops.gemv_4bit(a[:1], packed, [n, cols], absmax, four_bit_code, 64))
            record(lambda: ops.gemv_4bit.out(a[:1], packed, [n, cols], absmax, four_bit_code, 64,
                                             torch.empty(1, n, dtype=dtype)))
    # The 32-bit optimizers, three steps each, on float32 state.
    for name, two_states in (("adam", True), ("momentum", False), ("rmsprop", False), ("adagrad", False),
                             ("lion", False), ("ademamix", True)):
        p, g = seeded(300, dtype=dtype), seeded(300, dtype=dtype, scale=0.1)
        state1 = torch.zeros(300) if name != "ademamix" else torch.zeros(2, 300)
        state2 = torch.zeros(300) if two_states else None
        for step in (1, 2, 3):
            record(lambda: ops.optimizer_update_32bit(name, g, p, state1, state2, None, 0.0, 0.0, 0.9, 0.999, 0.9999,
                                                      5.0, 1e-8, 0.01, step, 1e-3, 1.0), p, state1)
        record(lambda: ops.optimizer_update_8bit_blockwise(name, g, p, state1, state2, 0.9, 0.999, 0.0, 0.0, 1e-8, 1,
                                                           1e-3, code, code, torch.ones(2), torch.ones(2), 0.0, 1.0))
torch.save(results, out_file)
print("ok")
"""


def test_every_op_gives_the_projects_own_results_bit_for_bit(imported, tmp_path):
    import torch

    _, project, env = imported
    eager = {"TORCHDYNAMO_DISABLE": "1"}
    own = project_copy(tmp_path / "own")
    run_saving_results(RUN_OPS.format(setup="import bitsandbytes"), tmp_path / "own.pt", own,
                       {**os.environ, "PYTHONPATH": str(own), **eager})
    run_saving_results(RUN_OPS.format(setup="import bnb_ops, bitsandbytes"), tmp_path / "imported.pt", project,
                       {**env, **eager})
    compared, others = compare_saved_results(torch.load(tmp_path / "own.pt"), torch.load(tmp_path / "imported.pt"),
                                             NAMESPACE_OPS)  # the schemas, as torch holds them
    refused = others.count("NotImplementedError")
    assert compared == 588, compared
    # The ops whose kernels are in bitsandbytes' CUDA and native CPU backends: int8_double_quant, the .out
    # overloads of dequantize_4bit, dequantize_blockwise and gemv_4bit, optimizer_update_8bit_blockwise.
    assert refused == 102, refused


CHECKS = """
import torch, bnb_ops, bitsandbytes
from torch.library import opcheck
ops = torch.ops.bitsandbytes
torch.manual_seed(0)
a, w = torch.randn(4, 128) * 3, torch.randn(24, 128)
code = torch.linspace(-1, 1, 256)
cases = [
    (ops.int8_vectorwise_quant.default, (a, 0.0)),
    (ops.int8_vectorwise_quant.default, (a, 4.0)),
]
ca, sca, _ = ops.int8_vectorwise_quant(a)
cb, scb, _ = ops.int8_vectorwise_quant(w)
cases += [
    (ops.int8_vectorwise_dequant.default, (cb, scb)),
    (ops.int8_linear_matmul.default, (ca, cb)),
    (ops.int8_linear_matmul.out, (ca, cb, torch.empty(4, 24, dtype=torch.int32))),
    (ops.int8_mm_dequant.default, (ops.int8_linear_matmul(ca, cb), sca, scb, torch.float32, torch.randn(24))),
    (ops.int8_scaled_mm.default, (ca, cb, sca, scb)),
    (ops.quantize_blockwise.default, (a, code, 64)),
    (ops.quantize_4bit.default, (w, 64, "nf4", torch.uint8)),
]
for op, args in cases:
    result = opcheck(op, args)
    assert set(result.values()) == {"SUCCESS"}, (op, result)


def f(a, w):
    ca, sca, _ = ops.int8_vectorwise_quant(a)
    cb, scb, _ = ops.int8_vectorwise_quant(w)
    packed, absmax = ops.quantize_4bit(w, 64, "fp4", torch.uint8)
    q, qmax = ops.quantize_blockwise(a, code, 64)
    return ops.int8_scaled_mm(ca, cb, sca, scb, None, torch.float32) * 2, packed, absmax, q, qmax

compiled = torch.compile(f, fullgraph=True)
for rows in (4, 7):
    x = torch.randn(rows, 128)
    for got, want in zip(compiled(x, w), f(x, w)):
        assert torch.equal(got, want), rows
print("ok")
"""


def test_the_imported_ops_pass_opcheck_and_compile_to_the_same_bits(imported):
    _, project, env = imported
    run_check(CHECKS, env, project)


# bitsandbytes' own fake of int8_mixed_scaled_mm is wrong: its second result is the outlier columns of A
# (`A[:, outlier_cols]`, A's dtype, or an empty 1-D tensor of A's dtype), the fake says a 1-D int64 tensor of a
# size only the data decides. opcheck says so in the project's own build as in the imported one.
MIXED = """
import torch
{setup}
from torch.library import opcheck
ops = torch.ops.bitsandbytes
torch.manual_seed(0)
a, w = torch.randn(4, 128) * 3, torch.randn(24, 128)
ca, sca, _ = ops.int8_vectorwise_quant(a)
cb, scb, _ = ops.int8_vectorwise_quant(w)
for outliers in (torch.tensor([1, 5]), None):
    try:
        opcheck(ops.int8_mixed_scaled_mm.default, (a, ca, cb, sca, scb, outliers))
        print("passed")
    except Exception as e:
        print(str(e).splitlines()[0])
"""


def test_opcheck_finds_the_projects_own_fake_of_int8_mixed_scaled_mm_wrong_in_both_builds(imported, tmp_path):
    _, project, env = imported
    own = project_copy(tmp_path)
    said = []
    for setup, cwd, environment in (("import bitsandbytes", own, {**os.environ, "PYTHONPATH": str(own)}),
                                    ("import bnb_ops, bitsandbytes", project, env)):
        proc = subprocess.run([sys.executable, "-c", MIXED.format(setup=setup)], cwd=cwd, env=environment,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        said.append(proc.stdout)
    assert said[0] == said[1], said
    first, second = said[0].splitlines()
    assert "found mismatched tensor metadata for output[1]: Shapes torch.Size([4, 2]) and torch.Size([u0])" in first
    assert "found mismatched tensor metadata for output[1]: Dtypes torch.float32 and torch.int64" in second, second
