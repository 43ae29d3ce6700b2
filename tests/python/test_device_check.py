"""scripts/device-check.sh --rehearse: the GPU check, run here without a GPU and
against the device's own torch (2.11.0), so that it is known to work before a
device machine is lent.

The rehearsal runs as a fresh clone would: no OPGEN_BUILD_DIR, no OUT, no
DEVICE_CHECK_* variables, from another directory. It prepares the bundle
that travels to the device as --prepare does (the stable-ABI library built
against this machine's torch, the whole library against torch 2.11.0 from a
cached venv), with two differences: CPU kernels only (the project's own
build compiles every CUDA kernel, --prepare compiles them for the device),
and the project's own tool where scripts/build.sh made one (--prepare builds
a self-contained one; test_tool_wheel checks that link). Then it runs every
device step through the same code with its CPU half: the op tests and the
generated suite on torch 2.11.0 (CUDA cases skip), the carried stable
library's suite, the symm_mem tests, the CUDA tests collected for the
sanitizers, the benchmarks' CPU smoke mode. Its work directory is the
checkout's build-device/, so later runs are incremental.
"""

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SCRIPT = SOURCE_DIR / "scripts" / "device-check.sh"
WORK = SOURCE_DIR / "build-device"
sys.path.insert(0, str(SOURCE_DIR / "scripts"))
import device_check  # noqa: E402


def fresh_env(**extra) -> dict:
    """The environment of a fresh clone: nothing of CTest's or a device run's."""
    drop = ("OUT", "PYTHONPATH", "OPGEN_BUILD_DIR", "OPGEN_SOURCE_DIR", "OPGEN_BIN")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("DEVICE_CHECK_")}
    return {**env, **extra}


def run_script(*args, env=None, cwd="/"):
    return subprocess.run([SCRIPT, *args], env=env or fresh_env(), capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def rehearsal():
    proc = run_script("--rehearse")
    summary_path = WORK / "rehearsal-out" / "summary-rehearsal.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    return proc, summary


def test_the_rehearsal_passes_every_step(rehearsal):
    proc, summary = rehearsal
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-6000:]
    steps = {r["step"]: r for r in summary["results"]}
    assert list(steps) == ["preflight", *device_check.STEPS], list(steps)
    assert all(r["ok"] for r in steps.values()), summary
    assert summary["done"] and summary["mode"] == "rehearsal"
    # Against the device's torch, not this machine's.
    assert summary["checks"]["torch"]["value"].startswith(device_check.DEVICE_TORCH + "+"), summary["checks"]
    assert summary["bundle"]["device_built_with_torch"].startswith(device_check.DEVICE_TORCH + "+")
    # The CPU half ran, and the CUDA half is there, waiting: collected and skipped.
    test = steps["test"]["counts"]
    assert test["passed"] > 100 and test["skipped"] > 20 and "failed" not in test, test
    assert steps["symm-mem"]["counts"]["passed"] >= 5, steps["symm-mem"]
    collected = re.search(r"(\d+)(?:/\d+)? tests? (?:collected|selected)", steps["memcheck"]["last_line"])
    assert collected and int(collected[1]) >= 20, steps["memcheck"]
    with tarfile.open(WORK / "rehearsal-out" / "logs-rehearsal.tar.gz") as logs:
        names = set(logs.getnames())
    assert {f"logs/{s}.log" for s in ["preflight", *device_check.STEPS]} <= names, names


def test_the_generated_suite_has_cuda_cases(rehearsal):
    """Every op with a CUDA kernel has a CUDA sample, so opcheck, compile, fake vs real
    and autograd run on the device; here those cases skip."""
    suite = (WORK / "bundle" / "device" / "tests" / "test_opgen_ops_ops.py").read_text()
    makers = re.findall(r"^def _make_(\w+)_\d+\(d\):\n    return (.*)$", suite, re.M)
    on_cuda = {op for op, body in makers if '"cuda"' in body}
    cuda_ops = {p.stem for p in (SOURCE_DIR / "schemas").glob("*.yaml")
                if re.search(r"^dispatch:.*CUDA", p.read_text(), re.M) and "samples: []" not in p.read_text()}
    assert cuda_ops and cuda_ops == on_cuda, (cuda_ops ^ on_cuda)
    log = (WORK / "logs-rehearsal" / "test.log").read_text()
    assert "this sample needs a CUDA device" in log


def test_the_bundle_needs_nothing_the_device_lacks(rehearsal):
    bundle = WORK / "bundle"
    manifest = json.loads((bundle / "manifest.json").read_text())
    dynamic = subprocess.run(["readelf", "-d", bundle / "bin" / "opgen"], capture_output=True, text=True).stdout
    needed = {line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line}
    if manifest["tool_self_contained"]:
        assert needed and all(n.startswith(("libc.so", "libm.so", "ld-linux")) for n in needed), needed
    else:
        # The project's own tool (scripts/build.sh's), which a rehearsal reuses: it runs here, and
        # the preflight of a device run refuses the bundle. Its self-contained link is
        # test_tool_wheel's to check, and --prepare's.
        assert (SOURCE_DIR / "build" / "build.ninja").is_file()
        assert subprocess.run([bundle / "bin" / "opgen", "--version"], capture_output=True).returncode == 0
    # The glibc the tool needs is measured and checked by the preflight; the self-contained
    # tool's is what the docs say.
    assert manifest["glibc_needed"] == device_check.glibc_needed(bundle / "bin" / "opgen")
    if manifest["tool_self_contained"]:
        assert f"glibc {manifest['glibc_needed']}" in (SOURCE_DIR / "docs" / "device-check.md").read_text()
    assert re.fullmatch(r"[0-9a-f]{40}", manifest["commit"]), manifest
    # A rehearsal's libraries are CPU-only (the project's own build compiles every CUDA kernel,
    # --prepare compiles them for the device), and say so: the device's preflight refuses them.
    sections = subprocess.run(["readelf", "-S", "-W", bundle / "device/python/opgen_ops/libopgen_ops.so"],
                              capture_output=True, text=True).stdout
    assert sections and ".nv_fatbin" not in sections
    assert manifest["stable_has_cuda"] is False and manifest["device_has_cuda"] is False
    assert (bundle / "stable/python/opgen_ops/libopgen_stable_ops.so").is_file()
    assert (bundle / "stable/tests/test_opgen_ops_ops.py").is_file()
    assert (bundle / "device/tests/test_opgen_ops_ops.py").is_file()
    # It must travel: the device tool carries at most 64 MiB with the tree.
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    assert size < 40 << 20, size
    # The device-side configuration never looked for the tool's Debian dependencies.
    cache = (WORK / "device" / "CMakeCache.txt").read_text()
    assert "yaml-cpp_DIR" not in cache and "fmt_DIR" not in cache
    assert "OPGEN_ENABLE_CUDA:BOOL=OFF" in cache


def test_a_step_past_the_budget_is_killed_and_the_rest_say_why(tmp_path, monkeypatch):
    """Each step gets what is left of the call's budget; one that outlives it is killed
    (timeout -k), the steps it leaves no time for are skipped with the reason, and the
    summary and logs are on disk after each step."""
    monkeypatch.setattr(device_check, "WORK", tmp_path / "work")
    monkeypatch.setattr(device_check, "RESERVE_S", 2)
    monkeypatch.setattr(device_check, "MIN_STEP_S", 3)
    monkeypatch.setattr(device_check, "KILL_GRACE_S", 2)
    run = device_check.Run(["slow", "next"], sys.executable, tmp_path / "out", budget_s=8, rehearsal=True)
    # A child that ignores SIGTERM too: the kill must reach it.
    slow = ["bash", "-c", "trap '' TERM; sleep 60 & wait; sleep 60"]
    assert not run.execute("slow", 300, slow)
    summary = json.loads((tmp_path / "out" / "summary-rehearsal.json").read_text())
    assert not summary["done"]
    slow_result = summary["results"][-1]
    assert slow_result["timed_out"] and slow_result["rc"] in (124, 137), slow_result
    assert slow_result["limit_s"] <= 8 - 2 and slow_result["seconds"] < 8 + 2 + 3, slow_result
    assert not run.execute("next", 300, ["true"])
    assert run.results[-1] == {"step": "next", "ok": False, "skipped": True,
                               "reason": f"{int(run.left())} s left of the call's 8 s budget"}, run.results[-1]
    with tarfile.open(tmp_path / "out" / "logs-rehearsal.tar.gz") as logs:
        assert "logs/slow.log" in logs.getnames()


def test_without_a_gpu_run_fails_and_says_why(rehearsal, tmp_path):
    """--run is for the device: here preflight fails on the GPU, every step says so, and
    the summary is still written."""
    proc = run_script("--run", "test", env=fresh_env(OUT=str(tmp_path)))
    assert proc.returncode == 1
    summary = json.loads((tmp_path / "summary-test.json").read_text())
    assert not summary["checks"]["gpu"]["ok"]
    assert summary["results"][-1] == {"step": "test", "ok": False, "skipped": True, "reason": "preflight: gpu failed"}
    assert "--rehearse is the run for a machine without one" in proc.stderr


def test_without_nvcc_nothing_is_built_for_the_cpu_alone(rehearsal, tmp_path):
    """A missing CUDA compiler is a failure, never a CPU-only build."""
    path = ":".join(p for p in os.environ["PATH"].split(":") if not (Path(p) / "nvcc").exists())
    env = fresh_env(OUT=str(tmp_path), PATH=path, CUDACXX=str(tmp_path / "no-nvcc"))
    proc = run_script("--run", "build", env=env)
    assert proc.returncode == 1
    summary = json.loads((tmp_path / "summary-build.json").read_text())
    assert not summary["checks"]["nvcc"]["ok"]
    assert summary["results"][-1]["skipped"] and "nvcc" in summary["results"][-1]["reason"]


def test_the_plan_fits_the_device(rehearsal):
    """Every call's budget ends well inside the 600 s a device command gets; the first call
    (the checks), a machine start included, leaves room for a rerun inside the 15 min a
    session has on the device, and the whole plan fits those 15 min."""
    per_call = [budget + device_check.KILL_GRACE_S + device_check.MACHINE_START_S for _, budget in device_check.PLAN]
    assert device_check.DEFAULT_BUDGET_S + device_check.KILL_GRACE_S <= 480
    assert all(budget + device_check.KILL_GRACE_S <= 480 for _, budget in device_check.PLAN)
    assert sorted(s for call, _ in device_check.PLAN for s in call.split(",")) == sorted(device_check.STEPS)
    assert device_check.DEVICE_TIME_S == 15 * 60
    assert per_call[0] <= device_check.DEVICE_TIME_S - 240
    assert sum(per_call) <= device_check.DEVICE_TIME_S
    plan = subprocess.run([SCRIPT, "--plan"], capture_output=True, text=True, check=True).stdout
    doc = (SOURCE_DIR / "docs" / "device-check.md").read_text()
    for call, budget in device_check.PLAN:
        assert f"scripts/device-check.sh --run {call} --budget {budget}" in plan, call
        assert f"--run {call} --budget {budget}" in doc, call
