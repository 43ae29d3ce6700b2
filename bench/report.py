#!/usr/bin/env python3
"""Turns bench/kernels.py's JSON lines into what docs/benchmarks.md shows.

  python3 bench/report.py RUN.jsonl                 # a Markdown table, one row per (kernel, dtype, shape)
  python3 bench/report.py SWEEP.jsonl --plot F.svg  # also a plot: fraction of the copy bandwidth
                                                    # against the row length, one line per implementation

The table and the plot come from the JSON lines alone (never typed by hand),
so a rerun of the bench and of this script refreshes the page. The plot
needs matplotlib (bench/requirements.txt).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict


def load(path: str) -> tuple[dict, list[dict]]:
    header, rows = {}, []
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if "kernel" in record:
                rows.append(record)
            else:
                header = record
    return header, rows


def fmt(v, spec: str) -> str:
    return "" if v is None else format(v, spec)


def table(header: dict, rows: list[dict]) -> str:
    copy = header.get("copy_GBps")
    out = [f"{header.get('device', '?')}, torch {header.get('torch', '?')}, copy bandwidth {copy:.0f} GB/s"
           if copy else "", "",
           "| kernel | dtype | shape | opgen ms | spread | GB/s | of copy | eager GB/s | Inductor GB/s | Liger GB/s "
           "| x eager | x Inductor | x Liger |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        spread = (r["opgen_ms_max"] - r["opgen_ms_min"]) / r["opgen_ms"] if r.get("opgen_ms_min") is not None else None
        out.append(f"| {r['kernel']} | {r['dtype']} | {r['shape']} | {r['opgen_ms']:.4f} | {fmt(spread, '.1%')} "
                   f"| {r['opgen_GBps']:.0f} | {fmt(r.get('fraction_of_copy'), '.0%')} | {fmt(r.get('eager_GBps'), '.0f')} "
                   f"| {fmt(r.get('compile_GBps'), '.0f')} | {fmt(r.get('liger_GBps'), '.0f')} "
                   f"| {fmt(r.get('speedup_vs_eager'), '.2f')} | {fmt(r.get('speedup_vs_compile'), '.2f')} "
                   f"| {fmt(r.get('speedup_vs_liger'), '.2f')} |")
    return "\n".join(out)


def row_length(shape: str) -> int:
    """The reduced dimension: the last number of "8192x4096" or "4x16x256x2048"."""
    return int(shape.split("x")[-1])


def plot(header: dict, rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "opgen"  # stable element ids: the same input, the same bytes
    import matplotlib.pyplot as plt

    copy = header["copy_GBps"]
    # kernel (without a variant) -> implementation -> [(row length, fraction)]
    series: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        base, _, variant = r["kernel"].partition("[")
        rows_of = int(r["shape"].split("x")[0]) if r["shape"].count("x") == 1 else None
        if rows_of is not None and rows_of < 1024:
            continue  # decode-sized batches are latency, not bandwidth: in the table only
        n = row_length(r["shape"])
        impl = f"opgen [{variant.rstrip(']')}]" if variant else "opgen"
        series[base][impl].append((n, r["opgen_GBps"] / copy))
        if not variant:
            for key, name in (("compile_GBps", "Inductor"), ("liger_GBps", "Liger"), ("eager_GBps", "eager")):
                if r.get(key):
                    series[base][name].append((n, r[key] / copy))
    kernels = sorted(series)
    # One color per implementation on every panel.
    impls = sorted({impl for k in kernels for impl in series[k]})
    colors = {impl: f"C{i}" for i, impl in enumerate(impls)}
    fig, axes = plt.subplots(len(kernels), 1, figsize=(7, 3 * len(kernels)), squeeze=False)
    for ax, kernel in zip(axes[:, 0], kernels):
        for impl, points in sorted(series[kernel].items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=impl, color=colors[impl])
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{kernel} ({rows[0]['dtype']})")
        ax.set_xlabel("row length (elements)")
        ax.set_ylabel("fraction of copy bandwidth")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(f"{header.get('device')}, torch {header.get('torch')}, copy {copy:.0f} GB/s", fontsize="small")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    # No timestamp in the file: the same JSON lines give the same bytes.
    fig.savefig(path, metadata={"Date": None, "Creator": None})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("jsonl")
    parser.add_argument("--plot", metavar="SVG", help="also write the plot here")
    args = parser.parse_args(argv)
    header, rows = load(args.jsonl)
    print(table(header, rows))
    if args.plot:
        plot(header, rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
