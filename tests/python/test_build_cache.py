"""The compiler cache of scripts/cache-env.sh (ccache) saves work and cannot
hide a defect: with exactly the settings the scripts export, a second clone
of a project compiles nothing anew, and a changed header is compiled anew
and changes what runs. Each test has a cache of its own, cold at the start,
so the results are the same on a machine whose shared cache is warm."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from project_helpers import clean_env, run

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")

pytestmark = pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed (scripts/setup.sh)")

PROJECT = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.25)\nproject(probe LANGUAGES CXX)\n"
                      "add_executable(probe main.cpp)\n",
    "main.cpp": '#include <cstdio>\n#include "value.h"\nint main() { std::printf("%d\\n", kValue); }\n',
    "value.h": "#ifdef VALUE\nconstexpr int kValue = VALUE;\n#else\nconstexpr int kValue = 1;\n#endif\n",
}


def cache_env(root: Path) -> dict:
    """The variables scripts/cache-env.sh exports when sourced at root, with
    its cache under root (and nothing inherited from the caller's)."""
    env = {k: v for k, v in clean_env().items()
           if not k.startswith("CCACHE_") and not k.endswith("_COMPILER_LAUNCHER")}
    env["OPGEN_CACHE_DIR"] = str(root / "cache")
    script = f"source {SOURCE_DIR / 'scripts' / 'cache-env.sh'} && env -0"
    out = subprocess.run(["bash", "-c", script], cwd=root, env=env, capture_output=True, check=True).stdout
    exported = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    assert exported["CMAKE_CXX_COMPILER_LAUNCHER"] == "ccache", exported
    assert exported["CCACHE_DIR"] == str(root / "cache" / "ccache")
    return exported


def build_and_run(project: Path, env) -> tuple[str, dict]:
    """Builds project and runs its program: what it printed, and what the
    build took from the cache and compiled anew (configuring is not counted)."""
    build = project / "build"
    if not (build / "build.ninja").exists():
        run(["cmake", "-S", project, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], env=env)
    run(["ccache", "--zero-stats"], env=env)
    run(["cmake", "--build", build], env=env)
    counts = dict(line.split("\t") for line in run(["ccache", "--print-stats"], env=env).stdout.splitlines())
    cache = {"hits": int(counts["direct_cache_hit"]) + int(counts["preprocessed_cache_hit"]),
             "misses": int(counts["cache_miss"])}
    return run([build / "probe"], env=env).stdout.strip(), cache


def clone(root: Path, name: str) -> Path:
    project = root / name
    project.mkdir()
    for file, text in PROJECT.items():
        (project / file).write_text(text)
    return project


def test_a_second_clone_compiles_nothing_and_a_changed_header_recompiles(tmp_path):
    env = cache_env(tmp_path)
    first = clone(tmp_path, "first")
    assert build_and_run(first, env) == ("1", {"hits": 0, "misses": 1})

    # Another clone, in another directory: the cache serves it (base_dir, no hash_dir).
    second = clone(tmp_path, "second")
    assert build_and_run(second, env) == ("1", {"hits": 1, "misses": 0})

    # A changed header is a miss and a new program, though main.cpp is as it was.
    (second / "value.h").write_text("constexpr int kValue = 2;\n")
    assert build_and_run(second, env) == ("2", {"hits": 0, "misses": 1})

    # Back as it was: served from the cache, and right.
    (second / "value.h").write_text(PROJECT["value.h"])
    assert build_and_run(second, env) == ("1", {"hits": 1, "misses": 0})


def test_a_changed_compiler_flag_recompiles(tmp_path):
    env = cache_env(tmp_path)
    project = clone(tmp_path, "project")
    assert build_and_run(project, env) == ("1", {"hits": 0, "misses": 1})
    run(["cmake", "-S", project, "-B", project / "build", "-DCMAKE_CXX_FLAGS=-DVALUE=3"], env=env)
    assert build_and_run(project, env) == ("3", {"hits": 0, "misses": 1})


@pytest.mark.skipif(not BUILD_DIR, reason="run through CTest (OPGEN_BUILD_DIR)")
def test_the_op_library_compiles_under_opgen_compile_then_the_cache():
    """Opgen.cmake chains a launcher already set after `opgen compile`: in a
    tree configured by scripts/build.sh, the kernels go through both."""
    cache = (Path(BUILD_DIR) / "CMakeCache.txt").read_text()
    if "CMAKE_CXX_COMPILER_LAUNCHER:STRING=ccache" not in cache:
        pytest.skip("this tree was configured without ccache (OPGEN_CCACHE=0 or no ccache)")
    rules = (Path(BUILD_DIR) / "CMakeFiles" / "rules.ninja").read_text()
    kernel_rules = [line for line in rules.splitlines() if " compile --kernel-headers " in line]
    assert kernel_rules and all(" -- ccache " in line for line in kernel_rules), kernel_rules[:3]
