"""Names that compile nowhere, and names that damage the environment (issue 21,
classes 2 and 3): the checker refuses every macro the compilers define over the
generated code's headers, every name C++ reserves as an op or argument (a
namespace C++ reserves is registered as written, issue 34), and every Python package that
would shadow the standard library, torch, opgen or what they need. The tables
come from the compilers and the environment (scripts/name_tables.py), and the
first test holds them to what this machine's compilers and torch define now.
"""

import subprocess
import sys
import tomllib

import pytest

from cli_helpers import SCHEMAS, SOURCE_DIR, requires_opgen, run_opgen, snapshot

pytestmark = requires_opgen

# The classes' examples, and one of each source: the C library, GNU's predefines, POSIX, PyTorch, CUDA.
MACROS = ["linux", "unix", "errno", "EOF", "NULL", "stdin", "stdout", "alloca", "offsetof", "INT_MAX",
          "TORCH_CHECK", "C10_API", "CUDART_VERSION"]
RESERVED = ["__x", "a__b", "_Foo", "__all__"]


def test_the_tables_hold_every_name_this_environment_defines():
    proc = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "name_tables.py", "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", MACROS + RESERVED)
def test_a_macro_or_reserved_name_is_refused_as_namespace_op_and_argument(tmp_path, name):
    (tmp_path / "ok.yaml").write_text('schema: "ok(Tensor x) -> Tensor"\nfake:\n  - like(x)\n')
    ns = run_opgen("check", "--namespace", name, "--python-package", "pkg_ok", tmp_path / "ok.yaml")
    if name in RESERVED and not name.endswith("__"):
        # A namespace C++ reserves is PyTorch's to take (vLLM's _C): registered as written, its
        # C++ in a derived namespace (test_namespaces.py). A dunder would be torch.ops' own attribute.
        assert ns.returncode == 0, ns.stderr
    else:
        assert ns.returncode == 1 and f"--namespace: error[E0905]: '{name}' is not a valid namespace" in ns.stderr, \
            ns.stderr
    (tmp_path / f"{name}.yaml").write_text(f'schema: "{name}(Tensor x) -> Tensor"\nfake:\n  - like(x)\n')
    op = run_opgen("check", "--namespace", "mylib", tmp_path / f"{name}.yaml")
    assert op.returncode == 1 and "error[E0302]" in op.stderr, op.stderr
    (tmp_path / "foo.yaml").write_text(f'schema: "foo(Tensor x, int {name}) -> Tensor"\nfake:\n  - like(x)\n')
    arg = run_opgen("check", "--namespace", "mylib", tmp_path / "foo.yaml")
    assert arg.returncode == 1 and "error[E0307]" in arg.stderr, arg.stderr


@pytest.mark.parametrize("name", ["linux_", "EOF_", "errno2", "n", "my_stdin"])
def test_names_beside_them_are_accepted(tmp_path, name):
    (tmp_path / f"{name}.yaml").write_text(f'schema: "{name}(Tensor x, int a_{name}) -> Tensor"\nfake:\n  - like(x)\n')
    proc = run_opgen("check", "--namespace", name, tmp_path / f"{name}.yaml")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("package", ["typing", "json", "email", "torch", "opgen", "sympy", "typing_extensions",
                                     "jinja2", "scikit_build_core", "numpy"])
def test_a_package_that_would_shadow_or_replace_the_environment_is_refused(package):
    proc = run_opgen("check", "--namespace", "mylib", "--python-package", package, SCHEMAS / "rms_norm.yaml")
    assert proc.returncode == 1 and f"--python-package: error[E0905]: '{package}'" in proc.stderr, proc.stderr


def test_init_refuses_a_namespace_that_would_shadow_the_standard_library(tmp_path):
    proc = run_opgen("init", "typing", cwd=tmp_path)
    assert proc.returncode == 1 and "error[E0905]" in proc.stderr and "nothing was written" in proc.stderr
    assert snapshot(tmp_path) == {}


def test_init_names_the_distribution_after_the_package_not_the_tool(tmp_path):
    """`--namespace opgen` gets the package opgen_ops, and so does the distribution:
    `pip install` of the project must not replace the tool."""
    proc = run_opgen("init", "proj", "--namespace", "opgen", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    project = tomllib.loads((tmp_path / "proj" / "pyproject.toml").read_text())["project"]
    assert project["name"] == "opgen_ops"
    assert "import opgen_ops" in (tmp_path / "proj" / "README.md").read_text()


def test_a_namespace_too_long_for_the_file_system_is_refused_before_any_write(tmp_path):
    proc = run_opgen("init", "proj", "--namespace", "n" * 250, cwd=tmp_path)
    assert proc.returncode == 1 and "longer than 100 characters" in proc.stderr, proc.stderr
    assert snapshot(tmp_path) == {}
    longest = "n" * 100
    assert run_opgen("init", "proj", "--namespace", longest, cwd=tmp_path).returncode == 0
