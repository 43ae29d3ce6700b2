"""scripts/device-check.sh --rehearse: the GPU check, run here without a GPU,
so that it is known to work before a device machine is lent.

The rehearsal prepares the bundle that travels to the device (the tool,
linked statically but for glibc; the stable-ABI library with sm_90a
kernels), configures the device-side build with that tool alone, compiles
the generated sources and a C++ and a CUDA kernel, and collects the CUDA
tests. Its work directory lives in the CTest tree, so later runs are
incremental. About 4 min on 2 cores the first time.
"""

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("OPGEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = os.environ.get("OPGEN_BUILD_DIR")

pytestmark = pytest.mark.skipif(not BUILD_DIR, reason="run through CTest (OPGEN_BUILD_DIR)")


@pytest.fixture(scope="module")
def rehearsal():
    work = Path(BUILD_DIR) / "device-check"
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    env.update(DEVICE_CHECK_WORK=str(work), CMAKE_BUILD_PARALLEL_LEVEL=env.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
    proc = subprocess.run([SOURCE_DIR / "scripts" / "device-check.sh", "--rehearse"], env=env, capture_output=True,
                          text=True, cwd=SOURCE_DIR)
    return work, proc


def test_the_rehearsal_passes_every_step(rehearsal):
    work, proc = rehearsal
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    summary = json.loads((work / "rehearsal-out" / "summary-rehearsal.json").read_text())
    steps = {r["step"]: r for r in summary["results"]}
    assert list(steps) == ["configure", "compile-sample", "collect-cuda"]
    assert all(r["ok"] for r in steps.values()), summary
    assert "CUDA tests: " in proc.stderr and "none found" not in proc.stderr, proc.stderr
    with tarfile.open(work / "rehearsal-out" / "logs-rehearsal.tar.gz") as logs:
        assert {"logs/configure.log", "logs/compile-sample.log", "logs/collect-cuda.log"} <= set(logs.getnames())


def test_the_bundle_needs_nothing_the_device_lacks(rehearsal):
    work, _ = rehearsal
    bundle = work / "bundle"
    dynamic = subprocess.run(["readelf", "-d", bundle / "bin" / "opgen"], capture_output=True, text=True).stdout
    needed = {line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line}
    assert needed and all(n.startswith(("libc.so", "libm.so", "ld-linux")) for n in needed), needed
    # The stable-ABI library with its CUDA kernels, its Python half and its generated suite.
    library = bundle / "stable" / "python" / "opgen_ops" / "libopgen_stable_ops.so"
    sections = subprocess.run(["readelf", "-S", "-W", library], capture_output=True, text=True).stdout
    assert ".nv_fatbin" in sections
    assert (bundle / "stable" / "tests" / "test_opgen_ops_ops.py").is_file()
    # It must travel: the device tool carries at most 64 MiB.
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    assert size < 48 << 20, size
    # The device-side configuration never looked for the tool's Debian dependencies.
    cache = (work / "device" / "CMakeCache.txt").read_text()
    assert "yaml-cpp_DIR" not in cache and "fmt_DIR" not in cache
