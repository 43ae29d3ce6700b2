#!/usr/bin/env bash
# The CUDA half of opgen, proven on a GPU machine (docs/device-check.md).
#
#   scripts/device-check.sh --prepare          here: the bundle the device needs (build-device/bundle)
#   scripts/device-check.sh --run [STEPS]      on the device, results in $OUT
#   scripts/device-check.sh --rehearse         here, without a GPU: every step that can run
#
# The device machine has nvcc, torch, CMake, ninja, pytest and
# compute-sanitizer, but no yaml-cpp or fmt and no package registry. So
# --prepare builds, here, what travels there beside the tree (the device
# tool's `carry: ["build-device/bundle"]`):
#   bin/opgen   the tool, linked statically but for glibc (OPGEN_STATIC_DEPS);
#   stable/     the stable-ABI part of the in-tree library, CUDA kernels for
#               sm_90a included, built against this machine's torch: the
#               device runs it, unchanged, on its own torch (step `stable`).
#
# STEPS (comma-separated; default all; each `device run` call has 10 minutes,
# so run them over two or three calls, as docs/device-check.md shows):
#   build     the in-tree library for sm_90a against the device's torch,
#             with the carried tool (nothing of codegen/ is compiled there)
#   test      the op tests and the generated suite, CUDA samples and the
#             CUDA-vs-CPU tests included
#   stable    the carried stable-ABI library's generated suite on the
#             device's torch, without a rebuild
#   sanitize  the CUDA tests under compute-sanitizer memcheck, racecheck, synccheck
#   bench     bench/kernels.py: GB/s, the fraction of the measured copy
#             bandwidth, and the ratio to eager PyTorch and to Inductor
#
# Each step's log goes to $OUT/logs/<step>.log and its result to
# $OUT/summary-<steps>.json; bench also writes $OUT/bench.jsonl. The logs are
# packed into $OUT/logs.tar.gz at the end (a device run returns 8 files).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WORK=${DEVICE_CHECK_WORK:-$REPO/build-device}
BUNDLE=$WORK/bundle
ARCH=${DEVICE_CHECK_ARCH:-90a}
PYTHON=${PYTHON:-python3}
ALL_STEPS=build,test,stable,sanitize,bench

die() { echo "device-check: $*" >&2; exit 2; }

# ------------------------------------------------------------------ prepare

prepare() {
  local jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2} log=$WORK/prepare.log
  mkdir -p "$WORK" "$BUNDLE/bin"
  : >"$log"
  quiet() { "$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; die "failed: $* (log: $log)"; }; }
  echo "device-check: building the self-contained tool in $WORK/tool" >&2
  quiet cmake -S "$REPO" -B "$WORK/tool" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPGEN_BUILD_LIBRARY=OFF \
    -DOPGEN_BUILD_TESTS=OFF -DOPGEN_STATIC_DEPS=ON
  quiet cmake --build "$WORK/tool" --target opgen -j "$jobs"
  cp -f "$WORK/tool/codegen/opgen" "$BUNDLE/bin/opgen"
  local needed
  needed=$(readelf -d "$BUNDLE/bin/opgen" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  case " $needed" in
    *yaml* | *fmt* | *stdc++*) die "the tool still needs: $needed" ;;
  esac

  echo "device-check: building the stable-ABI part with sm_$ARCH kernels in $WORK/stable" >&2
  quiet cmake -S "$REPO/scripts/abi" -B "$WORK/stable" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPGEN_ABI=stable \
    -DOPGEN_EXECUTABLE="$BUNDLE/bin/opgen" -DOPGEN_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    -DPython3_EXECUTABLE="$(command -v "$PYTHON")"
  quiet cmake --build "$WORK/stable" -j "$jobs"
  rm -rf "$BUNDLE/stable"
  mkdir -p "$BUNDLE/stable/tests"
  cp -r "$WORK/stable/python" "$BUNDLE/stable/python"
  cp "$WORK/stable/opgen_stable_ops_generated/tests/test_opgen_ops_ops.py" "$BUNDLE/stable/tests/"
  "$PYTHON" -c "import torch; print(torch.__version__)" >"$BUNDLE/stable/built-with-torch.txt"
  du -sh "$BUNDLE" >&2
}

# ------------------------------------------------------------------ run

json_escape() { "$PYTHON" -c 'import json, sys; print(json.dumps(sys.stdin.read().strip()))'; }

RESULTS=()
# step NAME TIMEOUT_S COMMAND...: runs it, logging to $LOGS/NAME.log, and records ok, seconds, last line.
step() {
  local name=$1 limit=$2
  shift 2
  local log="$LOGS/$name.log" start rc
  start=$(date +%s)
  echo "device-check: $name ..." >&2
  timeout "$limit" "$@" >"$log" 2>&1
  rc=$?
  local seconds=$(($(date +%s) - start)) last
  last=$(grep -v '^\s*$' "$log" | tail -n 1 | json_escape)
  RESULTS+=("{\"step\": \"$name\", \"ok\": $([ $rc = 0 ] && echo true || echo false), \"rc\": $rc, \"seconds\": $seconds, \"last_line\": $last}")
  echo "device-check: $name: rc=$rc in ${seconds}s" >&2
  return $rc
}

# finish NAME MACHINE_JSON: $OUT/summary-NAME.json from the steps' results,
# the logs packed into $OUT/logs-NAME.tar.gz; prints the summary.
finish() {
  local joined
  joined=$(IFS=,; echo "${RESULTS[*]}")
  printf '{"steps": "%s", "machine": %s, "results": [%s]}\n' "$1" "$2" "$joined" >"$OUT/summary-$1.json"
  tar -czf "$OUT/logs-$1.tar.gz" -C "$OUT" logs && rm -rf "$LOGS"
  cat "$OUT/summary-$1.json"
}

DEV_BUILD=$WORK/device
CUDA_TESTS=(tests/python/test_ops_more.py -k cuda)
OP_TESTS=(tests/python/test_ops.py tests/python/test_ops_more.py tests/python/test_testing.py)

device_env() {
  export PYTHONPATH="$DEV_BUILD/python:$REPO/python"
}

# The in-tree library as the device builds it: the carried tool, so codegen/
# (and with it yaml-cpp and fmt) is never configured.
configure_device_build() {
  step configure 300 cmake -S "$REPO" -B "$DEV_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DOPGEN_EXECUTABLE="$BUNDLE/bin/opgen" -DOPGEN_BUILD_TESTS=OFF -DOPGEN_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DPython3_EXECUTABLE="$(command -v "$PYTHON")"
}

run_build() {
  configure_device_build || return 1
  step build 480 cmake --build "$DEV_BUILD" -j "$(nproc)"
}

run_test() {
  device_env
  step test 480 "$PYTHON" -m pytest -q -p no:cacheprovider -rs "${OP_TESTS[@]}" \
    "$DEV_BUILD/opgen_ops_generated/tests/test_opgen_ops_ops.py" --junitxml="$LOGS/test.xml"
}

run_stable() {
  export PYTHONPATH="$BUNDLE/stable/python:$REPO/python"
  step stable 300 "$PYTHON" -m pytest -q -p no:cacheprovider -rs "$BUNDLE/stable/tests/test_opgen_ops_ops.py"
}

run_sanitize() {
  device_env
  # No caching allocator: an out-of-bounds access inside a cached block is
  # otherwise invisible to memcheck.
  local tool
  for tool in memcheck racecheck synccheck; do
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 step "sanitize-$tool" 420 compute-sanitizer --tool "$tool" \
      --error-exitcode 99 --target-processes all "$PYTHON" -m pytest -q -p no:cacheprovider -x "${CUDA_TESTS[@]}"
  done
}

run_bench() {
  device_env
  step bench 540 "$PYTHON" bench/kernels.py --json-out "$OUT/bench.jsonl"
}

run() {
  local steps=${1:-$ALL_STEPS}
  : "${OUT:?device-check: --run writes to \$OUT}"
  [ -x "$BUNDLE/bin/opgen" ] || die "no $BUNDLE/bin/opgen: run --prepare here and carry build-device/bundle"
  if [ "${DEVICE_CHECK_ALLOW_NO_GPU:-0}" != 1 ] &&
    ! "$PYTHON" -c "import sys, torch; sys.exit(not torch.cuda.is_available())"; then
    die "torch sees no CUDA device here (--rehearse is the run for a machine without one)"
  fi
  LOGS=$OUT/logs
  mkdir -p "$LOGS"
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    "$PYTHON" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" 2>&1
    nvcc --version 2>&1 | tail -n 1
    command -v compute-sanitizer || echo "no compute-sanitizer"
    echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown); bundle built with torch $(cat "$BUNDLE/stable/built-with-torch.txt")"
  } >"$LOGS/machine.log"
  local s failed=0
  for s in ${steps//,/ }; do
    case $s in
      build) run_build || failed=1 ;;
      test) run_test || failed=1 ;;
      stable) run_stable || failed=1 ;;
      sanitize) run_sanitize || failed=1 ;;
      bench) run_bench || failed=1 ;;
      *) die "unknown step '$s' (steps: $ALL_STEPS)" ;;
    esac
  done
  finish "${steps//,/-}" "$(json_escape <"$LOGS/machine.log")"
  return $failed
}

# ------------------------------------------------------------------ rehearse

# Here, without a GPU: the bundle is prepared; the device-side build
# configures with the carried tool alone (codegen/ is not configured, so
# yaml-cpp and fmt are never looked for) and compiles the generated sources,
# a C++ and a CUDA kernel for sm_90a; the CUDA tests are collected (and
# skip); the step runner, summary and packing work.
rehearse() {
  prepare
  OUT=${OUT:-$WORK/rehearsal-out}
  rm -rf "$OUT"
  LOGS=$OUT/logs
  mkdir -p "$LOGS"
  local failed=0
  configure_device_build || failed=1
  if grep -q "yaml-cpp_DIR\|fmt_DIR" "$DEV_BUILD/CMakeCache.txt"; then
    echo "device-check: the device build looked for yaml-cpp or fmt" >&2
    failed=1
  fi
  step compile-sample 480 cmake --build "$DEV_BUILD" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" --target \
    opgen_ops_python CMakeFiles/opgen_ops.dir/opgen_ops_generated/csrc/rms_norm.cpp.o \
    CMakeFiles/opgen_ops.dir/kernels/rms_norm.cpp.o CMakeFiles/opgen_ops.dir/kernels/rms_norm.cu.o || failed=1
  # The CUDA tests, collected against the CTest tree's package (the
  # rehearsal does not link the device build).
  export PYTHONPATH="${OPGEN_BUILD_DIR:-$REPO/build}/python:$REPO/python"
  step collect-cuda 300 "$PYTHON" -m pytest -q -p no:cacheprovider --collect-only "${CUDA_TESTS[@]}" || failed=1
  local collected
  collected=$(grep -Eo '^[0-9]+(/[0-9]+)? tests? (collected|selected)' "$LOGS/collect-cuda.log" | head -n 1)
  echo "device-check: CUDA tests: ${collected:-none found}" >&2
  case $collected in "" | 0*) failed=1 ;; esac
  finish rehearsal null
  return $failed
}

case ${1:-} in
  --prepare) prepare ;;
  --run) run "${2:-}" ;;
  --rehearse) rehearse ;;
  *) sed -n '2,32p' "$0" >&2; exit 2 ;;
esac
