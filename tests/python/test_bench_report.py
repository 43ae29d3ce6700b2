"""bench/report.py: the kernel tables in docs/benchmarks.md are what the
script makes of the JSON lines kept beside them (docs/bench-data), so a
number on the page is a number a device call returned."""

import importlib.util
import json
from pathlib import Path

import pytest

SOURCE_DIR = Path(__file__).resolve().parents[2]
DATA = sorted((SOURCE_DIR / "docs" / "bench-data").glob("*.jsonl"))


def report():
    spec = importlib.util.spec_from_file_location("bench_report", SOURCE_DIR / "bench" / "report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_recorded_runs():
    assert DATA, "docs/bench-data holds no JSON lines"


@pytest.mark.parametrize("path", DATA, ids=lambda p: p.name)
def test_the_page_shows_each_run_as_the_script_makes_it(path):
    header, rows = report().load(str(path))
    table = report().table(header, rows)
    body = table.split("\n", 2)[2]  # the Markdown table, below the device line
    assert body.count("\n") + 1 == len(rows) + 2  # head, rule, one line per record
    assert body in (SOURCE_DIR / "docs" / "benchmarks.md").read_text(), f"docs/benchmarks.md lacks {path.name}'s table"


def test_a_row_says_what_it_measured(tmp_path):
    path = tmp_path / "run.jsonl"
    records = [{"device": "GPU", "torch": "2.11", "copy_GBps": 4000.0},
               {"kernel": "k[variant]", "dtype": "bfloat16", "shape": "2x8", "opgen_ms": 0.5, "opgen_ms_min": 0.4,
                "opgen_ms_max": 0.6, "opgen_GBps": 2000.0, "fraction_of_copy": 0.5, "eager_GBps": 1000.0,
                "compile_GBps": None, "liger_GBps": None, "speedup_vs_eager": 2.0, "speedup_vs_compile": None,
                "speedup_vs_liger": None}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    text = report().table(*report().load(str(path)))
    assert text.splitlines()[0] == "GPU, torch 2.11, copy bandwidth 4000 GB/s"
    assert "| k[variant] | bfloat16 | 2x8 | 0.5000 | 40.0% | 2000 | 50% | 1000 |  |  | 2.00 |  |  |" in text
