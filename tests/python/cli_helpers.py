"""Running the built `opgen` tool from tests: where things are, how to call it,
and how to tell whether it wrote anything.

The tool comes from OPGEN_BIN (CTest sets it, with OPGEN_SOURCE_DIR); tests
that need it are marked `requires_opgen` and skip when it is unset.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

OPGEN_BIN = os.environ.get("OPGEN_BIN")
SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SCHEMAS = SOURCE_DIR / "schemas"
GENERATED = SOURCE_DIR / "generated"
BAD_SPECS = SOURCE_DIR / "tests" / "bad_specs"

# The options CMake gives opgen for the in-tree library.
IN_TREE_OPTIONS = (
    "--namespace", "opgen", "--python-package", "opgen_ops", "--library-name", "opgen_ops",
    "--source-root", SOURCE_DIR, "--shards", "1",
)  # fmt: skip

requires_opgen = pytest.mark.skipif(not OPGEN_BIN, reason="set OPGEN_BIN to the built opgen binary")


def build_with_opgen(project, build, *cmake_options):
    """Configures (Ninja, Release, CPU only unless an option says otherwise)
    and builds a CMake project that includes cmake/Opgen.cmake, with this
    tree's tool, against the torch of the Python running the test (another
    torch's library would not load in it). Returns the build's output and an
    environment in which Python imports the project's package and opgen.testing."""
    configure = subprocess.run(
        ["cmake", "-S", project, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DOPGEN_ENABLE_CUDA=OFF",
         f"-DOPGEN_EXECUTABLE={OPGEN_BIN}", f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=ON",
         *cmake_options], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    result = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(build) / "python"), str(SOURCE_DIR / "python")])}
    return result.stdout, env


def build_projects_own_library(project, build, target, declaration, *, include_dirs="", definitions="",
                               python_module=False, before=""):
    """A project's own build, as its maintainers compile it against the installed torch (to compare the
    imported library with): `declaration` is its add_library(...) line, `before` any CMake it needs first
    (per-file flags); the target gets `include_dirs`, `definitions`, torch's headers and libraries, and
    Python's for a module. Configures and builds it (Ninja, Release, C++20 as cpp_extension builds for
    this torch) in `build`, and returns `build`."""
    python = "Interpreter Development.Module" if python_module else "Interpreter"
    (Path(project) / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project({target}_own CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(Python3 REQUIRED COMPONENTS {python})
execute_process(COMMAND ${{Python3_EXECUTABLE}} -c "import os, torch; print(os.path.dirname(torch.__file__), end='')"
                OUTPUT_VARIABLE torch_dir COMMAND_ERROR_IS_FATAL ANY)
{before}{declaration}
target_include_directories({target} PRIVATE {include_dirs})
target_include_directories({target} SYSTEM PRIVATE ${{torch_dir}}/include ${{torch_dir}}/include/torch/csrc/api/include)
target_compile_definitions({target} PRIVATE {definitions} _GLIBCXX_USE_CXX11_ABI=1)
target_link_directories({target} PRIVATE ${{torch_dir}}/lib)
target_link_libraries({target} PRIVATE torch torch_cpu c10{" Python3::Module" if python_module else ""})
""")
    for cmd in (["cmake", "-S", project, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DPython3_EXECUTABLE={sys.executable}"], ["cmake", "--build", build]):
        result = subprocess.run(cmd, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return Path(build)


def check_built_library(build, package, check_script, env, cwd):
    """A library build_with_opgen built: `check_script` (Python that prints "ok") runs against it, then its
    generated suite (build/**/test_<package>_ops.py) passes. Returns the suite's path."""
    loaded = subprocess.run([sys.executable, "-c", check_script], env=env, capture_output=True, text=True, cwd=cwd,
                            timeout=300)
    assert loaded.returncode == 0 and "ok" in loaded.stdout, (loaded.stdout[-2000:], loaded.stderr[-4000:])
    suite = next(Path(build).rglob(f"test_{package}_ops.py"))
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite], env=env,
                           capture_output=True, text=True, cwd=cwd, timeout=600)
    assert tests.returncode == 0 and " passed" in tests.stdout, tests.stdout[-4000:] + tests.stderr[-2000:]
    return suite


def run_opgen(*args, stdin=None, cwd=None):
    """Runs `opgen args...`; returns the CompletedProcess (text stdout/stderr)."""
    return subprocess.run(
        [OPGEN_BIN, *map(str, args)], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=60
    )


def generate_in_tree(out_dir, *extra):
    """`opgen generate` of schemas/ as the build does it; asserts it succeeds."""
    proc = run_opgen("generate", *IN_TREE_OPTIONS, "-o", out_dir, *extra, SCHEMAS)
    assert proc.returncode == 0, proc.stderr
    return proc


def snapshot(directory):
    """Everything under `directory`: relative path -> (bytes, mtime in ns) for
    files, None for directories. Equal snapshots: nothing created, changed,
    touched or removed."""
    directory = Path(directory)
    return {
        path.relative_to(directory).as_posix(): (
            (path.read_bytes(), path.stat().st_mtime_ns) if path.is_file() else None
        )
        for path in sorted(directory.rglob("*"))
    }


# What `opgen generate` leaves in its output directory besides the generated
# files: the record that lets an unchanged re-run skip its work.
STAMP = ".opgen-stamp"


def file_tree(directory):
    """Relative path -> bytes, for every generated file under `directory` (not the stamp)."""
    return {path: entry[0] for path, entry in snapshot(directory).items() if entry is not None and path != STAMP}


def backdate(directory, seconds=1_000_000_000):
    """Sets every file's mtime far into the past, so that a rewrite shows even
    on a file system with coarse timestamps."""
    for path in Path(directory).rglob("*"):
        if path.is_file():
            os.utime(path, (seconds, seconds))


# `path:line:col: error[E0304]: message` (the position may be shorter).
ERROR_LINE = re.compile(r"^(?P<where>.*?): error\[(?P<code>[EW]\d{4})\]: (?P<message>.+)$")


def error_codes(lines):
    """The codes of the error lines among `lines`, in order."""
    return [m["code"] for m in map(ERROR_LINE.match, lines) if m]


def explain_hint(codes):
    """The line opgen prints after the errors of a failed run, for their codes."""
    codes = sorted(set(codes))
    if len(codes) == 1:
        return f"opgen: for more about this error, run 'opgen explain {codes[0]}'"
    return f"opgen: for more about these errors ({', '.join(codes)}), run 'opgen explain CODE'"


def split_diagnostics(stderr):
    """Splits opgen's stderr into its diagnostic lines and the summary line
    ('opgen: N errors; nothing was written'); checks the last line, which
    points at `opgen explain` for the errors' codes."""
    lines = stderr.splitlines()
    assert len(lines) >= 3, f"expected diagnostics, a summary and a hint on stderr:\n{stderr}"
    diagnostics, summary, hint = lines[:-2], lines[-2], lines[-1]
    assert hint == explain_hint(error_codes(diagnostics)), stderr
    return diagnostics, summary


def run_check(script, env, cwd):
    """Runs a check script (Python that prints "ok") against a built library in a process of its own."""
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=cwd, timeout=600)
    assert run.returncode == 0 and "ok" in run.stdout, (run.stdout[-3000:], run.stderr[-6000:])


def run_saving_results(code, results, cwd, env):
    """Runs `code` (Python that saves its results to sys.argv[1] and prints "ok") in a process of its own."""
    proc = subprocess.run([sys.executable, "-c", code, str(results)], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-5000:]


def assert_bit_identical(before, after, count):
    """The tensors two runs of run_saving_results saved: `count` of each, equal dtype, shape and bytes."""
    import torch

    before, after = torch.load(before), torch.load(after)
    assert len(before) == len(after) == count
    for a, b in zip(before, after):
        assert a.dtype == b.dtype and a.shape == b.shape and a.numpy().tobytes() == b.numpy().tobytes()


def compare_saved_results(own, mine, schemas):
    """What two processes saved (a project's own build and the imported one, the same calls on the same
    inputs), loaded: the first `schemas` entries are the ops' schemas as registered, and must be equal; then
    tensors, equal in dtype, shape and bytes (a quantized one by its integer representation), and other values
    (an exception's type name where a call was refused), equal. Returns (tensors compared, the other values)."""
    import torch

    assert len(own) == len(mine)
    assert own[:schemas] == mine[:schemas]
    tensors, others = 0, []
    for i, (a, b) in enumerate(zip(own[schemas:], mine[schemas:]), schemas):
        assert type(a) is type(b), (i, a, b)
        if isinstance(a, torch.Tensor):
            assert a.dtype == b.dtype and a.shape == b.shape, (i, a, b)
            if a.is_quantized:
                a, b = a.int_repr(), b.int_repr()
            assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8)), (i, a, b)
            tensors += 1
        else:
            assert a == b, (i, a, b)
            others.append(a)
    return tensors, others

