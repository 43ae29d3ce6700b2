"""Shared helpers of the benchmarks: machine facts, JSON lines, tables, hyperfine.

Every measurement is printed as one JSON object per line on stdout, carrying
the machine it ran on and the exact command; progress and the human-readable
table go to stderr, so `python bench/x.py > results.jsonl` keeps only the data.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

REPO = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_revision() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_info() -> dict[str, Any]:
    """What the numbers depend on: CPU, cores, OS, Python, torch, the repo revision."""
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "torch": torch_version,
        "opgen_revision": _git_revision(),
        "loadavg_1min_at_start": round(load, 2) if load is not None else None,
    }


def command_line() -> str:
    """The bench script's own command line, as it was run."""
    return shlex.join([Path(sys.executable).name, *sys.argv])


class Reporter:
    """Prints one JSON object per measurement and keeps rows for the final table."""

    def __init__(self, bench: str, json_out: str | None = None):
        self.bench = bench
        self.machine = machine_info()
        self.invocation = command_line()
        self.rows: list[dict[str, Any]] = []
        self._file = open(json_out, "a") if json_out else None

    def emit(self, measurement: str, **fields: Any) -> dict[str, Any]:
        record = {"bench": self.bench, "measurement": measurement, **fields,
                  "machine": self.machine, "invocation": self.invocation}
        line = json.dumps(record, sort_keys=False)
        print(line, flush=True)
        if self._file:
            print(line, file=self._file, flush=True)
        self.rows.append(record)
        return record


def log(*args: Any) -> None:
    print(*args, file=sys.stderr, flush=True)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-markdown table (readable in a terminal, pasteable into docs)."""
    rows = [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    fmt = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    lines = [fmt(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += [fmt(r) for r in rows]
    return "\n".join(lines)


def hyperfine(command: Sequence[str], *, runs: int | None = None, warmup: int = 0,
              prepare: Sequence[str] | None = None, min_runs: int | None = None) -> dict[str, Any]:
    """Times `command` with hyperfine (Debian's `hyperfine` package), no shell in between.

    Returns hyperfine's result object (mean, stddev, median, min, max, times
    in seconds) plus the exact hyperfine command line under "hyperfine_command".
    """
    exe = shutil.which("hyperfine")
    if not exe:
        sys.exit("bench: hyperfine is not installed (apt-get install hyperfine)")
    with tempfile.TemporaryDirectory() as tmp:
        export = os.path.join(tmp, "result.json")
        argv = [exe, "--shell=none", "--style=none", "--export-json", export, "--warmup", str(warmup)]
        if runs is not None:
            argv += ["--runs", str(runs)]
        if min_runs is not None:
            argv += ["--min-runs", str(min_runs)]
        if prepare:
            argv += ["--prepare", shlex.join(prepare)]
        argv.append(shlex.join(command))
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit(f"bench: hyperfine failed:\n{proc.stderr}")
        with open(export) as f:
            result = json.load(f)["results"][0]
    shown = [a if a != export else "RESULT.json" for a in argv]
    shown[0] = "hyperfine"
    result["hyperfine_command"] = shlex.join(shown)
    return result
