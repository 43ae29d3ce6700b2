#!/usr/bin/env bash
# The whole test suite: set-up, build, then every test (GoogleTest and
# pytest) through CTest, then a brief run of the fuzz targets.
#
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh --quick [REV]
#       the developer's loop on a built tree: the unit tests, the bad-spec
#       corpus, the generated suite, and the Python tests of what changed
#       since REV (default HEAD: the uncommitted changes); no packaging,
#       no fuzzing. CI runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cache-env.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${CTEST_JOBS:-2}

quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  base=${2:-HEAD}
fi

scripts/setup.sh
if [ -n "${CCACHE_DIR:-}" ]; then
  # What the compiler cache (scripts/cache-env.sh) saved in this run, printed
  # however it ends.
  ccache --zero-stats >/dev/null
  trap 'echo "ccache ($CCACHE_DIR), this run:"; ccache --show-stats' EXIT
fi
scripts/build.sh

if ((quick)); then
  # Always: what every change can break, and is quick.
  # GoogleTest's cases are Suite.Name, their suites capitalised.
  pattern='^([A-Z][A-Za-z0-9_]*\.|opgen_ops\.generated_|python\.test_bad_specs$)'
  # A changed file selects the Python tests that are it or name it: an op's
  # spec or kernel by the op's name (schemas/layer_norm.yaml, kernels/layer_norm.cu:
  # layer_norm), a Python module by its name, anything else by its file name
  # (scripts/cache-env.sh: cache-env.sh).
  changed=$({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  selected=()
  for file in $changed; do
    name=$(basename "$file")
    case $file in
      tests/python/test_*.py) selected+=("${name%.py}"); continue ;;
      schemas/*|kernels/*) word=${name%%.*} ;;
      *.py) word=${name%.py}; [ "$word" != __init__ ] || continue ;;
      *.md|*/CMakeLists.txt|CMakeLists.txt) continue ;;  # named by too many tests to say which read it
      *) word=$name ;;
    esac
    while read -r test; do selected+=("$(basename "$test" .py)"); done \
      < <(grep -lw -- "$word" tests/python/test_*.py || true)
  done
  if ((${#selected[@]})); then
    names=$(printf '%s\n' "${selected[@]}" | sort -u | paste -sd'|')
    pattern="$pattern|^python\\.($names)\$"
    echo "test.sh --quick: the tests of what changed since $base: ${names//|/ }"
  fi
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -R "$pattern" -LE packaging
else
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"

  # The libFuzzer targets of tests/fuzz/: a second, clang-built tree
  # (build-fuzz/, ASan + UBSan, no op library), whose fuzz.* tests run each
  # target deterministically: the committed corpus, the seeds, then a fixed
  # number of runs from a fixed seed. OPGEN_SKIP_FUZZ=1 leaves them out.
  if [ "${OPGEN_SKIP_FUZZ:-0}" != 1 ]; then
    scripts/fuzz.sh --build-only
    ctest --test-dir "${FUZZ_BUILD_DIR:-build-fuzz}" -L fuzz --output-on-failure -j "$JOBS"
  fi
fi

