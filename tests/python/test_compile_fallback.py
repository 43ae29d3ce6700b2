"""`compile:` (docs/compile.md): calls torch.compile cannot take, routed by
the package. The page's own example (three ops, one per fallback, their
kernel and the traceable replacement) is built with opgen_add_library,
loaded, and compiled with torch.compile (aot_eager): graph breaks, warnings,
errors, fullgraph=True and recompiles counted through Dynamo itself.

Needs the built tool: run through CTest.
"""

import re
import subprocess
import sys

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen

pytestmark = requires_opgen

PAGE = SOURCE_DIR / "docs" / "compile.md"


def page_files():
    """The page's code blocks whose first line names a file: path -> text."""
    files = {}
    for body in re.findall(r"^```(?:yaml|cpp|python)\n(.*?)^```", PAGE.read_text(), re.M | re.S):
        first = body.splitlines()[0]
        if m := re.match(r"^(?:#|//) ([\w/.]+\.(?:yaml|cpp|py))$", first):
            files[m[1]] = body
    return files


CHECKS = r'''
import warnings
import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter
from torch._dynamo.utils import counters
import fallback_demo

REASON = "no float64 kernel on the compiled path"


def compiled(fn, **kwargs):
    torch._dynamo.reset()
    counters.clear()
    backend = CompileCounter()
    return torch.compile(fn, backend=backend, **kwargs), backend


def graph_breaks():
    return sum(counters["graph_break"].values())


x32, x64 = torch.randn(3, 4), torch.randn(3, 4, dtype=torch.float64)

# The public reason function, and eager calls: no routing outside compile.
assert fallback_demo.scale_compile_unsupported_reason(x32, 2.0) is None
assert fallback_demo.scale_compile_unsupported_reason(x64, 2.0) == REASON
with warnings.catch_warnings():
    warnings.simplefilter("error")
    for op in (fallback_demo.scale, fallback_demo.scale_strict, fallback_demo.scale_traced):
        torch.testing.assert_close(op(x64, 2.0), x64 * 2)

# Supported calls: one graph with the op in it, no graph break, for every fallback.
for name in ("scale", "scale_strict", "scale_traced"):
    op = getattr(fallback_demo, name)
    f, backend = compiled(lambda x: op(x, 2.0) + 1, fullgraph=True)
    torch.testing.assert_close(f(x32), x32 * 2 + 1)
    assert (backend.frame_count, graph_breaks()) == (1, 0), (name, backend.frame_count, graph_breaks())

# eager: the warning names the op and the reason, the call leaves the graph, the values are right.
f, backend = compiled(lambda x: fallback_demo.scale(x, 2.0) + 1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.testing.assert_close(f(x64), x64 * 2 + 1)
assert any(f"fallback_demo::scale: {REASON}" in str(w.message) for w in caught), [str(w.message) for w in caught]
assert graph_breaks() >= 1

# eager under fullgraph=True: PyTorch's error, naming the reason.
f, _ = compiled(lambda x: fallback_demo.scale(x, 2.0) + 1, fullgraph=True)
with pytest.raises(torch._dynamo.exc.Unsupported, match=f"fallback_demo::scale: {REASON}"):
    f(x64)

# error: the call raises, naming the op and the reason.
f, _ = compiled(lambda x: fallback_demo.scale_strict(x, 2.0) + 1)
with pytest.raises(RuntimeError, match=f"fallback_demo::scale_strict cannot be compiled: {REASON}"):
    f(x64)

# python: the traceable replacement keeps fullgraph=True; the op is not in the graph.
graphs = []


def capture(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


torch._dynamo.reset()
f = torch.compile(lambda x: fallback_demo.scale_traced(x, 2.0) + 1, backend=capture, fullgraph=True)
torch.testing.assert_close(f(x64), x64 * 2 + 1)
assert len(graphs) == 1 and "scale_traced" not in graphs[0].code, graphs[0].code
torch.testing.assert_close(f(x32), x32 * 2 + 1)  # the dtype is guarded: float32 recompiles, onto the op
assert len(graphs) == 2 and "fallback_demo.scale_traced" in graphs[1].code, graphs[1].code
print("compile fallbacks ok")
'''


def test_the_documented_fallbacks_through_torch_compile(tmp_path):
    files = page_files()
    assert set(files) == {"schemas/scale.yaml", "schemas/scale_strict.yaml", "schemas/scale_traced.yaml",
                          "python/composite.py", "kernels/scale.cpp"}, files.keys()
    project = tmp_path / "project"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(fallback_demo CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(fallback_demo_ops NAMESPACE fallback_demo SCHEMAS schemas KERNELS kernels/scale.cpp
                  PYTHON_SOURCES python/composite.py)
""")
    output, env = build_with_opgen(project, tmp_path / "build")
    assert "warning:" not in output, output

    check = subprocess.run([sys.executable, "-c", CHECKS], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert check.returncode == 0 and "compile fallbacks ok" in check.stdout, check.stdout[-3000:] + check.stderr[-6000:]
    suite = next((tmp_path / "build" / "fallback_demo_ops_generated" / "tests").glob("test_*.py"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                          env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout
