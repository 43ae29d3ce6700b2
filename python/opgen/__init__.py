"""opgen, the tool, as a Python package (`pip install opgen`): the `opgen`
executable, its CMake package and the JSON Schema of specs.

    opgen generate ...                    # the executable, on the PATH
    python -m opgen --cmake-dir           # for -Dopgen_DIR=..., as nanobind and pybind11 do
    python -m opgen --json-schema         # for editors' YAML language server

scikit-build-core finds the CMake package by itself (the `cmake.prefix`
entry point), so a project's `find_package(opgen)` needs no flag there.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["cmake_dir", "executable", "json_schema", "__version__"]

_ROOT = Path(__file__).resolve().parent


def _installed(relative: str) -> Path:
    path = _ROOT / relative
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: opgen's Python package is used from a source tree, not from "
                                "an installed wheel (pip install <the opgen checkout>)")
    return path


def executable() -> Path:
    """The opgen tool this package carries."""
    return _installed("bin/opgen")


def cmake_dir() -> Path:
    """The directory holding opgenConfig.cmake: find_package(opgen) with -Dopgen_DIR=<this>."""
    return _installed("share/cmake/opgen")


def json_schema() -> Path:
    """spec.schema.json: the JSON Schema of an op spec, for editors."""
    return _installed("spec.schema.json")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("opgen")
    except PackageNotFoundError:
        return "unknown (not installed)"


__version__ = _version()
