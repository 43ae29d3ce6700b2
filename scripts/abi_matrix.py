#!/usr/bin/env python3
"""ABI portability: one stable-ABI binary against several PyTorch releases.

Builds two stable-ABI libraries once (CPU kernels, TORCH_TARGET_VERSION
2.10, against the torch of requirements.txt): the stable part of the in-tree
library (the ops whose spec has no `abi: unstable`), and the outside project
tests/external_project with -DOPGEN_EXT_STABLE_ONLY=ON (every type the stable
ABI carries beyond the basics, vLLM's `Tensor!`, FA3's forward, an apex list
op), built through opgen's installed CMake package. Then for each PyTorch
release: a virtualenv with that torch from PyPI (`--system-site-packages`, so
pytest and friends are shared and only torch and its CUDA wheels are
installed; their wheels are downloaded once per machine into opgen's cache,
scripts/wheel_cache.py); against the same unchanged binaries, the in-tree part's
generated test suite (opcheck, torch.compile, fake vs real, input checks,
gradcheck), the outside project's generated suite and its own checks
(check_ops.py --stable-only: eager against PyTorch, opcheck, compile); and
the whole in-tree library, both ABIs and every CUDA kernel (sm_90a), rebuilt
against that torch's headers and its generated suite run (a kernel that uses
a macro or API the release lacks fails here, not on the device). Prints a
JSON line per cell and a table of versions x parts.

  python3 scripts/abi_matrix.py [--build build] [--versions 2.10.0 2.14.1 2.15.0] [--work build-abi]

--build is a CTest tree that built opgen (its tool is installed into
<work>/prefix for the outside project's find_package).

Run by hand (downloads GBs the first time); never in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import wheel_cache

from device_check import cmake_cuda_args, find_tool

REPO = Path(__file__).resolve().parent.parent


def sh(cmd: list[str | Path], log: Path, **kwargs) -> int:
    """Runs cmd, appending its output to log; returns the exit status."""
    with open(log, "a") as f:
        f.write(f"$ {' '.join(map(str, cmd))}\n")
        f.flush()
        return subprocess.run([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT, **kwargs).returncode


def torch_version(python: Path) -> str:
    out = subprocess.run([str(python), "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else f"(no torch: {out.stderr.strip().splitlines()[-1:]})"


def build_part(abi: str, python: Path, build: Path, opgen: Path, log: Path) -> bool:
    """One ABI's part of the in-tree library (scripts/abi/CMakeLists.txt)."""
    if not (build / "build.ninja").exists():
        rc = sh(["cmake", "-S", REPO / "scripts/abi", "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DOPGEN_ABI={abi}", f"-DOPGEN_EXECUTABLE={opgen}", f"-DPython3_EXECUTABLE={python}"], log)
        if rc:
            return False
    return sh(["cmake", "--build", build], log) == 0


def build_library(python: Path, build: Path, opgen: Path, nvcc: Path, log: Path) -> bool:
    """The whole in-tree library, CUDA kernels included, as the device check builds it."""
    if not (build / "build.ninja").exists():
        rc = sh(["cmake", "-S", REPO, "-B", build, *cmake_cuda_args(nvcc, python), f"-DOPGEN_EXECUTABLE={opgen}",
                 "-DOPGEN_BUILD_TESTS=OFF"], log)
        if rc:
            return False
    return sh(["cmake", "--build", build], log) == 0


def build_external(python: Path, build: Path, prefix: Path, log: Path) -> bool:
    """tests/external_project's stable-ABI ops, found through the installed opgen package."""
    if not (build / "build.ninja").exists():
        rc = sh(["cmake", "-S", REPO / "tests/external_project", "-B", build, "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={prefix}", "-DOPGEN_EXT_STABLE_ONLY=ON", f"-DPython3_EXECUTABLE={python}"], log)
        if rc:
            return False
    return sh(["cmake", "--build", build], log) == 0


def run_python(python: Path, args: list[str | Path], site: Path, log: Path) -> dict:
    """`python args` with the part's package on the path (then the tool's, for opgen.testing);
    pass/fail from the exit status, counts from pytest's summary line where there is one."""
    start = time.perf_counter()
    with open(log, "a") as f:
        proc = subprocess.run([str(python), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env={**os.environ, "PYTHONPATH": f"{site}:{REPO / 'python'}"}, cwd=site)
        f.write(proc.stdout)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary)}
    return {"ok": proc.returncode == 0, "summary": summary, "seconds": round(time.perf_counter() - start, 1), **counts}


def generated_suite(build: Path, library: str, package: str) -> list[str | Path]:
    return ["-m", "pytest", "-q", "-p", "no:cacheprovider", build / f"{library}_generated/tests/test_{package}_ops.py"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(REPO / "build"), help="a CTest tree that built opgen")
    parser.add_argument("--versions", nargs="+", default=["2.10.0", "2.14.1", "2.15.0"])
    parser.add_argument("--work", default=str(REPO / "build-abi"))
    parser.add_argument("--python", default=sys.executable, help="the interpreter with the torch to build against")
    args = parser.parse_args()
    opgen_build, work, base_python = Path(args.build).resolve(), Path(args.work).resolve(), Path(args.python)
    opgen = opgen_build / "codegen/opgen"
    nvcc = find_tool("nvcc", "CUDACXX")
    if not nvcc:
        sys.exit("abi_matrix: no nvcc (CUDACXX, the PATH, /usr/local/cuda/bin): the CUDA kernels must compile "
                 "against every release")
    work.mkdir(parents=True, exist_ok=True)
    log = work / "abi_matrix.log"
    log.write_text("")
    print(f"abi_matrix: logs in {log}", file=sys.stderr)

    built_with = torch_version(base_python)
    stable_build, external_build, prefix = work / "stable", work / "external-stable", work / "prefix"
    if not build_part("stable", base_python, stable_build, opgen, log):
        sys.exit(f"abi_matrix: the stable part does not build; see {log}")
    if sh(["cmake", "--install", opgen_build, "--component", "tool", "--prefix", prefix], log) or \
            not build_external(base_python, external_build, prefix, log):
        sys.exit(f"abi_matrix: the outside project does not build; see {log}")
    # Built once; each must stay byte-identical across the matrix.
    binaries = {"stable": stable_build / "python/opgen_ops/libopgen_stable_ops.so",
                "external": external_build / "python/opgen_ext/libopgen_ext_ops.so"}
    digests = {name: sha256(path) for name, path in binaries.items()}

    rows = []
    for version in args.versions:
        venv = work / f"venv-{version}"
        python = venv / "bin/python"
        if not python.exists():
            sh([base_python, "-m", "venv", "--system-site-packages", venv], log)
        if torch_version(python).split("+")[0] != version:
            print(f"abi_matrix: installing torch=={version} into {venv}", file=sys.stderr)
            if wheel_cache.install(python, [f"torch=={version}"], log):
                sys.exit(f"abi_matrix: pip could not install torch=={version}; see {log}")
        installed = torch_version(python)
        print(f"abi_matrix: torch {installed}", file=sys.stderr)

        external_site = external_build / "python"
        cells = {
            "stable (built once)": run_python(python, generated_suite(stable_build, "opgen_stable_ops", "opgen_ops"),
                                              stable_build / "python", log),
            "outside project, stable (built once)": run_python(python, generated_suite(external_build, "opgen_ext_ops", "opgen_ext"),
                                                               external_site, log),
            "outside project's checks (built once)": run_python(
                python, [REPO / "tests/external_project/check_ops.py", "--stable-only"], external_site, log),
        }
        assert {name: sha256(path) for name, path in binaries.items()} == digests, "a built-once binary changed"
        library_build = work / f"library-{version}"
        if build_library(python, library_build, opgen, nvcc, log):
            cells["library with CUDA (rebuilt)"] = run_python(python, generated_suite(library_build, "opgen_ops", "opgen_ops"),
                                                              library_build / "python", log)
        else:
            cells["library with CUDA (rebuilt)"] = {"ok": False, "summary": "does not build"}
        for part, result in cells.items():
            print(json.dumps({"torch": installed, "part": part, **result}), flush=True)
        rows.append((installed, cells))

    for name, path in binaries.items():
        print(f"{name} binary: {path.name} (sha256 {digests[name]}), built once against torch {built_with}",
              file=sys.stderr)
    parts = list(rows[0][1]) if rows else []
    print("| torch | " + " | ".join(parts) + " |", file=sys.stderr)
    print("|---" * (len(parts) + 1) + "|", file=sys.stderr)
    for installed, cells in rows:
        cell = lambda r: f"{'pass' if r['ok'] else 'FAIL'} ({r['summary']})"  # noqa: E731
        print(f"| {installed} | " + " | ".join(cell(cells[p]) for p in parts) + " |", file=sys.stderr)
    return 0 if all(r["ok"] for _, cells in rows for r in cells.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
