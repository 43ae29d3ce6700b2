#!/usr/bin/env bash
# The whole test suite: set-up, build, then every test (GoogleTest and
# pytest) through CTest, then a brief run of the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${CTEST_JOBS:-2}"

# The libFuzzer targets of tests/fuzz/: a second, clang-built tree
# (build-fuzz/, ASan + UBSan, no op library), whose fuzz.* tests run each
# target deterministically: the committed corpus, the seeds, then a fixed
# number of runs from a fixed seed. OPGEN_SKIP_FUZZ=1 leaves them out.
if [ "${OPGEN_SKIP_FUZZ:-0}" != 1 ]; then
  scripts/fuzz.sh --build-only
  ctest --test-dir "${FUZZ_BUILD_DIR:-build-fuzz}" -L fuzz --output-on-failure -j "${CTEST_JOBS:-2}"
fi
