"""`opgen init`: a new outside project, taken the whole way a user takes it.

The project is built against an installed opgen (its tool and CMake package
in a prefix, as test_external_project.py makes it): configure, build, and
CTest runs the generated suite it registered. Then the wheel: scikit-build-core
(`pip wheel --no-build-isolation`) builds one abi3 wheel that declares
torch>=2.10, it is installed into a fresh virtualenv, imported, and its op
called against PyTorch and checked with opcheck. About a minute on 2 cores.
"""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cli_helpers import OPGEN_BIN, requires_opgen, run_opgen
from project_helpers import clean_env, run

pytestmark = requires_opgen

BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")
PROJECT_FILES = {"CMakeLists.txt", "pyproject.toml", "schemas/scale.yaml", "kernels/scale.cpp", "README.md",
                 ".gitignore"}


def files_under(root):
    return {str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file()}


def test_init_writes_the_project_and_names_it_after_the_directory(tmp_path):
    proc = run_opgen("init", tmp_path / "myext")
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "myext"
    assert files_under(root) == PROJECT_FILES
    cmake = (root / "CMakeLists.txt").read_text()
    assert "project(myext LANGUAGES CXX)" in cmake and "NAMESPACE myext" in cmake and "include(CTest)" in cmake
    assert 'dependencies = ["torch>=2.10"]' in (root / "pyproject.toml").read_text()
    assert "myext::kernels::scale_cpu" in (root / "kernels" / "scale.cpp").read_text()
    # The example spec is a spec like any other.
    check = run_opgen("check", "--namespace", "myext", root / "schemas")
    assert (check.returncode, check.stderr) == (0, "")


def test_init_options_reach_the_files(tmp_path):
    proc = run_opgen("init", tmp_path / "proj", "--namespace", "fastops", "--torch-target-version", "2.12",
                     "--json-schema", "../spec.schema.json")
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "proj"
    assert "TORCH_TARGET_VERSION 2.12" in (root / "CMakeLists.txt").read_text()
    assert 'dependencies = ["torch>=2.12"]' in (root / "pyproject.toml").read_text()
    spec = (root / "schemas" / "scale.yaml").read_text()
    assert spec.startswith("# yaml-language-server: $schema=../spec.schema.json\n")


@pytest.mark.parametrize("args, error", [
    (["my-ext"], "'my-ext' is not a valid namespace"),
    (["x", "--namespace", "aten"], "PyTorch defines it"),
    (["x", "--namespace", "class"], "keyword"),
])
def test_init_refuses_a_bad_namespace_and_writes_nothing(tmp_path, args, error):
    proc = run_opgen("init", *args, cwd=tmp_path)
    assert proc.returncode == 1
    assert "error[E0905]" in proc.stderr and error in proc.stderr, proc.stderr
    assert "nothing was written" in proc.stderr
    assert files_under(tmp_path) == set()


def test_init_never_overwrites_a_file(tmp_path):
    root = tmp_path / "myext"
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "scale.cpp").write_text("mine\n")
    proc = run_opgen("init", root)
    assert proc.returncode == 1
    assert f"{root}/kernels/scale.cpp: error[E0903]: already exists; opgen init writes only new files" \
        in proc.stderr, proc.stderr
    assert files_under(root) == {"kernels/scale.cpp"}
    assert (root / "kernels" / "scale.cpp").read_text() == "mine\n"


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """opgen's tool and CMake package, installed from the CTest tree."""
    if BUILD_DIR is None:
        pytest.skip("needs OPGEN_BUILD_DIR, a CTest tree that built opgen")
    prefix = tmp_path_factory.mktemp("opgen") / "prefix"
    run(["cmake", "--install", BUILD_DIR, "--component", "tool", "--prefix", prefix])
    return prefix


TWICE_KERNEL = """#include "myext/kernels/twice.h"

#include <torch/csrc/stable/ops.h>

torch::stable::Tensor myext::kernels::twice_cpu(const torch::stable::Tensor& x) {
  return torch::stable::new_zeros(x, {2 * x.size(0)});
}
"""


@pytest.fixture(scope="module")
def project(prefix, tmp_path_factory):
    """`opgen init`'s project, with a second op whose fake is Python, added
    as its README says (python/_fakes.py; no CMake edit)."""
    root = tmp_path_factory.mktemp("init") / "myext"
    run([prefix / "bin" / "opgen", "init", root])
    run([prefix / "bin" / "opgen", "new", "myext::twice", "--schema", "(Tensor x) -> Tensor", "--dispatch", "CPU",
         "--schemas-dir", root / "schemas", "--kernels-dir", root / "kernels"])
    spec = root / "schemas" / "twice.yaml"
    spec.write_text(spec.read_text().split("fake:")[0] + 'fake: {python: "myext._fakes:twice"}\n'
                    "samples:\n  - args: {x: {shape: [3]}}\n")
    (root / "kernels" / "twice.cpp").write_text(TWICE_KERNEL)
    (root / "python").mkdir()
    (root / "python" / "_fakes.py").write_text("def twice(x):\n    return x.new_empty((2 * x.size(0),))\n")
    return root


def test_the_project_builds_and_ctest_runs_its_generated_suite(prefix, project, tmp_path):
    build = tmp_path / "build"
    run(["cmake", "-S", project, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DPython3_EXECUTABLE={sys.executable}"])
    assert "warning:" not in run(["cmake", "--build", build, "--", "-v"]).stdout
    listed = run(["ctest", "--test-dir", build, "-N"]).stdout
    assert "myext_ops.generated_tests" in listed and "Total Tests: 1" in listed, listed
    tested = run(["ctest", "--test-dir", build, "--output-on-failure"])
    assert "100% tests passed" in tested.stdout, tested.stdout


def test_the_project_without_opgen_says_where_to_point(project, tmp_path):
    result = subprocess.run(["cmake", "-S", project, "-B", tmp_path / "build", "-G", "Ninja",
                             f"-DPython3_EXECUTABLE={sys.executable}"], capture_output=True, text=True,
                            env=clean_env(CMAKE_PREFIX_PATH=""))
    assert result.returncode != 0
    assert "opgen's CMake package was not found" in result.stderr, result.stderr


def test_the_project_builds_one_abi3_wheel_that_installs_and_runs(prefix, project, tmp_path):
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--disable-pip-version-check",
         "-w", dist, project], env=clean_env(CMAKE_PREFIX_PATH=str(prefix)), cwd=tmp_path)
    (wheel,) = dist.glob("*.whl")
    assert re.fullmatch(r"myext-0\.1\.0-cp310-abi3-linux_x86_64\.whl", wheel.name), wheel.name
    with zipfile.ZipFile(wheel) as zf:
        package = {n for n in zf.namelist() if ".dist-info/" not in n}
        metadata = zf.read("myext-0.1.0.dist-info/METADATA").decode()
    assert package == {"myext/__init__.py", "myext/_ops.py", "myext/_ops.pyi", "myext/py.typed",
                       "myext/_opgen_runtime.py", "myext/libmyext_ops.so", "myext/_fakes.py"}
    assert "Requires-Dist: torch>=2.10" in metadata.splitlines()

    # A fresh virtualenv; torch comes from the system site (no download).
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check", wheel])
    caller = (
        "import torch, myext\n"
        "assert myext.__file__.startswith(%r), myext.__file__\n"
        "x = torch.randn(6, 5)\n"
        "torch.testing.assert_close(myext.scale(x, -3.0), x * -3.0)\n"
        "torch.testing.assert_close(torch.ops.myext.scale(x), x)\n"
        "torch.library.opcheck(torch.ops.myext.scale.default, (x, 0.5))\n"
        "torch.library.opcheck(torch.ops.myext.twice.default, (x[0],))  # its fake is python/_fakes.py's\n"
        "print('myext ok')\n" % str(venv))
    result = run([python, "-c", caller], cwd=tmp_path)
    assert "myext ok" in result.stdout


def test_a_kernel_that_no_longer_matches_its_header_is_named_with_the_expected_signature(prefix, project, tmp_path):
    """GCC alone says only "should have been declared inside 'myext::kernels'";
    under opgen_add_library the build also names the declaration, its
    generated header and the spec."""
    root = tmp_path / "myext"
    shutil.copytree(project, root)
    kernel = root / "kernels" / "scale.cpp"
    kernel.write_text(kernel.read_text().replace("const torch::stable::Tensor& x, double alpha)",
                                                 "const torch::stable::Tensor& x, float alpha)"))
    build = tmp_path / "build"
    run(["cmake", "-S", root, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DPython3_EXECUTABLE={sys.executable}"])
    result = subprocess.run(["cmake", "--build", build], capture_output=True, text=True, env=clean_env())
    assert result.returncode != 0
    header = build / "myext_ops_generated" / "include" / "myext" / "kernels" / "scale.h"
    expected = next(n for n, line in enumerate(header.read_text().splitlines(), 1) if "scale_cpu(" in line
                    and not line.startswith("//"))
    assert "should have been declared inside" in result.stdout  # the compiler's own words, passed through
    assert (f"{header}:{expected}:1: note: opgen: the generated header declares the kernel myext::kernels::scale_cpu as\n"
            "    torch::stable::Tensor scale_cpu(const torch::stable::Tensor& x, double alpha);\n"
            "define it with exactly this signature (from schemas/scale.yaml: regenerate after editing the spec, "
            "not the header)") in result.stdout, result.stdout[-3000:]
