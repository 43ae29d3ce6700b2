#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan) in
# build-fuzz/ and runs each in turn, on one core, for SECONDS (default 600),
# printing execs/s and total execs. New inputs accumulate in
# build-fuzz/tests/fuzz/corpus/<target>/, crashes in .../artifacts/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   TARGET: schema, expr, spec, import (default: all)
#   scripts/fuzz.sh --build-only            configure and build only (scripts/test.sh)
#
# Reproduce a crash with build-fuzz/tests/fuzz/fuzz_<target> <artifact>.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cache-env.sh
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DOPGEN_FUZZ=ON -DOPGEN_BUILD_LIBRARY=OFF
fi
cmake --build "$BUILD_DIR" --target opgen_fuzzers
[ "${1:-}" = --build-only ] && exit 0

seconds=${1:-600}
shift $(($# > 0 ? 1 : 0))
targets=("$@")
((${#targets[@]})) || targets=(schema expr spec import)
dir=$BUILD_DIR/tests/fuzz
status=0
for target in "${targets[@]}"; do
  log=$dir/fuzz_$target.log
  start=$SECONDS
  set -x
  if ! "$dir/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
         -dict="tests/fuzz/$target.dict" -artifact_prefix="$dir/artifacts/$target-" \
         "$dir/corpus/$target" "tests/fuzz/corpus/$target" "$dir/seeds/$target" >"$log" 2>&1; then
    { set +x; } 2>/dev/null
    status=1
    echo "fuzz_$target: FAILED; the report is in $log:"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|fuzz_$target:|artifact_prefix)" "$log" || tail -20 "$log"
  fi
  { set +x; } 2>/dev/null
  stat() { sed -n "s/^stat::$1: *//p" "$log"; }
  printf 'fuzz_%s: %s s, %s execs, %s execs/s, %s new units, peak RSS %s MB, corpus %s files\n' \
    "$target" "$((SECONDS - start))" "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" \
    "$(stat new_units_added)" "$(stat peak_rss_mb)" "$(find "$dir/corpus/$target" -type f | wc -l)"
done
exit $status
