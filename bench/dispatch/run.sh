#!/usr/bin/env bash
# Builds bench/dispatch's libraries (Release, CPU only, against a prebuilt
# opgen) and runs the per-call benchmark; arguments go to bench.py.
#
#   OPGEN=build/codegen/opgen BUILD=bench/dispatch/build bench/dispatch/run.sh [--repeats 51 --number 10000]
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
OPGEN=$(realpath "${OPGEN:-build/codegen/opgen}")
BUILD=${BUILD:-bench/dispatch/build}
[ -x "$OPGEN" ] || { echo "run.sh: no opgen at $OPGEN: build it (scripts/build.sh) or set OPGEN" >&2; exit 2; }
PYBIND11_DIR=$("$PYTHON" -m pybind11 --cmakedir) || { echo "run.sh: pip install -r bench/requirements.txt" >&2; exit 2; }
cmake -S bench/dispatch -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DOPGEN_EXECUTABLE="$OPGEN" -DOPGEN_ENABLE_CUDA=OFF -Dpybind11_DIR="$PYBIND11_DIR" \
  -DPYBIND11_FINDPYTHON=ON -DPython_EXECUTABLE="$(command -v "$PYTHON")" \
  -DPython3_EXECUTABLE="$(command -v "$PYTHON")" >&2
ninja -C "$BUILD" -j "${JOBS:-2}" >&2
exec "$PYTHON" bench/dispatch/bench.py --build "$BUILD" "$@"
