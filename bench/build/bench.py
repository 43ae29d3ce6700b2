#!/usr/bin/env python3
"""Build speed of an opgen op library, measured on a copy of the in-tree one.

Three measurements, each printed as a JSON line (then a table on stderr):

  clean        configure + build of the in-tree library (schemas/ + kernels/,
               CPU and CUDA) from nothing, with a prebuilt opgen; how many TUs
               and the wall/CPU time
  incremental  after a one-line edit of one op's YAML (a new `require` on
               rms_norm): which TUs ninja recompiled (must be exactly one, the
               unity shard that includes the op's generated TU) plus the link,
               and the time; then a no-op rebuild
  one_tu       compile time of one generated stable-ABI TU
               (generated/csrc/rms_norm.cpp) against the same op registered
               by hand through torch/extension.h (bench/build/
               extension_rms_norm.cpp), same flags, best of --repeats

The tree is copied to a temporary directory so the checkout is never edited.

  python3 bench/build/bench.py --opgen build/codegen/opgen [--jobs 2] [--repeats 3] > build.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import REPO, Reporter, log, table  # noqa: E402

EDITED_SPEC = "schemas/rms_norm.yaml"
EDIT = ("  - input.dim() >= 1\n", "  - input.dim() >= 1\n  - eps >= 0\n")


def copy_checkout(dest: Path) -> None:
    """The checkout's files as they are now (tracked and untracked, not ignored)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           check=True, stdout=subprocess.PIPE, text=True).stdout.split("\0")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)


def run_timed(argv: list[str], cwd: Path, check: bool = True) -> tuple[float, float, str]:
    """Runs argv; returns (wall s, CPU s of the children, stdout+stderr). Exits when it fails, if `check`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if check and proc.returncode != 0:
        sys.exit(f"bench: {shlex.join(argv)} failed:\n{proc.stdout[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def compiled_units(ninja_output: str) -> list[str]:
    """The sources ninja compiled, from its `Building CXX/CUDA object X.o` lines."""
    units = re.findall(r"Building (?:CXX|CUDA) object (\S+)\.o", ninja_output)
    return sorted(u.split(".dir/", 1)[-1] for u in units)


def links(ninja_output: str) -> int:
    return len(re.findall(r"Linking ", ninja_output))


def compile_command(build: Path, source_suffix: str) -> tuple[list[str], str]:
    """The compile command and directory of the TU whose file ends with source_suffix."""
    for entry in json.loads((build / "compile_commands.json").read_text()):
        if entry["file"].endswith(source_suffix):
            argv = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
            return argv, entry["directory"]
    sys.exit(f"bench: no compile command for {source_suffix}")


def time_compile(argv: list[str], cwd: str, source: str, repeats: int, out: Path,
                 extra: list[str] = ()) -> list[float]:
    """Compiles `source` with argv's flags (its -o and input replaced) plus `extra`, `repeats` times."""
    flags, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if arg.endswith((".cpp", ".cu")) or arg in ("-c", "-MD", "-MT", "-MF"):
            skip = arg in ("-MT", "-MF")
            continue
        flags.append(arg)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([*flags, *extra, "-c", source, "-o", str(out)], cwd=cwd, check=True)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opgen", default=str(REPO / "build/codegen/opgen"), help="a built opgen")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="ninja -j")
    parser.add_argument("--repeats", type=int, default=3, help="compiles per TU for one_tu")
    parser.add_argument("--skip-clean", action="store_true", help="only one_tu (needs no library build)")
    parser.add_argument("--json-out", help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    opgen = Path(args.opgen).resolve()
    if not opgen_ops.is_file():
        sys.exit(f"bench: no opgen at {opgen}: scripts/build.sh first, or --opgen")
    report = Reporter("build", args.json_out)

    with tempfile.TemporaryDirectory(prefix="opgen-bench-build-") as tmp:
        src, build = Path(tmp) / "src", Path(tmp) / "build"
        copy_checkout(src)
        configure = ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                     f"-DOPGEN_EXECUTABLE={opgen}", "-DOPGEN_BUILD_TESTS=OFF"]
        ninja = ["ninja", "-C", str(build), f"-j{args.jobs}"]
        log(f"bench: configuring {build}")
        configure_wall, configure_cpu, _ = run_timed(configure, src)
        report.emit("configure", wall_s=round(configure_wall, 2), cpu_s=round(configure_cpu, 2),
                    command=shlex.join(configure))

        if not args.skip_clean:
            log("bench: clean build (minutes)")
            wall, cpu, out = run_timed(ninja, src)
            units = compiled_units(out)
            report.emit("clean", wall_s=round(wall, 2), cpu_s=round(cpu, 2), jobs=args.jobs,
                        tus=len(units), cuda_tus=sum(u.endswith(".cu") for u in units), links=links(out),
                        command=shlex.join(ninja))

            spec = src / EDITED_SPEC
            text = spec.read_text()
            if EDIT[0] not in text:
                sys.exit(f"bench: {EDITED_SPEC} no longer has the line this bench edits: {EDIT[0]!r}")
            spec.write_text(text.replace(EDIT[0], EDIT[1], 1))
            wall, cpu, out = run_timed(ninja, src)
            units = compiled_units(out)
            report.emit("incremental", edit=f"{EDITED_SPEC}: + require 'eps >= 0'", wall_s=round(wall, 2),
                        cpu_s=round(cpu, 2), tus=len(units), recompiled=units, links=links(out),
                        command=shlex.join(ninja))
            wall, cpu, out = run_timed(ninja, src)
            report.emit("noop", wall_s=round(wall, 3), tus=len(compiled_units(out)), links=links(out),
                        command=shlex.join(ninja))

        # One TU: the generated stable-ABI binding against the torch/extension.h one.
        if args.skip_clean:
            run_timed([*ninja, "opgen_ops_python"], src)  # generates the sources, compiles nothing
        # The flags of the stable shards, which include rms_norm.cpp.
        argv_tu, cwd = compile_command(build, "opgen_ops_generated/csrc/opgen-stable-shard0.cpp")
        generated = str(build / "opgen_ops_generated/csrc/rms_norm.cpp")
        handwritten = str(REPO / "bench/build/extension_rms_norm.cpp")
        results = {}
        # torch/extension.h pulls in pybind11 and Python.h.
        python_include = ["-isystem", sysconfig.get_paths()["include"]]
        for name, source, extra in (("opgen_stable", generated, []),
                                    ("torch_extension_h", handwritten, python_include)):
            times = time_compile(argv_tu, cwd, source, args.repeats, Path(tmp) / f"{name}.o", extra)
            results[name] = min(times)
            report.emit("one_tu", variant=name, source=os.path.relpath(source, tmp if name == "opgen_stable" else REPO),
                        best_s=round(min(times), 2), times_s=[round(t, 2) for t in times],
                        compiler=os.path.basename(argv_tu[0]))
        report.emit("one_tu_ratio", ratio=round(results["torch_extension_h"] / results["opgen_stable"], 1))

    rows = []
    for r in report.rows:
        m = r["measurement"]
        if m in ("configure", "clean", "incremental", "noop"):
            detail = {"clean": lambda: f"{r['tus']} TUs ({r['cuda_tus']} CUDA), {r['links']} link",
                      "incremental": lambda: f"{r['tus']} TU ({', '.join(r['recompiled'])}), {r['links']} link",
                      "noop": lambda: f"{r['tus']} TUs, {r['links']} links"}.get(m, lambda: "")()
            rows.append([m, r["wall_s"], r.get("cpu_s", ""), detail])
        elif m == "one_tu":
            rows.append([f"one TU: {r['variant']}", r["best_s"], "", f"best of {len(r['times_s'])}"])
        elif m == "one_tu_ratio":
            rows.append(["torch/extension.h / opgen", f"{r['ratio']}x", "", ""])
    log(table(["measurement", "wall s", "CPU s", "what"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
