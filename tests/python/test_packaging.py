"""The op library as a wheel: `pip wheel` (scikit-build-core,
packaging/opgen_ops/pyproject.toml) builds an abi3 wheel of the `opgen_ops`
package whose library links no
libpython; installed into a fresh virtualenv, the package works from outside
the source tree, and the op test suites pass against it.

Two ways to build the wheel:

- Under CTest (OPGEN_BUILD_DIR and OPGEN_BIN set): the pyproject's settings
  plus two overrides that keep CI short: the tool is the one already built
  (OPGEN_EXECUTABLE) and the CUDA kernels are left out. The build directory
  lives in the CTest tree, so the op library compiles once per tree (about
  2 min on 2 cores) and later runs are incremental (seconds).
- OPGEN_PACKAGING_FULL=1: exactly `pip wheel --no-build-isolation
  packaging/opgen_ops`, the build `pip install` does (build-wheel/, the tool
  built from source, the CUDA kernels when CMake finds nvcc); the first build
  takes about 7 min on 2 cores (tool and CUDA kernels), a re-run seconds.
"""

import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name, parse_wheel_filename

from project_helpers import clean_env, run

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")
OPGEN_BIN = os.environ.get("OPGEN_BIN")
FULL = os.environ.get("OPGEN_PACKAGING_FULL") == "1"

pytestmark = pytest.mark.skipif(
    not (FULL or (BUILD_DIR and OPGEN_BIN)),
    reason="run through CTest (OPGEN_BUILD_DIR, OPGEN_BIN), or set OPGEN_PACKAGING_FULL=1",
)

PACKAGE = "opgen_ops"
PACKAGE_FILES = {f"{PACKAGE}/{name}" for name in
                 ("__init__.py", "_fakes.py", "quantization.py", "gemm.py", "_ops.py", "_ops.pyi", "py.typed",
                  "_opgen_runtime.py", "libopgen_ops.so")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """(path of the built wheel, its CMake build directory)."""
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-cache-dir",
           "--disable-pip-version-check", "-w", out]
    if FULL:
        build_dir = SOURCE_DIR / "build-wheel"  # the pyproject's build-dir
    else:
        build_dir = Path(BUILD_DIR) / "packaging" / "wheel-build"
        cmd += [f"-Cbuild-dir={build_dir}", f"-Ccmake.define.OPGEN_EXECUTABLE={OPGEN_BIN}",
                "-Ccmake.define.OPGEN_ENABLE_CUDA=OFF"]
    # Ninja would start cores + 2 jobs; other tests run beside this one.
    env = clean_env(CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
    run(cmd + [SOURCE_DIR / "packaging" / PACKAGE], cwd=SOURCE_DIR, env=env)
    (path,) = out.glob("*.whl")
    return path, build_dir


@pytest.fixture(scope="module")
def library(wheel, tmp_path_factory):
    """libopgen_ops.so as the wheel holds it."""
    with zipfile.ZipFile(wheel[0]) as zf:
        return Path(zf.extract(f"{PACKAGE}/libopgen_ops.so", tmp_path_factory.mktemp("unpacked")))


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh virtualenv with the wheel installed; its python. It sees the
    system site-packages for torch (no download) and pip; with no pip of its
    own it has no setuptools of its own either, whose older copy would shadow
    the one torch requires."""
    root = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", root / "venv"])
    python = root / "venv" / "bin" / "python"
    # --no-index: the wheel's requirements (torch) must already be satisfied.
    run([python, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--disable-pip-version-check", wheel[0]],
        env=clean_env())
    return python


def needed(library):
    dynamic = run(["readelf", "-d", library]).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


def cmake_cache(build_dir, name):
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return ""


def test_wheel_is_abi3(wheel):
    name, version, _, tags = parse_wheel_filename(wheel[0].name)
    assert name == canonicalize_name(PACKAGE)
    assert {(t.interpreter, t.abi) for t in tags} == {("cp310", "abi3")}, tags
    assert all(t.platform.startswith("linux_") for t in tags), tags
    with zipfile.ZipFile(wheel[0]) as zf:
        meta = zf.read(f"{PACKAGE}-{version}.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in meta
    assert f"Tag: {next(iter(tags))}" in meta


def test_wheel_holds_the_package_and_nothing_else(wheel):
    path, build_dir = wheel
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        package = {n for n in names if ".dist-info/" not in n}
        assert package == PACKAGE_FILES  # not the tool, not its CMake package
        # The build's generated module and the handwritten sources, as they are.
        generated = build_dir / "opgen_ops_generated" / "python" / PACKAGE
        for name in ("_ops.py", "_ops.pyi", "py.typed", "_opgen_runtime.py"):
            assert zf.read(f"{PACKAGE}/{name}") == (generated / name).read_bytes(), name
        for name in ("__init__.py", "_fakes.py", "quantization.py", "gemm.py"):
            assert zf.read(f"{PACKAGE}/{name}") == (SOURCE_DIR / "python" / PACKAGE / name).read_bytes(), name


def test_library_links_no_libpython(library):
    deps = needed(library)
    assert "libc10.so" in deps and "libtorch_cpu.so" in deps, deps  # the parse found the real list
    assert not [d for d in deps if d.startswith("libpython")], deps
    # Nor does it lean on an interpreter loaded by someone else.
    undefined = run(["nm", "-D", "--undefined-only", library]).stdout.split()
    assert not [s for s in undefined if s.startswith(("Py", "_Py"))]
    # Nothing in its closure either (torch's own lib directory resolves libtorch).
    import torch

    closure = run(["ldd", library], env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(os.path.dirname(
        torch.__file__), "lib"))).stdout
    assert "libtorch_cpu.so" in closure and "libpython" not in closure, closure


def test_cuda_kernels_are_in_when_nvcc_was_found(wheel, library):
    if not FULL:
        pytest.skip("the CTest build leaves the CUDA kernels out (OPGEN_PACKAGING_FULL=1 builds them)")
    if cmake_cache(wheel[1], "CMAKE_CUDA_COMPILER") in ("", "CMAKE_CUDA_COMPILER-NOTFOUND"):
        pytest.skip("no CUDA compiler was found for the wheel build")
    assert "libtorch_cuda.so" in needed(library)
    assert ".nv_fatbin" in run(["readelf", "-S", "-W", library]).stdout  # the device code


CALLER = textwrap.dedent(
    """
    import sys

    import torch
    import torch.nn.functional as F

    import opgen_ops

    # The installed package, not a build tree's or the sources'.
    assert opgen_ops.__file__.startswith(sys.prefix), (opgen_ops.__file__, sys.prefix)
    assert opgen_ops.rms_norm is torch.ops.opgen.rms_norm.default

    x = torch.randn(6, 40, dtype=torch.float64)
    w, b = torch.randn(40, dtype=torch.float64), torch.randn(40, dtype=torch.float64)
    ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(opgen_ops.rms_norm(x, w), ref)
    torch.testing.assert_close(opgen_ops.layer_norm(x, w, b)[0], F.layer_norm(x, (40,), w, b))
    mask = torch.rand(2, 1, 5, 7) > 0.5
    logits = torch.randn(2, 3, 5, 7)
    torch.testing.assert_close(opgen_ops.scaled_masked_softmax(logits, mask, 0.5),
                               torch.softmax((logits * 0.5).masked_fill(mask, -10000.0), -1))
    labels = torch.randint(0, 11, (9,))
    xl = torch.randn(9, 11)
    torch.testing.assert_close(opgen_ops.softmax_cross_entropy(xl, labels, 0.1)[0],
                               F.cross_entropy(xl, labels, reduction="none", label_smoothing=0.1))

    # Autograd and torch.compile go through the package's Python half.
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    torch.autograd.backward(opgen_ops.rms_norm(xg, wg).sum())
    torch.autograd.backward((xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * wr).sum())
    torch.testing.assert_close((xg.grad, wg.grad), (xr.grad, wr.grad))
    compiled = torch.compile(lambda a, c: opgen_ops.rms_norm(a, c) * 2, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x, w), 2 * ref)
    print("installed wheel ok")
    """
)


def test_ops_from_the_installed_wheel(venv, tmp_path):
    result = run([venv, "-c", CALLER], cwd=tmp_path, env=clean_env())
    assert "installed wheel ok" in result.stdout


def test_op_suites_against_the_installed_wheel(venv, wheel, tmp_path):
    """The handwritten op tests and the suite generated from the specs'
    samples, copied out of the repository and run by the virtualenv's python."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("test_ops.py", "test_ops_more.py", "helpers.py", "conftest.py"):
        shutil.copy(SOURCE_DIR / "tests" / "python" / name, suite)
    shutil.copy(wheel[1] / "opgen_ops_generated" / "tests" / "test_opgen_ops_ops.py", suite)
    # The generated suite imports opgen.testing: the tool's package, beside it.
    shutil.copytree(SOURCE_DIR / "python" / "opgen", suite / "opgen")
    (suite / "test_origin.py").write_text(
        "import sys\n\nimport opgen_ops\n\n\n"
        "def test_opgen_ops_is_the_installed_wheel():\n"
        "    assert opgen_ops.__file__.startswith(sys.prefix), (opgen_ops.__file__, sys.prefix)\n"
    )
    result = subprocess.run([venv, "-m", "pytest", "-q", "-p", "no:cacheprovider", "."], cwd=suite,
                            env=clean_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout and " failed" not in result.stdout
