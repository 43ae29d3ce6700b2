#!/usr/bin/env bash
# The whole test suite: set-up, build, then every test (GoogleTest and
# pytest) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${CTEST_JOBS:-2}"
