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
from pathlib import Path

import pytest

from project_helpers import clean_env, run

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")
FULL = os.environ.get("OPGEN_PACKAGING_FULL") == "1"
PROJECT = SOURCE_DIR / "tests" / "external_project"


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
    python = {f"share/opgen/python/opgen/{name}" for name in ("__init__.py", "__main__.py", "runtime.py", "testing.py",
                                                                    "py.typed")}
    schemas = {"share/opgen/spec.schema.json", "share/opgen/types.schema.json"}
    assert files - per_config == {"bin/opgen"} | schemas | python | {f"{cmake_dir}/{name}" for name in (
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
            "__init__.py", "_fakes.py", "scaling.py", "_ops.py", "_ops.pyi", "py.typed", "_opgen_runtime.py",
            "libopgen_ext_ops.so"}
    result = subprocess.run([sys.executable, PROJECT / "check_ops.py", "--site", site], cwd=tmp_path,
                            env=clean_env(PYTHONPATH=str(site)), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "opgen_ext ok" in result.stdout


def test_external_generated_suite(prefix, project_build):
    """The suite opgen wrote from the external spec's samples."""
    build, _ = project_build
    suite = build / "opgen_ext_ops_generated" / "tests" / "test_opgen_ext_ops.py"
    # opgen.testing from the prefix, as Opgen.cmake's CTest entry has it.
    opgen_python = next(prefix.glob("share/opgen/python"))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite], cwd=build,
                            env=clean_env(PYTHONPATH=f"{build / 'python'}:{opgen_python}"), capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout


def test_stable_only_library_binds_torch_through_the_c_shim_only(prefix, tmp_path):
    """The project's stable-ABI ops alone (-DOPGEN_EXT_STABLE_ONLY=ON): the
    library scripts/abi_matrix.py builds once and runs on every release from
    2.10 on. What makes that possible is checked here: PyTorch's C++ API is
    not referenced at all, only the C shim (aoti_torch_*, torch_*)."""
    build = tmp_path / "build"
    run(["cmake", "-S", PROJECT, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
         "-DOPGEN_EXT_STABLE_ONLY=ON", f"-DPython3_EXECUTABLE={sys.executable}"])
    assert "warning:" not in run(["cmake", "--build", build, "--", "-v"]).stdout
    library = build / "python" / "opgen_ext" / "libopgen_ext_ops.so"
    undefined = run(["nm", "-D", "--undefined-only", "--demangle", library]).stdout.splitlines()
    names = [line.split(maxsplit=1)[1].split("@")[0] for line in undefined if line.strip()]
    torch_cxx = [n for n in names if n.split("::")[0] in ("c10", "at", "torch", "caffe2")]
    assert torch_cxx == [], torch_cxx
    assert any(n.startswith("aoti_torch_") for n in names) and "torch_library_impl" in names, names

    result = subprocess.run([sys.executable, PROJECT / "check_ops.py", "--stable-only", "--site", build / "python"],
                            cwd=tmp_path, env=clean_env(PYTHONPATH=str(build / "python")), capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "opgen_ext ok" in result.stdout
