"""The tool as a package: `pip wheel .` at the repository root (scikit-build-core,
pyproject.toml) builds the `opgen` wheel: the executable (yaml-cpp linked
statically, fmt too), its CMake package and the specs' JSON Schema,
inside the Python package `opgen`. `auditwheel repair` gives it its
manylinux tag. Then a new user's path, in a fresh virtualenv:

  pip install opgen-*.whl; opgen --version; python -m opgen --cmake-dir
  opgen init myext; pip wheel ./myext       # find_package(opgen) through scikit-build-core
  pip install myext-*.whl; import myext; myext.scale(...)

The wheel's CMake build directory lives in the CTest tree, so the tool
compiles once per tree (about 3 min on 2 cores) and later runs are
incremental.
"""

import filecmp
import json
import os
import re
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.utils import parse_wheel_filename

from project_helpers import clean_env, run

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")

pytestmark = pytest.mark.skipif(not BUILD_DIR, reason="run through CTest (OPGEN_BUILD_DIR)")

VERSION = re.search(r"project\(opgen VERSION ([0-9.]+)", (SOURCE_DIR / "CMakeLists.txt").read_text()).group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The tool's wheel, repaired by auditwheel."""
    out = tmp_path_factory.mktemp("tool-wheel")
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-cache-dir",
         "--disable-pip-version-check", f"-Cbuild-dir={Path(BUILD_DIR) / 'packaging' / 'tool-wheel-build'}",
         "-w", out / "raw", SOURCE_DIR], cwd=SOURCE_DIR)
    (raw,) = (out / "raw").glob("*.whl")
    run([sys.executable, "-m", "auditwheel", "repair", "-w", out / "repaired", raw])
    (repaired,) = (out / "repaired").glob("*.whl")
    return raw, repaired


def test_the_wheel_holds_the_tool_its_cmake_package_and_the_json_schema(wheel):
    raw, repaired = wheel
    name, version, _, tags = parse_wheel_filename(repaired.name)
    assert (name, str(version)) == ("opgen", VERSION)
    # Any Python 3 (no extension module); manylinux, as auditwheel certifies.
    assert {(t.interpreter, t.abi) for t in tags} == {("py3", "none")}, tags
    assert all(re.fullmatch(r"manylinux_2_\d+_x86_64", t.platform) for t in tags), tags
    with zipfile.ZipFile(repaired) as zf:
        files = {n for n in zf.namelist() if ".dist-info/" not in n}
        entry_points = zf.read(f"opgen-{VERSION}.dist-info/entry_points.txt").decode()
    # Nothing grafted: the executable needs no library outside the manylinux policy.
    assert not [f for f in files if ".libs/" in f], files
    cmake = "opgen/share/cmake/opgen"
    assert {"opgen/bin/opgen", "opgen/__init__.py", "opgen/__main__.py", "opgen/runtime.py", "opgen/testing.py",
            "opgen/py.typed", "opgen/spec.schema.json",
            f"{cmake}/opgenConfig.cmake", f"{cmake}/opgenConfigVersion.cmake", f"{cmake}/opgenTargets.cmake",
            f"{cmake}/Opgen.cmake", f"{cmake}/OpgenCompareTrees.cmake"} <= files, files
    assert "opgen = opgen.__main__:run_tool" in entry_points
    assert "[cmake.prefix]" in entry_points


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh virtualenv with the tool installed. It sees the system
    site-packages for torch and scikit-build-core (the outside project's
    build needs both; the tool itself needs neither)."""
    root = tmp_path_factory.mktemp("venv") / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", root])
    run([sys.executable, "-m", "pip", "--python", root / "bin" / "python", "install", "--no-index", "--no-deps",
         "--disable-pip-version-check", wheel[1]])
    return root


def in_venv(venv, **extra):
    return clean_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", VIRTUAL_ENV=str(venv), **extra)


def test_the_installed_tool_runs_from_the_path_and_needs_no_yaml_or_fmt_library(venv, tmp_path):
    env = in_venv(venv)
    assert run(["opgen", "--version"], env=env, cwd=tmp_path).stdout.strip() == VERSION
    python = venv / "bin" / "python"
    assert run([python, "-m", "opgen", "--version"], env=env, cwd=tmp_path).stdout.strip() == VERSION
    tool = Path(run([python, "-m", "opgen", "--executable"], env=env, cwd=tmp_path).stdout.strip())
    assert tool.is_relative_to(venv)
    linked = run(["ldd", tool]).stdout
    assert "libc.so" in linked and "yaml-cpp" not in linked and "libfmt" not in linked, linked
    schema = Path(run([python, "-m", "opgen", "--json-schema"], env=env, cwd=tmp_path).stdout.strip())
    assert filecmp.cmp(schema, SOURCE_DIR / "codegen" / "spec.schema.json", shallow=False)
    # The tool works: it checks the in-tree specs.
    check = run(["opgen", "check", SOURCE_DIR / "schemas"], env=env, cwd=tmp_path)
    assert check.stderr == ""


def test_cmake_dir_serves_find_package(venv, tmp_path):
    cmake_dir = run([venv / "bin" / "python", "-m", "opgen", "--cmake-dir"], env=in_venv(venv)).stdout.strip()
    assert (Path(cmake_dir) / "opgenConfig.cmake").is_file()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(probe LANGUAGES NONE)\n"
        "find_package(opgen CONFIG REQUIRED)\n"
        "get_target_property(tool opgen::opgen IMPORTED_LOCATION_RELEASE)\n"
        'message(STATUS "opgen ${opgen_VERSION} at ${tool}")\n')
    configured = run(["cmake", "-S", tmp_path, "-B", tmp_path / "build", f"-Dopgen_DIR={cmake_dir}"])
    assert f"opgen {VERSION} at {venv}" in configured.stdout, configured.stdout


def test_a_new_project_builds_through_scikit_build_core_and_runs(venv, tmp_path):
    """No CMAKE_PREFIX_PATH, no -Dopgen_DIR: scikit-build-core reads the
    wheel's cmake.prefix entry point."""
    env = in_venv(venv)
    run(["opgen", "init", "myext"], env=env, cwd=tmp_path)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--disable-pip-version-check",
         "-w", tmp_path / "dist", tmp_path / "myext"], env=env, cwd=tmp_path)
    (project_wheel,) = (tmp_path / "dist").glob("myext-*.whl")
    run([python, "-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", project_wheel],
        env=env, cwd=tmp_path)
    caller = ("import torch, myext\n"
              "x = torch.randn(3, 4)\n"
              "torch.testing.assert_close(myext.scale(x, 2.0), 2 * x)\n"
              "print('myext ok')\n")
    assert "myext ok" in run([python, "-c", caller], env=env, cwd=tmp_path).stdout


def test_a_new_project_builds_with_cmake_and_ctest_runs_its_suite(venv, tmp_path):
    """-Dopgen_DIR=$(python -m opgen --cmake-dir); CTest runs the generated
    suite with the wheel's opgen.testing on its PYTHONPATH."""
    env = in_venv(venv)
    python = venv / "bin" / "python"
    run(["opgen", "init", "myext"], env=env, cwd=tmp_path)
    cmake_dir = run([python, "-m", "opgen", "--cmake-dir"], env=env).stdout.strip()
    build = tmp_path / "build"
    run(["cmake", "-S", tmp_path / "myext", "-B", build, "-G", "Ninja", f"-Dopgen_DIR={cmake_dir}",
         f"-DPython3_EXECUTABLE={python}"], env=env)
    run(["cmake", "--build", build], env=env)
    shown = json.loads(run(["ctest", "--test-dir", build, "--show-only=json-v1"], env=env).stdout)
    (test,) = shown["tests"]
    (environment,) = [p["value"] for p in test["properties"] if p["name"] == "ENVIRONMENT"]
    site = Path(cmake_dir).parents[3]  # <site>/opgen/share/cmake/opgen
    assert environment == [f"PYTHONPATH={build / 'python'}:{site}"], environment
    assert "100% tests passed" in run(["ctest", "--test-dir", build, "--output-on-failure"], env=env).stdout
