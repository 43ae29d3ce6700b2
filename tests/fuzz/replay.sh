#!/usr/bin/env bash
# CI's fuzz tests: `replay.sh SCRATCH FUZZER ARGS...` empties SCRATCH, the
# directory libFuzzer adds new inputs to, then runs FUZZER. With the committed
# regression corpus, the seeds, -seed and -runs in ARGS, a commit runs the
# same inputs every time: CI never explores (scripts/fuzz.sh does).
set -euo pipefail
scratch=$1
shift
rm -rf "$scratch"
mkdir -p "$scratch"
exec "$@"
