#!/usr/bin/env python3
"""ABI portability: one stable-ABI binary against several PyTorch releases.

Builds the stable-ABI part of the in-tree library once (the ops whose spec
has no `abi: unstable`, CPU kernels, TORCH_TARGET_VERSION 2.10, against the
torch of requirements.txt), then for each PyTorch release: a virtualenv with
that torch from PyPI (`--system-site-packages`, so pytest and friends are
shared and only torch and its CUDA wheels are downloaded), the library's
generated test suite (opcheck, torch.compile, fake vs real, input checks,
gradcheck) against the same unchanged binary, and the unstable-ABI part
rebuilt against that torch and tested the same way. Prints a JSON line per
cell and a table of versions x parts.

  python3 scripts/abi_matrix.py --opgen build/codegen/opgen [--versions 2.10.0 2.14.1 2.15.0] [--work build-abi]

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
    if not (build / "build.ninja").exists():
        rc = sh(["cmake", "-S", REPO / "scripts/abi", "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DOPGEN_ABI={abi}", f"-DOPGEN_EXECUTABLE={opgen}", f"-DPython3_EXECUTABLE={python}"], log)
        if rc:
            return False
    return sh(["cmake", "--build", build], log) == 0


def run_suite(python: Path, build: Path, abi: str, log: Path) -> dict:
    """The part's generated test suite under `python`; pass/fail counts from pytest's summary."""
    suite = build / f"opgen_{abi}_ops_generated/tests/test_opgen_ops.py"
    env = {**os.environ, "PYTHONPATH": str(build / "python")}
    start = time.perf_counter()
    with open(log, "a") as f:
        proc = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        f.write(proc.stdout)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary)}
    return {"ok": proc.returncode == 0, "summary": summary, "seconds": round(time.perf_counter() - start, 1), **counts}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opgen", default=str(REPO / "build/codegen/opgen"))
    parser.add_argument("--versions", nargs="+", default=["2.10.0", "2.14.1", "2.15.0"])
    parser.add_argument("--work", default=str(REPO / "build-abi"))
    parser.add_argument("--python", default=sys.executable, help="the interpreter with the torch to build against")
    args = parser.parse_args()
    opgen, work, base_python = Path(args.opgen).resolve(), Path(args.work).resolve(), Path(args.python)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "abi_matrix.log"
    log.write_text("")
    print(f"abi_matrix: logs in {log}", file=sys.stderr)

    stable_build = work / "stable"
    built_with = torch_version(base_python)
    if not build_part("stable", base_python, stable_build, opgen, log):
        sys.exit(f"abi_matrix: the stable part does not build; see {log}")
    library = stable_build / "python/opgen/libopgen_stable_ops.so"
    digest = sha256(library)

    rows = []
    for version in args.versions:
        venv = work / f"venv-{version}"
        python = venv / "bin/python"
        if not python.exists():
            sh([base_python, "-m", "venv", "--system-site-packages", venv], log)
        if torch_version(python).split("+")[0] != version:
            print(f"abi_matrix: installing torch=={version} into {venv}", file=sys.stderr)
            if sh([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"torch=={version}"], log):
                sys.exit(f"abi_matrix: pip could not install torch=={version}; see {log}")
        installed = torch_version(python)
        print(f"abi_matrix: torch {installed}", file=sys.stderr)

        stable = run_suite(python, stable_build, "stable", log)
        assert sha256(library) == digest, "the stable binary changed"
        unstable_build = work / f"unstable-{version}"
        if build_part("unstable", python, unstable_build, opgen, log):
            unstable = run_suite(python, unstable_build, "unstable", log)
        else:
            unstable = {"ok": False, "summary": "does not build"}
        for part, result in (("stable (built once)", stable), ("unstable (rebuilt)", unstable)):
            record = {"torch": installed, "part": part, **result,
                      "stable_binary": f"{library.name} sha256:{digest}, built against torch {built_with}"}
            print(json.dumps(record), flush=True)
        rows.append((installed, stable, unstable))

    print(f"\nstable binary: {library.name} (sha256 {digest}), built once against torch {built_with}", file=sys.stderr)
    print("| torch | stable ABI, same binary | unstable ABI, rebuilt |", file=sys.stderr)
    print("|---|---|---|", file=sys.stderr)
    for installed, stable, unstable in rows:
        cell = lambda r: f"{'pass' if r['ok'] else 'FAIL'} ({r['summary']})"  # noqa: E731
        print(f"| {installed} | {cell(stable)} | {cell(unstable)} |", file=sys.stderr)
    return 0 if all(s["ok"] and u["ok"] for _, s, u in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
