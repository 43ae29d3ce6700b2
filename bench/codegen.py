#!/usr/bin/env python3
"""Code-generation speed: opgen against PyTorch's torchgen, on PyTorch's own op set.

    python3 bench/codegen.py [--opgen build/codegen/opgen] [--work /tmp/opgen-bench-codegen]

Measures, with hyperfine (Debian's `hyperfine`):
  * `opgen generate` from scratch on (a) the in-tree `schemas/` and (b) every
    function of the native_functions.yaml inside the installed torch wheel,
    converted to one opgen spec per op by bench/aten_specs.py (what opgen
    rejects is counted with opgen's reason and left out);
  * `opgen check` on (b): loading and checking alone, without emitting;
  * a no-op re-run of `opgen generate` on each set (nothing changed), and how
    many output files it touched, from every file's mtime, inode and size
    before and after (it must be zero); the same re-run with the stamp
    (.opgen-stamp) deleted first, which compares every file instead; and a
    re-run after one spec's bytes changed (a comment appended), which loads
    and renders everything but writes nothing;
  * `python -m torchgen.gen` on that native_functions.yaml, from scratch and
    re-run (torchgen also writes only the files that change).

Prints one JSON object per measurement on stdout and a table on stderr.
Timings are wall-clock seconds; `user_s`/`system_s` are CPU seconds, the
steadier figure on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aten_specs  # noqa: E402
from _common import REPO, Reporter, hyperfine, log, table  # noqa: E402

GOAL_SPEEDUP = 30.0
GOAL_NOOP_S = 0.050
STAMP = ".opgen-stamp"  # what opgen generate leaves beside its output (docs/index.md)


def build_type(binary: str) -> str | None:
    """CMAKE_BUILD_TYPE of the build tree the binary sits in, if it can be found."""
    for d in Path(binary).parents:
        cache = d / "CMakeCache.txt"
        if cache.is_file():
            for line in cache.read_text(errors="replace").splitlines():
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1] or None
            return None
    return None


def generated_files(root: Path) -> list[Path]:
    """The files under `root`, but opgen's stamp (not generated code)."""
    return [p for p in root.rglob("*") if p.is_file() and p != root / STAMP]


def tree_stats(root: Path) -> tuple[int, int]:
    files = generated_files(root)
    return len(files), sum(p.stat().st_size for p in files)


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every generated file's (mtime_ns, inode, size): a rewrite or a replace changes one of them."""
    snap = {}
    for p in generated_files(root):
        st = p.stat()
        snap[str(p.relative_to(root))] = (st.st_mtime_ns, st.st_ino, st.st_size)
    return snap


def touched(before: dict, after: dict) -> int:
    return sum(1 for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def timing_fields(r: dict) -> dict:
    return {
        "median_s": round(r["median"], 6), "mean_s": round(r["mean"], 6),
        "stddev_s": round(r["stddev"], 6) if r.get("stddev") is not None else None,
        "min_s": round(r["min"], 6), "max_s": round(r["max"], 6),
        "user_s": round(r["user"], 6), "system_s": round(r["system"], 6), "runs": len(r["times"]),
    }


def set_aside(path: Path, trash: Path) -> list[str]:
    """A hyperfine --prepare command that moves `path` out of the way, into a new directory under `trash`.

    Not `rm -rf`: ext4 will not reuse an inode deleted moments ago, and scans
    past every one (`recently_deleted` in find_inode_bit), so creating
    thousands of files right after deleting thousands costs seconds of kernel
    time that has nothing to do with the tool measured. The trash is emptied
    after the measurements, untimed.
    """
    return ["sh", "-c", f'mv {shlex.quote(str(path))} "$(mktemp -d -p {shlex.quote(str(trash))})" 2>/dev/null || true']


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opgen", default=str(REPO / "build/codegen/opgen"), help="the opgen binary (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/opgen-bench-codegen"),
                        help="scratch directory, emptied first (default: %(default)s)")
    parser.add_argument("--opgen-runs", type=int, default=10, help="runs per opgen measurement (default: %(default)s)")
    parser.add_argument("--noop-runs", type=int, default=30, help="runs per no-op measurement (default: %(default)s)")
    parser.add_argument("--torchgen-runs", type=int, default=3, help="runs of torchgen from scratch (default: %(default)s)")
    parser.add_argument("--torchgen-noop-runs", type=int, default=1, help="torchgen re-runs; 0 skips (default: %(default)s)")
    parser.add_argument("--skip-torchgen", action="store_true", help="measure opgen only")
    parser.add_argument("--json-out", help="also append the JSON lines to this file")
    args = parser.parse_args()

    opgen = str(Path(args.opgen).resolve())
    if not os.access(opgen, os.X_OK):
        sys.exit(f"bench: no opgen binary at {opgen} (build it, or pass --opgen)")
    rep = Reporter("codegen", args.json_out)
    rep.machine["opgen_binary"] = opgen
    rep.machine["opgen_build_type"] = build_type(opgen)
    work = args.work.resolve()
    old_work = None
    if work.exists():  # deleted at the end, for the reason set_aside gives
        old_work = work.with_name(f"{work.name}.old-{os.getpid()}")
        work.rename(old_work)
    work.mkdir(parents=True)
    trash = work / "trash"
    trash.mkdir()

    # PyTorch's op set as opgen specs.
    native_yaml = aten_specs.native_functions_yaml()
    log(f"converting {native_yaml} ...")
    conv = aten_specs.convert(work / "aten" / "specs", opgen, native_yaml)
    rep.emit("convert", source=str(native_yaml), entries=conv.entries, converted=conv.converted,
             skipped=sum(conv.skipped.values()), skipped_by_reason=dict(conv.skipped.most_common()),
             fakes=dict(conv.fakes), check_passes=conv.check_passes,
             command=shlex.join([sys.executable, str(Path(aten_specs.__file__)), str(work / "aten" / "specs"),
                                 "--opgen", opgen]))
    log(f"{conv.entries} native functions: {conv.converted} converted, {sum(conv.skipped.values())} skipped")

    sets = [
        ("schemas/", REPO / "schemas", "opgen", len(list((REPO / "schemas").glob("*.yaml")))),
        ("native_functions.yaml", work / "aten" / "specs", aten_specs.NAMESPACE, conv.converted),
    ]
    results: dict[str, dict] = {}
    for name, specs, ns, n_ops in sets:
        out = work / ("schemas" if name == "schemas/" else "aten") / "out"
        cmd = [opgen, "generate", "--namespace", ns, "-o", str(out), str(specs)]
        log(f"opgen generate, {name} ({n_ops} ops) ...")
        r = hyperfine(cmd, prepare=set_aside(out, trash), warmup=1, runs=args.opgen_runs)
        files, size = tree_stats(out)
        results[f"opgen:{name}"] = rep.emit(
            "opgen_generate", set=name, ops=n_ops, **timing_fields(r), ops_per_s=round(n_ops / r["median"], 1),
            files_written=files, bytes_written=size, command=shlex.join(cmd), timed_with=r["hyperfine_command"])

        if name != "schemas/":
            check_cmd = [opgen, "check", "--namespace", ns, str(specs)]
            r = hyperfine(check_cmd, warmup=1, runs=args.opgen_runs)
            results[f"check:{name}"] = rep.emit(
                "opgen_check", set=name, ops=n_ops, **timing_fields(r), ops_per_s=round(n_ops / r["median"], 1),
                command=shlex.join(check_cmd), timed_with=r["hyperfine_command"])

        # No-op: the output is there and up to date.
        log(f"opgen no-op re-run, {name} ...")
        before = snapshot(out)
        stderr = subprocess.run([*cmd, "-v"], capture_output=True, text=True, check=True).stderr
        verbose = next((line for line in reversed(stderr.splitlines()) if line.startswith("opgen: ")), "")
        r = hyperfine(cmd, warmup=3, runs=args.noop_runs)
        after = snapshot(out)
        n_touched = touched(before, after)
        results[f"noop:{name}"] = rep.emit(
            "opgen_noop", set=name, ops=n_ops, **timing_fields(r), files=len(after), files_touched=n_touched,
            opgen_says=verbose, goal_s=GOAL_NOOP_S, goal_met=r["median"] < GOAL_NOOP_S and n_touched == 0,
            command=shlex.join(cmd), timed_with=r["hyperfine_command"])

        # The same without the stamp: every spec parsed and checked, every
        # file rendered and compared with the one on disk (then a new stamp).
        log(f"opgen re-run without its stamp, {name} ...")
        stamp = out / STAMP
        r = hyperfine(cmd, prepare=["rm", "-f", str(stamp)], warmup=1, runs=args.opgen_runs)
        after = snapshot(out)
        results[f"nostamp:{name}"] = rep.emit(
            "opgen_rerun_without_stamp", set=name, ops=n_ops, **timing_fields(r), files=len(after),
            files_touched=touched(before, after),
            command=shlex.join(cmd), timed_with=f"{r['hyperfine_command']} (prepare: rm -f {stamp})")

        # One spec's bytes changed (a comment appended, before each run):
        # the stamp no longer matches, so everything is loaded and rendered;
        # nothing that reaches the output changed, so nothing is written.
        edited = sorted(Path(specs).glob("*.yaml"))[0]
        original = edited.read_bytes()
        edit_copy = work / "edited" / name.rstrip("/")
        shutil.copytree(specs, edit_copy)
        edited = edit_copy / edited.name
        edit_cmd = [opgen, "generate", "--namespace", ns, "-o", str(out), str(edit_copy)]
        subprocess.run(edit_cmd, capture_output=True, check=True)
        log(f"opgen re-run after one spec's bytes changed, {name} ...")
        before = snapshot(out)
        r = hyperfine(edit_cmd, prepare=["sh", "-c", f'date "+# %N" >> {shlex.quote(str(edited))}'],
                      warmup=1, runs=args.opgen_runs)
        after = snapshot(out)
        assert edited.read_bytes() != original
        results[f"edited:{name}"] = rep.emit(
            "opgen_rerun_one_spec_edited", set=name, ops=n_ops, **timing_fields(r), files=len(after),
            files_touched=touched(before, after), edited_spec=edited.name,
            command=shlex.join(edit_cmd),
            timed_with=f"{r['hyperfine_command']} (prepare: a comment line appended to {edited.name})")

    if not args.skip_torchgen:
        import torchgen

        tg_root = work / "torchgen"
        tg_cmd = [sys.executable, "-m", "torchgen.gen", "-s", str(Path(torchgen.__file__).parent / "packaged" / "ATen"),
                  "-d", str(tg_root / "out"), "--aoti-install-dir", str(tg_root / "aoti")]
        log(f"torchgen, {conv.entries} native functions, {args.torchgen_runs} runs (minutes) ...")
        r = hyperfine(tg_cmd, prepare=set_aside(tg_root, trash), runs=args.torchgen_runs)
        files, size = tree_stats(tg_root)
        results["torchgen"] = rep.emit(
            "torchgen_generate", set="native_functions.yaml", ops=conv.entries, **timing_fields(r),
            ops_per_s=round(conv.entries / r["median"], 1), files_written=files, bytes_written=size,
            command=shlex.join(tg_cmd), timed_with=r["hyperfine_command"])
        if args.torchgen_noop_runs:
            before = snapshot(tg_root)
            r = hyperfine(tg_cmd, runs=args.torchgen_noop_runs)
            results["torchgen_noop"] = rep.emit(
                "torchgen_noop", set="native_functions.yaml", ops=conv.entries, **timing_fields(r),
                files=files, files_touched=touched(before, snapshot(tg_root)),
                command=shlex.join(tg_cmd), timed_with=r["hyperfine_command"])

        og, tg = results["opgen:native_functions.yaml"], results["torchgen"]
        wall = tg["median_s"] / og["median_s"]
        cpu = (tg["user_s"] + tg["system_s"]) / (og["user_s"] + og["system_s"])
        per_op = og["ops_per_s"] / tg["ops_per_s"]
        results["ratio"] = rep.emit(
            "opgen_vs_torchgen", set="native_functions.yaml", opgen_ops=og["ops"], torchgen_ops=tg["ops"],
            wall_ratio=round(wall, 1), cpu_ratio=round(cpu, 1), ops_per_s_ratio=round(per_op, 1),
            goal=GOAL_SPEEDUP, goal_met=min(wall, per_op) >= GOAL_SPEEDUP,
            note="wall/cpu ratios compare opgen on the converted subset with torchgen on every entry; "
                 "ops_per_s_ratio normalizes by each tool's op count")

    shutil.rmtree(trash, ignore_errors=True)
    if old_work:
        shutil.rmtree(old_work, ignore_errors=True)

    # The human-readable summary.
    rows = []
    for key, label in [("opgen:schemas/", "opgen generate, schemas/"),
                       ("noop:schemas/", "opgen no-op re-run, schemas/"),
                       ("opgen:native_functions.yaml", "opgen generate, native_functions"),
                       ("check:native_functions.yaml", "opgen check, native_functions"),
                       ("nostamp:schemas/", "opgen re-run without its stamp, schemas/"),
                       ("edited:schemas/", "opgen re-run, one spec's bytes changed, schemas/"),
                       ("noop:native_functions.yaml", "opgen no-op re-run, native_functions"),
                       ("nostamp:native_functions.yaml", "opgen re-run without its stamp, native_functions"),
                       ("edited:native_functions.yaml", "opgen re-run, one spec's bytes changed, native_functions"),
                       ("torchgen", "torchgen, native_functions"),
                       ("torchgen_noop", "torchgen re-run, native_functions")]:
        if key not in results:
            continue
        x = results[key]
        rows.append([label, x["ops"], f"{x['median_s'] * 1e3:.1f}", f"{x['min_s'] * 1e3:.1f}",
                     f"{(x['user_s'] + x['system_s']) * 1e3:.1f}", x.get("ops_per_s", ""),
                     x.get("files_written", x.get("files", "")), x.get("files_touched", ""), x["runs"]])
    log("")
    log(table(["measurement", "ops", "median ms", "min ms", "cpu ms", "ops/s", "files", "touched", "runs"], rows))
    log(f"\nconverted {conv.converted} of {conv.entries} native functions; skipped by opgen's reason:")
    log(table(["ops", "reason"], [[n, r] for r, n in conv.skipped.most_common()]))
    if "ratio" in results:
        x = results["ratio"]
        log(f"\nopgen vs torchgen: {x['wall_ratio']}x wall, {x['cpu_ratio']}x cpu, {x['ops_per_s_ratio']}x ops/s "
            f"(goal >= {GOAL_SPEEDUP:g}x: {'met' if x['goal_met'] else 'NOT met'})")
    for key in ("noop:schemas/", "noop:native_functions.yaml"):
        x = results[key]
        log(f"no-op re-run, {x['set']}: {x['median_s'] * 1e3:.1f} ms, {x['files_touched']} files touched "
            f"(goal < {GOAL_NOOP_S * 1e3:g} ms, 0 touched: {'met' if x['goal_met'] else 'NOT met'})")


if __name__ == "__main__":
    main()
