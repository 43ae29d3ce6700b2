#!/usr/bin/env python3
"""Per-call overhead from Python: trivial CPU kernels, each exposed eight ways.

    python3 bench/dispatch/bench.py [--build bench/dispatch/build] [--repeats 51] [--number 10000]

Needs the libraries of bench/dispatch/CMakeLists.txt built into --build
(bench/dispatch/run.sh configures, builds and runs this). Three kernels:

  empty_like:    returns a new uninitialized tensor shaped like x: at::empty_like;
                 on the stable ABI torch::stable::empty_like, which looks
                 aten::empty_like up by name and calls it boxed, each call
  empty_strided: the same tensor from the same ATen call in every variant:
                 at::empty_strided(x.sizes(), x.strides(), x.options()); on the
                 stable ABI the C shim aoti_torch_empty_strided, which calls it
  noop:          returns nothing and does nothing: the calling machinery alone

and the variants:

  (a) opgen stable-ABI op      torch.ops.opgen_bench.<op>_stable(x)
  (b) opgen unstable-ABI op    torch.ops.opgen_bench.<op>_unstable(x)
  (c) opgen Python shim        opgen_bench.<op>_stable(x), opgen_bench.<op>_unstable(x)
  (d) handwritten TORCH_LIBRARY torch.ops.bench_manual.<op>(x)       <- the baseline
  (d') the same, its overload bound to a name as the shim binds it: manual_<op>(x)
  (d_s) the stable kernels registered by hand, STABLE_TORCH_LIBRARY + TORCH_BOX:
                               torch.ops.bench_manual_stable.<op>(x): what (a) saves writing
  (e) torch.library.custom_op  <custom op object>(x), a Python kernel
  (f) pybind11 function        bench_pybind.<op>(x): no dispatcher, the floor
  (g) built-in aten op         torch.empty_like(x), torch.empty_strided(...) (not for noop)

Each variant is timed with timeit: `--repeats` rounds of `--number` calls, the
variants interleaved round by round so that a noisy neighbour hits them all
alike; the figure is the median over the rounds of ns per call (min too).
Prints one JSON object per measurement on stdout, the table on stderr.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import timeit
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from _common import Reporter, log, table  # noqa: E402

GOAL_VS_MANUAL = 1.15
GOAL_VS_CUSTOM_OP = 1 / 3


def load(build: Path):
    sys.path.insert(0, str(build / "python"))
    import bench_pybind  # noqa: F401  (f)
    import opgen_bench  # noqa: F401  (a), (b), (c): loads libopgen_bench_ops.so

    torch.ops.load_library(str(build / "python" / "libbench_manual.so"))  # (d)
    torch.ops.load_library(str(build / "python" / "libbench_manual_stable.so"))  # (d_s)

    # (e): the same kernels as Python custom ops.
    @torch.library.custom_op("bench_py::empty_like", mutates_args=())
    def py_empty_like(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

    @py_empty_like.register_fake
    def _(x):
        return torch.empty_like(x)

    @torch.library.custom_op("bench_py::empty_strided", mutates_args=())
    def py_empty_strided(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device=x.device)

    @py_empty_strided.register_fake
    def _(x):
        return torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device=x.device)

    @torch.library.custom_op("bench_py::noop", mutates_args=())
    def py_noop(x: torch.Tensor) -> None:
        return None

    return {"torch": torch, "opgen_bench": opgen_bench, "bench_pybind": bench_pybind,
            "py_empty_like": py_empty_like, "py_empty_strided": py_empty_strided, "py_noop": py_noop,
            # (d'): the overload object under a name, as the opgen shim binds it
            "manual_empty_like": torch.ops.bench_manual.empty_like.default,
            "manual_empty_strided": torch.ops.bench_manual.empty_strided.default,
            "manual_noop": torch.ops.bench_manual.noop.default}


# (label, variant id, statement); `x` is the tensor.
VARIANTS = {
    "empty_like": [
        ("a", "opgen stable ABI, torch.ops", "torch.ops.opgen_bench.empty_like_stable(x)"),
        ("b", "opgen unstable ABI, torch.ops", "torch.ops.opgen_bench.empty_like_unstable(x)"),
        ("c", "opgen shim, stable", "opgen_bench.empty_like_stable(x)"),
        ("c", "opgen shim, unstable", "opgen_bench.empty_like_unstable(x)"),
        ("d", "TORCH_LIBRARY by hand", "torch.ops.bench_manual.empty_like(x)"),
        ("d'", "TORCH_LIBRARY by hand, overload bound", "manual_empty_like(x)"),
        ("d_s", "STABLE_TORCH_LIBRARY + TORCH_BOX by hand", "torch.ops.bench_manual_stable.empty_like(x)"),
        ("e", "torch.library.custom_op", "py_empty_like(x)"),
        ("f", "pybind11", "bench_pybind.empty_like(x)"),
        ("g", "aten torch.empty_like", "torch.empty_like(x)"),
    ],
    "empty_strided": [
        ("a", "opgen stable ABI, torch.ops", "torch.ops.opgen_bench.empty_strided_stable(x)"),
        ("b", "opgen unstable ABI, torch.ops", "torch.ops.opgen_bench.empty_strided_unstable(x)"),
        ("c", "opgen shim, stable", "opgen_bench.empty_strided_stable(x)"),
        ("c", "opgen shim, unstable", "opgen_bench.empty_strided_unstable(x)"),
        ("d", "TORCH_LIBRARY by hand", "torch.ops.bench_manual.empty_strided(x)"),
        ("d'", "TORCH_LIBRARY by hand, overload bound", "manual_empty_strided(x)"),
        ("d_s", "STABLE_TORCH_LIBRARY + TORCH_BOX by hand", "torch.ops.bench_manual_stable.empty_strided(x)"),
        ("e", "torch.library.custom_op", "py_empty_strided(x)"),
        ("f", "pybind11", "bench_pybind.empty_strided(x)"),
        ("g", "aten torch.empty_strided", "torch.empty_strided(x.size(), x.stride())"),
    ],
    "noop": [
        ("a", "opgen stable ABI, torch.ops", "torch.ops.opgen_bench.noop_stable(x)"),
        ("b", "opgen unstable ABI, torch.ops", "torch.ops.opgen_bench.noop_unstable(x)"),
        ("c", "opgen shim, stable", "opgen_bench.noop_stable(x)"),
        ("c", "opgen shim, unstable", "opgen_bench.noop_unstable(x)"),
        ("d", "TORCH_LIBRARY by hand", "torch.ops.bench_manual.noop(x)"),
        ("d'", "TORCH_LIBRARY by hand, overload bound", "manual_noop(x)"),
        ("d_s", "STABLE_TORCH_LIBRARY + TORCH_BOX by hand", "torch.ops.bench_manual_stable.noop(x)"),
        ("e", "torch.library.custom_op", "py_noop(x)"),
        ("f", "pybind11", "bench_pybind.noop(x)"),
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=HERE / "build", help="the CMake build dir (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=51, help="timeit rounds per variant (default: %(default)s)")
    parser.add_argument("--number", type=int, default=10000, help="calls per round (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)")
    parser.add_argument("--json-out", help="also append the JSON lines to this file")
    args = parser.parse_args()

    rep = Reporter("dispatch", args.json_out)
    env = load(args.build.resolve())
    torch = env["torch"]
    torch.set_num_threads(args.threads)
    x = torch.ones(4)  # a tiny CPU tensor: the kernels do next to nothing
    env["x"] = x

    summary = []
    for kernel, variants in VARIANTS.items():
        timers = []
        for letter, name, stmt in variants:
            out = eval(stmt, env)  # the variants agree before they are timed
            if kernel.startswith("empty"):
                assert out.shape == x.shape and out.stride() == x.stride() and out.dtype == x.dtype, (stmt, out)
            else:
                assert out is None, (stmt, out)
            timers.append(timeit.Timer(stmt, globals=env))
        for t in timers:  # warm-up
            t.timeit(number=max(1, args.number // 10))
        samples: list[list[float]] = [[] for _ in timers]
        for _ in range(args.repeats):
            for i, t in enumerate(timers):
                samples[i].append(t.timeit(number=args.number) / args.number * 1e9)
        medians = [statistics.median(s) for s in samples]
        mins = [min(s) for s in samples]
        letters = [v[0] for v in variants]
        d, d_s, e = letters.index("d"), letters.index("d_s"), letters.index("e")
        manual, manual_stable, custom = medians[d], medians[d_s], medians[e]
        for (letter, name, stmt), s, med, low in zip(variants, samples, medians, mins):
            record = rep.emit(
                "per_call", kernel=kernel, variant=letter, name=name, median_ns=round(med, 1),
                min_ns=round(low, 1), max_ns=round(max(s), 1), vs_manual=round(med / manual, 3),
                vs_manual_stable=round(med / manual_stable, 3),
                vs_custom_op=round(med / custom, 3), min_vs_manual=round(low / mins[d], 3),
                min_vs_custom_op=round(low / mins[e], 3), repeats=args.repeats, number=args.number,
                tensor="torch.ones(4), float32, CPU", threads=args.threads,
                command=f"timeit.Timer({stmt!r}).timeit(number={args.number})",
                goal_met=(med <= GOAL_VS_MANUAL * manual and med <= GOAL_VS_CUSTOM_OP * custom)
                if letter in "abc" else None)
            summary.append(record)

    log("")
    log(f"per-call overhead, median of {args.repeats} rounds x {args.number} calls, torch.ones(4) on CPU "
        f"(goal for a/b/c: <= {GOAL_VS_MANUAL}x (d) and <= 1/3 of (e))")
    log(table(["kernel", "", "variant", "median ns", "vs (d)", "vs (d_s)", "vs (e)", "min ns", "min vs (d)",
               "goal (median)"],
              [[r["kernel"], r["variant"], r["name"], f"{r['median_ns']:.0f}", f"{r['vs_manual']:.2f}x",
                f"{r['vs_manual_stable']:.2f}x",
                f"{r['vs_custom_op']:.2f}x", f"{r['min_ns']:.0f}", f"{r['min_vs_manual']:.2f}x",
                "" if r["goal_met"] is None else ("met" if r["goal_met"] else "NOT met")] for r in summary]))
    log(f"loadavg at start: {rep.machine['loadavg_1min_at_start']}, now: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
