#!/usr/bin/env python3
"""The CUDA half of opgen, proven on a GPU machine (docs/device-check.md).

  scripts/device-check.sh --prepare        here: build-device/bundle, what travels to the device
  scripts/device-check.sh --run STEPS      on the device; results in $OUT
  scripts/device-check.sh --rehearse       here, without a GPU: --prepare, then every step's
                                           CPU half against the device's torch
  scripts/device-check.sh --plan           the device calls to make, in order, with their budgets

The device (docs/device-check.md) runs torch 2.11.0+cu130, which is PyPI's
torch==2.11.0, on Python 3.12, with nvcc, CMake, ninja, pytest and
compute-sanitizer but no yaml-cpp, fmt or package registry. It gives a
command 600 s, a session 15 min of device time (starts and idle waits
included), and forgets everything 30 s after a call. So:

- --prepare builds, here, what travels in `carry: ["build-device/bundle"]`:
  bin/opgen (the tool, linked statically but for glibc), stable/ (the
  stable-ABI part built against this machine's torch, run unchanged on the
  device's), device/ (the whole in-tree library built against the device's
  own torch, a venv with torch==2.11.0 cached in ~/.cache/opgen), and
  manifest.json (commit, glibc the tool needs, torch versions).
- --run STEPS has a budget (--budget, default 450 s): each step gets at most
  its own limit and what is left, runs under `timeout -k`, and the summary
  and logs are written to $OUT after every step, so a killed call still
  returns what it did. Every call is self-sufficient: a step that needs the
  library uses this machine's build, else the carried one when it was built
  for this torch, else builds it first.
- --rehearse runs the same steps through the same code, here, on torch
  2.11.0: the builds are real (every kernel, CUDA included, for sm_90a), the
  tests run their CPU half (CUDA cases skip), the sanitizer steps collect
  the CUDA tests, bench runs its CPU smoke mode.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import wheel_cache
from wheel_cache import cache_dir

REPO = Path(__file__).resolve().parent.parent
DEVICE_TORCH = "2.11.0"  # the device's torch (2.11.0+cu130 = PyPI torch==2.11.0)
ARCH = os.environ.get("DEVICE_CHECK_ARCH", "90a")
WORK = Path(os.environ.get("DEVICE_CHECK_WORK") or REPO / "build-device").resolve()
BUNDLE = WORK / "bundle"
DEVICE_BUILD = WORK / "device"  # the in-tree library as the device builds it
KILL_GRACE_S = 10  # timeout -k: SIGKILL this long after SIGTERM
RESERVE_S = 20  # kept back from the budget for the kill grace and the last summary
MIN_STEP_S = 30  # a step that would get less is skipped, and says so

OP_TESTS = ["tests/python/test_ops.py", "tests/python/test_ops_more.py", "tests/python/test_testing.py"]
# What the sanitizers run: every test that launches one of opgen's CUDA kernels.
CUDA_TESTS = ["tests/python/test_ops_more.py", "-k", "cuda"]


def cuda_tests(narrow: str | None) -> list[str]:
    return [*CUDA_TESTS[:-1], f"cuda and ({narrow})"] if narrow else CUDA_TESTS


# ------------------------------------------------------------------ the plan

@dataclass
class Step:
    name: str
    limit_s: int  # on the device; a step never gets more than what is left of the call's budget
    needs: tuple[str, ...]  # preflight checks that must have passed
    what: str


STEPS = {s.name: s for s in [
    Step("build", 300, ("tool", "nvcc", "cmake", "torch"),
         "configure and build the in-tree library (sm_90a, -lineinfo) against this machine's torch with the carried tool"),
    Step("test", 300, ("torch",), "test_ops, test_ops_more (CUDA vs CPU), test_testing and the generated suite (CUDA samples)"),
    Step("stable", 180, ("torch", "bundle"), "the carried stable-ABI library's generated suite, on this torch, not rebuilt"),
    Step("symm-mem", 240, ("torch",), "test_symm_mem.py: one GPU, world size 1, the bounded wait's trap"),
    Step("memcheck", 300, ("torch", "compute-sanitizer"), "the CUDA tests under compute-sanitizer --tool memcheck"),
    Step("racecheck", 300, ("torch", "compute-sanitizer"), "the CUDA tests under compute-sanitizer --tool racecheck"),
    Step("synccheck", 240, ("torch", "compute-sanitizer"), "the CUDA tests under compute-sanitizer --tool synccheck"),
    Step("bench", 300, ("torch",), "bench/kernels.py: GB/s, fraction of the copy bandwidth, ratio to eager, Inductor "
         "and Liger, each kernel's variants beside it"),
    Step("sweep", 300, ("torch",), "bench/kernels.py --sweep (bfloat16): the norm kernels over hidden 1K-16K and decode batches, the softmax over rows of 128-8192"),
]}
DEFAULT_BUDGET_S = 450
# The device calls, in order, with their budgets. A session gets 15 min of
# device time, machine starts and idle waits included, and a machine goes back
# 30 s after a call. On an H200 (2026-11-27, 1269 op tests) the steps took:
# test 110 s, memcheck 60, racecheck 83, synccheck 62 (247 CUDA tests), bench
# 88+ (with variants and Liger), the sweep 67 (bfloat16); on 2026-11-26 stable
# 27, symm-mem 38, the build with 16 cores 43. That no longer fits one call:
# the first checks (tests and sanitizers), the second measures (bench, sweep)
# and builds on the device, last, where a slow build costs no number. The
# first call leaves room for a rerun of failed steps (--tests, --kernels
# narrow it); both together take the session's 15 minutes at worst.
PLAN = [
    ("test,memcheck,racecheck,synccheck,stable,symm-mem", 400),
    ("bench,sweep,build", 240),
]
# Peers the bench compares with, carried as wheels unpacked into the bundle
# (pure Python: the device has no registry). Liger runs on the device's Triton.
PEERS = ["liger-kernel==0.8.5"]
DEVICE_TIME_S = 15 * 60  # what a session may spend on the device, starts included
MACHINE_START_S = 120  # a machine start, at worst


def print_plan() -> None:
    print("Device calls, in order (each: carry=[\"build-device/bundle\"], timeout_s = budget + 30):")
    for i, (steps, budget) in enumerate(PLAN, 1):
        limits = " + ".join(f"{s} {STEPS[s].limit_s}" for s in steps.split(","))
        print(f"  {i}. scripts/device-check.sh --run {steps} --budget {budget}    (step limits {limits})")
    total = sum(budget + KILL_GRACE_S + MACHINE_START_S for _, budget in PLAN)
    print(f"At most {total} s with a machine start per call, of the {DEVICE_TIME_S} s a session has on the device; "
          "rerun only the failed steps (--tests EXPR, --kernels NAMES) with what is left after the first.")
    print("Steps:")
    for s in STEPS.values():
        print(f"  {s.name:<10} {s.limit_s:>4} s  {s.what}")


# ------------------------------------------------------------------ helpers

def log(msg: str) -> None:
    print(f"device-check: {msg}", file=sys.stderr, flush=True)


def die(msg: str) -> None:
    log(msg)
    sys.exit(2)


def capture(cmd: list, **kw) -> tuple[int, str]:
    try:
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, str(e)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def quiet(cmd: list, logfile: Path, **kw) -> None:
    """Runs a preparation command, its output appended to logfile; dies with the log's tail on failure."""
    with open(logfile, "a") as f:
        f.write(f"$ {' '.join(map(str, cmd))}\n")
        f.flush()
        rc = subprocess.run([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT, **kw).returncode
    if rc:
        tail = "\n".join(logfile.read_text(errors="replace").splitlines()[-40:])
        die(f"failed ({rc}): {' '.join(map(str, cmd))}\n{tail}\n(log: {logfile})")


def find_tool(name: str, env_var: str | None = None, beside: Path | None = None) -> Path | None:
    """A CUDA tool: $env_var, the PATH, beside another tool, then CUDA's usual homes."""
    if env_var and os.environ.get(env_var):
        return Path(os.environ[env_var])
    if found := shutil.which(name):
        return Path(found)
    candidates = [beside / name] if beside else []
    candidates += [Path("/usr/local/cuda/bin") / name, Path("/usr/local/cuda/compute-sanitizer") / name]
    candidates += sorted(Path("/usr/local").glob(f"cuda-*/bin/{name}"), reverse=True)
    candidates += sorted(Path("/opt/nvidia").glob(f"*/{name}"), reverse=True)
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def glibc_needed(binary: Path) -> str | None:
    """The newest GLIBC_x.y symbol version the binary asks for."""
    rc, out = capture(["objdump", "-T", binary])
    versions = {tuple(map(int, v)) for v in re.findall(r"GLIBC_(\d+)\.(\d+)", out)} if rc == 0 else set()
    return ".".join(map(str, max(versions))) if versions else None


def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


# What the preflight asks the torch it tests, as the last line of output.
TORCH_PROBE = """import json, sys, torch
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "python": sys.version.split()[0], "gpu": gpu}))"""


def torch_version(python: Path | str) -> str | None:
    rc, out = capture([python, "-c", "import torch; print(torch.__version__)"])
    return out.splitlines()[-1] if rc == 0 and out else None


def git_commit() -> dict:
    rc, head = capture(["git", "-C", REPO, "rev-parse", "HEAD"])
    if rc:
        return {"commit": "unknown (no git)", "dirty": None}
    _, status = capture(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])
    return {"commit": head, "dirty": bool(status)}


def device_torch_python(version: str = DEVICE_TORCH) -> Path:
    """Here: a venv with the device's torch from PyPI, made once and kept in the cache (about 1 min).
    Its wheels are kept in the cache too (scripts/wheel_cache.py): a venv made
    again installs offline.

    --system-site-packages shares pytest and the rest, so only torch and the
    CUDA wheels it needs are installed."""
    venv = cache_dir() / f"venv-torch-{version}"
    python = venv / "bin" / "python"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"venv-torch-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two rehearsals at once share one venv
        if (torch_version(python) or "").split("+")[0] == version:
            return python
        log(f"making {venv} with torch=={version} from PyPI (once; about a minute)")
        logfile = venv.parent / f"venv-torch-{version}.log"
        logfile.write_text("")
        quiet([sys.executable, "-m", "venv", "--clear", "--system-site-packages", venv], logfile)
        if wheel_cache.install(python, [f"torch=={version}"], logfile):
            die(f"pip could not install torch=={version} into {venv} (log: {logfile})")
        if (torch_version(python) or "").split("+")[0] != version:
            die(f"{venv} does not import torch {version} (log: {logfile})")
    return python


def cmake_cuda_args(nvcc: Path, python: Path | str) -> list[str]:
    # OPGEN_REQUIRE_CUDA: a missing CUDA compiler fails the configure instead of
    # quietly building the CPU kernels alone. -lineinfo: the sanitizers name
    # the kernel's source line.
    return ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DOPGEN_ENABLE_CUDA=ON", "-DOPGEN_REQUIRE_CUDA=ON",
            f"-DCMAKE_CUDA_COMPILER={nvcc}", f"-DCMAKE_CUDA_ARCHITECTURES={ARCH}", "-DCMAKE_CUDA_FLAGS=-lineinfo",
            f"-DPython3_EXECUTABLE={python}"]


def cmake_cpu_args(python: Path | str) -> list[str]:
    return ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DOPGEN_ENABLE_CUDA=OFF", "-DOPGEN_REQUIRE_CUDA=OFF",
            f"-DPython3_EXECUTABLE={python}"]


def device_build_commands(python: Path | str, nvcc: Path | None, jobs: int) -> list[list[str]]:
    """The in-tree library as the device builds it: the carried tool, so codegen/
    (and with it yaml-cpp and fmt) is never configured. Without nvcc (a
    rehearsal), its CPU kernels alone."""
    args = cmake_cuda_args(nvcc, python) if nvcc else cmake_cpu_args(python)
    configure = ["cmake", "-S", str(REPO), "-B", str(DEVICE_BUILD), *args,
                 f"-DOPGEN_EXECUTABLE={BUNDLE / 'bin' / 'opgen'}", "-DOPGEN_BUILD_TESTS=OFF"]
    return [configure, ["cmake", "--build", str(DEVICE_BUILD), "-j", str(jobs)]]


# ------------------------------------------------------------------ prepare

def bundle_peers(logfile: Path) -> list[str]:
    """The bench's peers (PEERS), unpacked into the bundle's peers/ for the
    device's PYTHONPATH. Their wheels are downloaded once into the cache; a
    peer that cannot be had is left out with a note (the bench then has no
    column for it), never a failed prepare."""
    target = BUNDLE / "peers"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    got = []
    for spec in PEERS:
        found = wheel_cache.download_one(spec, logfile, sys.executable)
        if not found:
            log(f"peer {spec} left out: pip download failed (log: {logfile})")
            continue
        with zipfile.ZipFile(found[-1]) as wheel:
            wheel.extractall(target)
        got.append(spec)
    return got


def prepare(rehearsal: bool = False) -> Path:
    """Builds the bundle; returns the device torch's python (here).

    A rehearsal builds both libraries without their CUDA kernels: it runs only
    their CPU halves, the project's own build compiles every kernel (against
    this machine's torch), and --prepare compiles them for sm_90a against the
    device's torch before any device run. Compiling them here too would
    double the rehearsal's time in CI."""
    jobs = int(os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or 2)
    logfile = WORK / "prepare.log"
    (BUNDLE / "bin").mkdir(parents=True, exist_ok=True)
    logfile.write_text("")
    nvcc = None if rehearsal else find_tool("nvcc", "CUDACXX")
    if not nvcc and not rehearsal:
        die("no nvcc (CUDACXX, the PATH, /usr/local/cuda/bin): the bundle's kernels cannot be compiled")
    python = device_torch_python()

    tool = BUNDLE / "bin" / "opgen"
    project_build = REPO / "build"  # scripts/build.sh's
    self_contained = not (rehearsal and (project_build / "build.ninja").is_file())
    if self_contained:
        log(f"building the self-contained tool in {WORK / 'tool'}")
        quiet(["cmake", "-S", REPO, "-B", WORK / "tool", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
               "-DOPGEN_BUILD_LIBRARY=OFF", "-DOPGEN_BUILD_TESTS=OFF", "-DOPGEN_STATIC_DEPS=ON"], logfile)
        quiet(["cmake", "--build", WORK / "tool", "--target", "opgen", "-j", jobs], logfile)
        shutil.copy2(WORK / "tool" / "codegen" / "opgen", tool)
        _, dynamic = capture(["readelf", "-d", tool])
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
        if any(re.match(r"lib(yaml|fmt|stdc\+\+)", n) for n in needed):
            die(f"the tool still needs: {' '.join(needed)}")
    else:
        # A rehearsal runs here, where the project's own tool runs too: it is
        # brought up to date and used, rather than compiling the self-contained
        # one a second time (13 min of CI's CPU). The self-contained link is
        # what the tool's wheel gets (test_tool_wheel checks it) and what
        # --prepare builds and checks.
        log(f"using the project's own tool, up to date, from {project_build}")
        quiet(["cmake", "--build", project_build, "--target", "opgen", "-j", jobs], logfile)
        # Without its debug information (RelWithDebInfo: 30 MiB of the bundle's 40).
        quiet(["objcopy", "--strip-debug", project_build / "codegen" / "opgen", tool], logfile)

    stable_args = cmake_cpu_args(sys.executable) if rehearsal else cmake_cuda_args(nvcc, sys.executable)
    log(f"building the stable-ABI part, {'CPU kernels only (a rehearsal)' if rehearsal else f'sm_{ARCH} kernels'}, "
        f"against this machine's torch in {WORK / 'stable'}")
    quiet(["cmake", "-S", REPO / "scripts" / "abi", "-B", WORK / "stable", "-DOPGEN_ABI=stable",
           *stable_args, f"-DOPGEN_EXECUTABLE={tool}"], logfile)
    quiet(["cmake", "--build", WORK / "stable", "-j", jobs], logfile)
    stable = BUNDLE / "stable"
    shutil.rmtree(stable, ignore_errors=True)
    (stable / "tests").mkdir(parents=True)
    shutil.copytree(WORK / "stable" / "python", stable / "python")
    shutil.copy2(WORK / "stable" / "opgen_stable_ops_generated" / "tests" / "test_opgen_ops_ops.py", stable / "tests")

    log(f"building the whole library, {'CPU kernels only (a rehearsal)' if rehearsal else f'sm_{ARCH} kernels'}, "
        f"against torch {DEVICE_TORCH} in {DEVICE_BUILD}")
    for cmd in device_build_commands(python, nvcc, jobs):
        quiet(cmd, logfile)
    device = BUNDLE / "device"
    shutil.rmtree(device, ignore_errors=True)
    (device / "tests").mkdir(parents=True)
    shutil.copytree(DEVICE_BUILD / "python", device / "python")
    shutil.copy2(DEVICE_BUILD / "opgen_ops_generated" / "tests" / "test_opgen_ops_ops.py", device / "tests")

    peers = [] if rehearsal else bundle_peers(logfile)

    _, tool_version = capture([tool, "--version"])
    manifest = {
        **git_commit(),
        "tool_version": tool_version,
        "glibc_needed": glibc_needed(tool),
        "tool_self_contained": self_contained,
        "arch": f"sm_{ARCH}",
        "stable_built_with_torch": torch_version(sys.executable),
        "stable_has_cuda": not rehearsal,
        "device_has_cuda": not rehearsal,
        "device_built_with_torch": torch_version(python),
        "peers": peers,
    }
    (BUNDLE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    size = sum(f.stat().st_size for f in BUNDLE.rglob("*") if f.is_file())
    log(f"bundle: {BUNDLE} ({size / 2**20:.1f} MiB): {json.dumps(manifest)}")
    return python


# ------------------------------------------------------------------ run

@dataclass
class Run:
    """One call: its steps, its budget, and what it writes to $OUT after every step."""
    steps: list[str]
    python: str
    out: Path
    budget_s: float
    rehearsal: bool
    tests: str | None = None  # pytest -k for the test and sanitizer steps
    kernels: list = field(default_factory=list)  # bench --only
    start: float = field(default_factory=time.monotonic)
    checks: dict = field(default_factory=dict)
    results: list = field(default_factory=list)

    def __post_init__(self):
        self.tag = "rehearsal" if self.rehearsal else "-".join(self.steps)
        self.logs = WORK / f"logs-{self.tag}"
        shutil.rmtree(self.logs, ignore_errors=True)
        self.logs.mkdir(parents=True)
        self.out.mkdir(parents=True, exist_ok=True)
        self.manifest = json.loads((BUNDLE / "manifest.json").read_text()) if (BUNDLE / "manifest.json").is_file() else None

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.start)

    def write_summary(self, done: bool) -> None:
        """After every step: the summary and the logs so far, so a killed call still returns them."""
        summary = {"steps": ",".join(self.steps), "mode": "rehearsal" if self.rehearsal else "run",
                   "done": done, "budget_s": self.budget_s if self.budget_s != float("inf") else None, "elapsed_s": round(time.monotonic() - self.start, 1),
                   "bundle": self.manifest, "checks": self.checks, "results": self.results}
        path = self.out / f"summary-{self.tag}.json"
        path.with_suffix(".tmp").write_text(json.dumps(summary, indent=1) + "\n")
        path.with_suffix(".tmp").replace(path)
        with tarfile.open(self.out / f"logs-{self.tag}.tar.gz.tmp", "w:gz") as tar:
            tar.add(self.logs, arcname="logs")
        (self.out / f"logs-{self.tag}.tar.gz.tmp").replace(self.out / f"logs-{self.tag}.tar.gz")

    def record(self, result: dict) -> None:
        self.results.append(result)
        state = "ok" if result["ok"] else ("skipped" if result.get("skipped") else "FAILED")
        log(f"{result['step']}: {state} in {result.get('seconds', 0)} s"
            + (f" ({result['reason']})" if result.get("reason") else "")
            + (f": {result['last_line']}" if result.get("last_line") else ""))
        self.write_summary(done=False)

    def skip(self, name: str, reason: str) -> bool:
        self.record({"step": name, "ok": False, "skipped": True, "reason": reason})
        return False

    def execute(self, name: str, limit_s: int, cmd: list, env: dict | None = None) -> bool:
        """Runs cmd under `timeout -k`, capped to what is left of the budget; logs to logs/<name>.log."""
        cap = int(min(limit_s, self.left() - RESERVE_S))
        if cap < MIN_STEP_S:
            return self.skip(name, f"{max(0, int(self.left()))} s left of the call's {self.budget_s:.0f} s budget")
        logfile = self.logs / f"{name}.log"
        began = time.monotonic()
        log(f"{name}: up to {cap} s: {' '.join(map(str, cmd))[:300]}")
        with open(logfile, "a") as f:
            f.write(f"$ {' '.join(map(str, cmd))}\n")
            f.flush()
            proc = subprocess.Popen(["timeout", "-k", str(KILL_GRACE_S), str(cap), *map(str, cmd)], stdout=f,
                                    stderr=subprocess.STDOUT, cwd=REPO, env={**os.environ, **(env or {})},
                                    start_new_session=True)
            try:
                rc = proc.wait(timeout=cap + KILL_GRACE_S + 5)
            except subprocess.TimeoutExpired:  # timeout itself stuck: the whole session goes
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
        if rc < 0:  # killed by a signal, as a shell would say it (timeout's KILL takes timeout along)
            rc = 128 - rc
        text = logfile.read_text(errors="replace")
        lines = [line for line in text.splitlines() if line.strip()]
        result = {"step": name, "ok": rc == 0, "rc": rc, "seconds": round(time.monotonic() - began, 1),
                  "limit_s": cap, "timed_out": rc in (124, 137), "last_line": lines[-1][:400] if lines else ""}
        if m := re.search(r"^=*\s*(.*\b(passed|failed|skipped|errors?|no tests ran)\b.*) in [\d.]+s", text, re.M):
            result["counts"] = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)", m.group(1))}
        self.record(result)
        return rc == 0

    # -------------------------------------------------------------- preflight

    def preflight(self) -> bool:
        """Each check printed and recorded; a step whose checks failed is skipped, and says which."""
        lines = []

        def check(name: str, ok: bool, value: str, required: bool = True) -> None:
            self.checks[name] = {"ok": ok, "value": value, "required": required}
            lines.append(f"{'ok  ' if ok else ('FAIL' if required else 'note')} {name}: {value}")

        check("commit", True, json.dumps(self.manifest and {k: self.manifest[k] for k in ("commit", "dirty")}
                                         or git_commit()))
        libc = os.confstr("CS_GNU_LIBC_VERSION") or "unknown"
        needed = self.manifest and self.manifest.get("glibc_needed")
        tool = BUNDLE / "bin" / "opgen"
        if not self.manifest or not tool.is_file():
            check("tool", False, f"no {tool} or manifest: run --prepare here and carry build-device/bundle")
        else:
            glibc_ok = bool(needed) and version_tuple(libc) >= version_tuple(needed)
            check("glibc", glibc_ok, f"{libc}; the carried tool needs {needed}")
            rc, out = capture([tool, "--version"])
            check("tool", glibc_ok and rc == 0 and out == self.manifest["tool_version"],
                  f"{out.splitlines()[-1] if out else ''} (rc {rc}; bundle says {self.manifest['tool_version']})")
        nvcc = find_tool("nvcc", "CUDACXX")
        rc, out = capture([nvcc, "--version"]) if nvcc else (1, "not found (CUDACXX, PATH, /usr/local/cuda/bin)")
        check("nvcc", rc == 0, f"{nvcc}: {out.splitlines()[-1] if out else ''}")
        self.nvcc = nvcc
        sanitizer = find_tool("compute-sanitizer", None, nvcc.parent if nvcc else None)
        rc, out = capture([sanitizer, "--version"]) if sanitizer else (1, "not found (PATH, beside nvcc, /usr/local/cuda)")
        # A rehearsal's sanitizer steps only collect the tests: the sanitizer may be missing here.
        check("compute-sanitizer", rc == 0, f"{sanitizer}: {' '.join(out.splitlines()[-1:])}",
              required=not self.rehearsal)
        self.sanitizer = sanitizer
        for tool_name in ("cmake", "ninja", "timeout"):
            rc, out = capture([tool_name, "--version"])
            check(tool_name, rc == 0, out.splitlines()[0] if out else "not found")
        try:
            proc = subprocess.run([self.python, "-c", TORCH_PROBE], capture_output=True, text=True, timeout=300)
            probe = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
            failure = proc.stderr.strip()[-300:]
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
            probe, failure = None, str(e)
        check("torch", probe is not None,
              f"{probe['torch']} (CUDA {probe['cuda']}, Python {probe['python']})" if probe else failure)
        self.torch = probe and probe["torch"]
        gpu = (probe or {}).get("gpu")
        rc, smi = capture(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
        if self.rehearsal:
            check("gpu", bool(gpu), gpu or f"none (a rehearsal; nvidia-smi: {smi.splitlines()[-1] if smi else 'absent'})",
                  required=False)
        else:
            check("gpu", bool(gpu), f"{gpu or 'torch sees no CUDA device'}; nvidia-smi: {smi}")
        if self.manifest and not self.rehearsal:
            # A rehearsal's bundle has CPU-only libraries and may have a tool that
            # needs this machine's libraries: not what the device must run.
            prepared = all(self.manifest.get(k, True) is not False
                           for k in ("stable_has_cuda", "device_has_cuda", "tool_self_contained"))
            check("bundle", prepared, "made by --prepare" if prepared else
                  "made by --rehearse (CPU-only libraries, this machine's tool): run --prepare and carry that")
        if self.manifest:
            check("carried library", True, "built with torch " + str(self.manifest.get("device_built_with_torch"))
                  + ("; usable here" if self.manifest.get("device_built_with_torch") == self.torch else
                     "; not this torch: steps that need it build it first"), required=False)
        (self.logs / "preflight.log").write_text("\n".join(lines) + "\n")
        for line in lines:
            log(f"preflight: {line}")
        failed = [n for n, c in self.checks.items() if c["required"] and not c["ok"]]
        self.results.append({"step": "preflight", "ok": not failed, "seconds": round(time.monotonic() - self.start, 1),
                             "last_line": "failed: " + ", ".join(failed) if failed else "all checks passed"})
        self.write_summary(done=False)
        return not failed

    def failed_checks(self, step: Step) -> list[str]:
        """The checks this step needs that failed (a rehearsal needs no GPU and no sanitizer;
        it makes no "bundle" check)."""
        return [n for n in (*step.needs, "gpu") if (n not in self.checks and not (self.rehearsal and n == "bundle"))
                or (n in self.checks and self.checks[n]["required"] and not self.checks[n]["ok"])]

    # -------------------------------------------------------------- steps

    def library(self) -> tuple[Path, Path] | None:
        """(site dir, generated suite) of the in-tree library: this machine's build, else the
        carried one if it was built for this torch, else a build now (step build-needed)."""
        built = DEVICE_BUILD / "python" / "opgen_ops" / "libopgen_ops.so"
        if built.is_file():
            return DEVICE_BUILD / "python", DEVICE_BUILD / "opgen_ops_generated" / "tests" / "test_opgen_ops_ops.py"
        if self.manifest and self.manifest.get("device_built_with_torch") == self.torch:
            return BUNDLE / "device" / "python", BUNDLE / "device" / "tests" / "test_opgen_ops_ops.py"
        missing = self.failed_checks(STEPS["build"])
        if missing:
            self.skip("build-needed", f"no library for torch {self.torch} and no build: {', '.join(missing)} failed")
            return None
        if not self.build("build-needed"):
            return None
        return self.library()

    def build(self, name: str = "build") -> bool:
        jobs = os.cpu_count() or 2
        if self.rehearsal:
            jobs = int(os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or 2)
        # A rehearsal's build is the CPU-only one --rehearse prepared (its kernels: see prepare).
        configure, build = device_build_commands(self.python, None if self.rehearsal else self.nvcc, jobs)
        shell = f"{_quote(configure)} && {_quote(build)}"
        return self.execute(name, STEPS["build"].limit_s, ["bash", "-c", shell])

    def pytest(self, name: str, args: list, site: Path, env: dict | None = None, prefix: list | None = None) -> bool:
        cmd = [*(prefix or []), self.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *args]
        return self.execute(name, self.limit(name), cmd, {"PYTHONPATH": f"{site}:{REPO / 'python'}", **(env or {})})

    def limit(self, name: str) -> int:
        # Here two cores do what sixteen do there: the rehearsal's limits are looser.
        return STEPS[name].limit_s * (3 if self.rehearsal else 1)

    def run_step(self, name: str) -> bool:
        step = STEPS[name]
        if missing := self.failed_checks(step):
            return self.skip(name, f"preflight: {', '.join(missing)} failed")
        if name == "build":
            return self.build()
        if name == "stable":
            return self.pytest(name, [BUNDLE / "stable" / "tests" / "test_opgen_ops_ops.py"], BUNDLE / "stable" / "python")
        lib = self.library()
        if lib is None:
            return self.skip(name, "no library (see build-needed)")
        site, suite = lib
        narrow = ["-k", self.tests] if self.tests else []
        if name == "test":
            return self.pytest(name, [*OP_TESTS, suite, *narrow], site)
        if name == "symm-mem":
            return self.pytest(name, ["tests/python/test_symm_mem.py"], site)
        if name in ("memcheck", "racecheck", "synccheck"):
            if self.rehearsal:  # no GPU for the sanitizer: the tests it would run are collected
                return self.pytest(name, ["--collect-only", *cuda_tests(self.tests)], site)
            # No caching allocator: an out-of-bounds access inside a cached block is otherwise invisible.
            prefix = [self.sanitizer, "--tool", name, "--error-exitcode", "99", "--target-processes", "all"]
            return self.pytest(name, cuda_tests(self.tests), site, {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}, prefix)
        if name in ("bench", "sweep"):
            args = ["--smoke", "cpu"] if self.rehearsal else ["--json-out", self.out / f"{name}.jsonl"]
            if name == "sweep":  # bfloat16 alone: one Inductor compile per shape and kernel
                args += ["--sweep", "--dtype", "bfloat16"]
            for kernel in self.kernels:
                args += ["--only", kernel]
            peers = BUNDLE / "peers"
            path = f"{site}:{REPO / 'python'}" + (f":{peers}" if peers.is_dir() else "")
            return self.execute(name, self.limit(name), [self.python, "bench/kernels.py", *args], {"PYTHONPATH": path})
        raise AssertionError(name)

    def go(self) -> bool:
        log(f"{self.tag}: budget {self.budget_s:.0f} s, results in {self.out}")
        try:
            self.preflight()
            if not self.rehearsal and not self.checks["gpu"]["ok"]:
                log("no GPU here: --rehearse is the run for a machine without one")
            for name in self.steps:
                self.run_step(name)
        except Exception as e:  # the driver's own fault: still leave the summary
            self.results.append({"step": "device-check", "ok": False, "reason": f"{type(e).__name__}: {e}"})
            raise
        finally:
            self.write_summary(done=True)
        ok = all(r["ok"] for r in self.results)
        log(f"{self.tag}: {'all steps passed' if ok else 'FAILED: ' + ', '.join(r['step'] for r in self.results if not r['ok'])}"
            f"; {self.out / f'summary-{self.tag}.json'}")
        return ok


def _quote(cmd: list) -> str:
    return " ".join(shlex.quote(str(c)) for c in cmd)


def parse_steps(text: str) -> list[str]:
    steps = [s for s in text.split(",") if s] if text else list(STEPS)
    if unknown := [s for s in steps if s not in STEPS]:
        die(f"unknown step(s) {', '.join(unknown)} (steps: {', '.join(STEPS)})")
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--prepare", action="store_true")
    mode.add_argument("--run", metavar="STEPS", nargs="?", const="", help=f"comma-separated, of: {', '.join(STEPS)}")
    mode.add_argument("--rehearse", metavar="STEPS", nargs="?", const="",
                      help="--prepare, then these steps' CPU half (default: all) against the device's torch")
    mode.add_argument("--plan", action="store_true")
    parser.add_argument("--tests", metavar="EXPR", help="--run: only the tests pytest -k EXPR selects, in the test "
                        "and sanitizer steps (a second call that reruns what changed)")
    parser.add_argument("--kernels", metavar="NAMES", help="--run: only these bench kernels (comma-separated)")
    parser.add_argument("--budget", type=float, help="seconds the steps may take in all (--run: default "
                        f"{DEFAULT_BUDGET_S}, since the device kills a command at 600; --rehearse: no limit)")
    args = parser.parse_args()
    if args.plan:
        print_plan()
        return 0
    if args.prepare:
        prepare()
        return 0
    if args.rehearse is not None:
        steps = parse_steps(args.rehearse)
        python = prepare(rehearsal=True)
        out = Path(os.environ.get("OUT") or WORK / "rehearsal-out")
        shutil.rmtree(out, ignore_errors=True)
        run = Run(steps, str(python), out, budget_s=args.budget or float("inf"), rehearsal=True)
        return 0 if run.go() else 1
    if not os.environ.get("OUT"):
        die("--run writes to $OUT")
    run = Run(parse_steps(args.run), os.environ.get("PYTHON") or sys.executable, Path(os.environ["OUT"]),
              budget_s=args.budget or DEFAULT_BUDGET_S, rehearsal=False, tests=args.tests,
              kernels=args.kernels.split(",") if args.kernels else [])
    return 0 if run.go() else 1


if __name__ == "__main__":
    sys.exit(main())
