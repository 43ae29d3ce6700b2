"""Another project builds its ops with an installed opgen: `cmake --install`
puts the tool and its CMake package in a prefix; tests/external_project finds
them with find_package(opgen CONFIG REQUIRED), builds its own op (namespace
opgen_ext, a CPU kernel) with opgen_add_library(), and the op runs from
Python via torch.ops, from the build tree and from its own install.

The prefix gets the tool the CTest tree already built (`cmake --install
<build> --component tool`), which compiles nothing. With
OPGEN_PACKAGING_FULL=1, or without a CTest tree that built the tool, a
tool-only opgen (OPGEN_BUILD_LIBRARY=OFF) is configured, built and installed
from scratch instead (about 1.5 min on 2 cores).
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")
FULL = os.environ.get("OPGEN_PACKAGING_FULL") == "1"
PROJECT = SOURCE_DIR / "tests" / "external_project"


def clean_env(**extra):
    """The environment without CTest's pointers into the build tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OPGEN_")}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    env.update(extra)
    return env


def run(cmd, **kwargs):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=clean_env(), **kwargs)
    assert result.returncode == 0, f"{cmd}\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    return result


def cmake_cache(build_dir, name):
    cache = Path(build_dir) / "CMakeCache.txt"
    for line in cache.read_text().splitlines() if cache.exists() else []:
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


def built_the_tool(build_dir):
    """A CTest tree that compiled opgen itself (not a prebuilt OPGEN_EXECUTABLE)."""
    return build_dir is not None and cmake_cache(build_dir, "OPGEN_EXECUTABLE") == ""


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """An install prefix holding only opgen's tool and CMake package."""
    root = tmp_path_factory.mktemp("opgen")
    prefix = root / "prefix"
    if FULL or not built_the_tool(BUILD_DIR):
        build = root / "build"
        run(["cmake", "-S", SOURCE_DIR, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DOPGEN_BUILD_LIBRARY=OFF", "-DOPGEN_BUILD_TESTS=OFF"])
        run(["cmake", "--build", build])
        run(["cmake", "--install", build, "--prefix", prefix])
    else:
        run(["cmake", "--install", BUILD_DIR, "--component", "tool", "--prefix", prefix])
    return prefix


def test_install_holds_the_tool_and_the_cmake_package(prefix):
    files = {str(p.relative_to(prefix)) for p in prefix.rglob("*") if p.is_file()}
    (cmake_dir,) = {str(p.relative_to(prefix)) for p in prefix.glob("lib*/cmake/opgen")}
    per_config = {f for f in files if f.startswith(f"{cmake_dir}/opgenTargets-")}  # one per build type
    assert len(per_config) == 1, files
    assert files - per_config == {"bin/opgen"} | {f"{cmake_dir}/{name}" for name in (
        "Opgen.cmake", "OpgenCompareTrees.cmake", "opgenConfig.cmake", "opgenConfigVersion.cmake", "opgenTargets.cmake")}
    assert "explain" in run([prefix / "bin" / "opgen", "--help"]).stdout


@pytest.fixture(scope="module")
def project_build(prefix, tmp_path_factory):
    build = tmp_path_factory.mktemp("external") / "build"
    run(["cmake", "-S", PROJECT, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DPython3_EXECUTABLE={sys.executable}"])
    result = run(["cmake", "--build", build, "--", "-v"])
    assert "warning:" not in result.stdout, result.stdout
    return build, result.stdout


def test_project_uses_the_installed_package(prefix, project_build):
    build, log = project_build
    # find_package found the prefix, not the source tree, and opgen ran from it.
    assert Path(cmake_cache(build, "opgen_DIR")).resolve().parent.parent.parent == prefix.resolve()
    assert f"{prefix}/bin/opgen generate --namespace opgen_ext" in log
    assert str(SOURCE_DIR / "cmake") not in (build / "build.ninja").read_text()


CALLER = textwrap.dedent(
    """
    import torch
    import torch.nn.functional as F

    import opgen_ext


    # The wider types (SymInt, SymInt[]?, Tensor?[], Tensor[]?, bool[], float[]?,
    # str[], Layout?, MemoryFormat?): each value arrives, on either ABI.
    def check_carry(carry):
        x = torch.zeros(2)
        summary = carry(x, 7, None, [1, 2, 3], None, [None, torch.ones(2, 3), None], None, [True, False, True],
                        None, [], None, None)
        assert summary.tolist() == [7, -1, 6, -1, 1, 6, -1, 2, -1, 0, 0, 0], summary
        summary = carry(x, -2, 5, [], [4, 5], [], [x, x, x], [], [0.5, 0.25], ["ab", "cde"], torch.strided,
                        torch.channels_last)
        assert summary.tolist() == [-2, 5, 0, 2, 0, 0, 3, 0, 0.75, 5, 1, 1], summary
        args = (x, 3, 4, [2, 2], [1], [x, None], [x], [False], [1.0], ["n"], torch.strided, torch.contiguous_format)
        torch.library.opcheck(carry.default, args)
        # SymInt arguments traced with dynamic shapes, then read as int64 by the kernel.
        compiled = torch.compile(lambda t: carry(t, t.shape[0], None, [t.shape[0], 1], None, [], None, [], None, [],
                                                 None, None), fullgraph=True, dynamic=True, backend="aot_eager")
        assert compiled(torch.zeros(5)).tolist()[:3] == [5, -1, 6]

    softplus = torch.ops.opgen_ext.softplus
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(5, 33, dtype=dtype) * 8
        torch.testing.assert_close(softplus(x), F.softplus(x))
        torch.testing.assert_close(softplus(x, 2.0, 3.0), F.softplus(x, beta=2.0, threshold=3.0))
    assert opgen_ext.softplus is softplus.default
    x = torch.randn(4, 7)
    torch.library.opcheck(softplus.default, (x, 0.5, 10.0))
    compiled = torch.compile(lambda t: softplus(t, 1.5) + 1, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x), F.softplus(x, beta=1.5) + 1)
    try:
        softplus(torch.ones(3, dtype=torch.int32))
    except RuntimeError as e:
        assert "opgen_ext::softplus" in str(e) and "'x'" in str(e), e
    else:
        raise AssertionError("an int32 input was not rejected")

    # vLLM's rms_norm, registered from its own schema text (`Tensor! result`).
    rms_norm = torch.ops.opgen_ext.rms_norm
    assert rms_norm.default._schema == torch._C.parse_schema(
        "opgen_ext::rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()")
    for dtype in (torch.float32, torch.float64):
        x, w = torch.randn(3, 40, dtype=dtype), torch.randn(40, dtype=dtype)
        out = torch.empty_like(x)
        assert rms_norm(out, x, w, 1e-6) is None
        torch.testing.assert_close(out, F.rms_norm(x, (40,), w, 1e-6))
    torch.library.opcheck(rms_norm.default, (torch.empty(2, 8), torch.randn(2, 8), torch.randn(8), 1e-5))

    def step(x, w):
        out = torch.empty_like(x)
        rms_norm(out, x, w, 1e-6)
        return out * 2

    compiled = torch.compile(step, fullgraph=True, dynamic=True, backend="aot_eager")
    x, w = torch.randn(5, 16), torch.randn(16)
    torch.testing.assert_close(compiled(x, w), F.rms_norm(x, (16,), w, 1e-6) * 2)

    assert torch.ops.opgen_ext.flush_cache() is None

    for carry in (torch.ops.opgen_ext.carry, torch.ops.opgen_ext.carry_unstable):
        check_carry(carry)

    # The unstable ABI: `-> (Tensor, Tensor?)` with float[]?, Layout?, MemoryFormat? arguments.
    maybe_halves = torch.ops.opgen_ext.maybe_halves
    x = torch.randn(3, 4)
    a, b = maybe_halves(x, False)
    assert b is None
    torch.testing.assert_close(a, x)
    a, b = maybe_halves(x, True, [2.0, 3.0], torch.strided, torch.contiguous_format)
    torch.testing.assert_close(a, 2 * x)
    torch.testing.assert_close(b, 1.5 * x)
    for both in (False, True):
        torch.library.opcheck(maybe_halves.default, (x, both, [1.0, 4.0]))
    compiled = torch.compile(lambda t: maybe_halves(t, True, [1.0, 2.0])[1] + 1, fullgraph=True, dynamic=True,
                             backend="aot_eager")
    torch.testing.assert_close(compiled(x), x + 1)
    # -> (int[], str, SymInt): the SymInt result used to abort the load.
    assert torch.ops.opgen_ext.describe(torch.zeros(2, 5, dtype=torch.float16)) == ([2, 5], "Half", 10)

    # ExecuTorch's out= convention: tagged out, the result is `out` itself.
    scale_out = torch.ops.opgen_ext.scale.out
    assert torch.Tag.out in scale_out.tags
    x, out = torch.randn(3, 4), torch.empty(3, 4)
    assert scale_out(x, 2.0, out=out) is out
    torch.testing.assert_close(out, 2 * x)
    torch.library.opcheck(scale_out, (x, 0.5), {"out": torch.empty(3, 4)})

    def scaled(t):
        buffer = torch.empty_like(t)
        return scale_out(t, 3.0, out=buffer) + 1

    compiled = torch.compile(scaled, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x), 3 * x + 1)

    # FlashAttention-3's stable forward, its schema verbatim: registered as
    # written (34 arguments, a positional optional `out`), called eagerly.
    fwd = torch.ops.opgen_ext.fwd
    assert len(fwd.default._schema.arguments) == 34
    q, k, v = torch.randn(4, 6), torch.randn(5, 6), torch.randn(5, 6)
    given = torch.empty(4, 6)
    result, lse, ks, vs = fwd(q, k, v, None, None, None, given, softmax_scale=0.5)
    assert result is given
    torch.testing.assert_close(given, 0.5 * q)
    torch.testing.assert_close((lse, ks, vs), (q.sum(1), k.sum(1), v.sum(1)))
    fresh = fwd(q, k, v)[0]
    torch.testing.assert_close(fresh, q)

    # apex's multi-tensor apply: in place over a list, each tensor checked.
    multi_scale_ = torch.ops.opgen_ext.multi_scale_
    tensors = [torch.randn(3), torch.randn(2, 5)]
    want = [t * 4 for t in tensors]
    assert multi_scale_(tensors, 4.0) is None
    torch.testing.assert_close(tensors, want)
    torch.library.opcheck(multi_scale_.default, ([torch.randn(3), torch.randn(4)], 2.0))

    def step(ts):
        ts = [t.clone() for t in ts]
        multi_scale_(ts, 0.5)
        return [t + 1 for t in ts]

    compiled = torch.compile(step, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(want), [t * 0.5 + 1 for t in want])
    try:
        multi_scale_([torch.randn(3), torch.randn(3, dtype=torch.float64)], 2.0)
    except RuntimeError as e:
        assert "opgen_ext::multi_scale_: expected 'tensors[1]' to have dtype float32" in str(e), e
    else:
        raise AssertionError("a float64 tensor in the list was not rejected")
    print("opgen_ext ok")
    """
)


@pytest.mark.parametrize("where", ["build", "install"])
def test_external_op_from_python(project_build, where, tmp_path):
    """From the build tree's package, and from the one `cmake --install` puts
    in a prefix (INSTALL_DIR ., as a wheel would hold it)."""
    build, _ = project_build
    site = build / "python"
    if where == "install":
        site = tmp_path / "site"
        run(["cmake", "--install", build, "--prefix", site])
        assert {p.name for p in (site / "opgen_ext").iterdir()} == {
            "__init__.py", "_fakes.py", "_ops.py", "_ops.pyi", "libopgen_ext_ops.so"}
    caller = f"import opgen_ext\nassert opgen_ext.__file__.startswith({str(site)!r}), opgen_ext.__file__\n" + CALLER
    result = subprocess.run([sys.executable, "-c", caller], cwd=tmp_path, env=clean_env(PYTHONPATH=str(site)),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "opgen_ext ok" in result.stdout


def test_external_generated_suite(project_build):
    """The suite opgen wrote from the external spec's samples."""
    build, _ = project_build
    suite = build / "opgen_ext_ops_generated" / "tests" / "test_opgen_ext_ops.py"
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite], cwd=build,
                            env=clean_env(PYTHONPATH=str(build / "python")), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
