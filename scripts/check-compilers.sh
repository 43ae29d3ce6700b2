#!/usr/bin/env bash
# The compiler and sanitizer checks of the C++ side, run by hand (minutes;
# CI builds with g++ only):
#   1. the opgen tool and its whole GoogleTest suite built with clang, ASan
#      and UBSan (-DOPGEN_SANITIZE=ON) and run through CTest;
#   2. every generated binding TU of the in-tree library (generated/csrc/)
#      compiled with clang++ -Wall -Wextra -Werror, with the flags the g++
#      build (scripts/build.sh) uses for it.
#
#   scripts/check-compilers.sh          BUILD_DIR: the g++ build (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
SAN_DIR=${SAN_BUILD_DIR:-build-clang-asan}
BUILD_DIR=${BUILD_DIR:-build}

echo "== 1. clang + ASan + UBSan: the tool and its unit tests ($SAN_DIR)"
if [ ! -f "$SAN_DIR/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$SAN_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DOPGEN_SANITIZE=ON -DOPGEN_BUILD_LIBRARY=OFF >/dev/null
fi
cmake --build "$SAN_DIR"
# halt_on_error: a UBSan report fails the test instead of scrolling past.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir "$SAN_DIR" --output-on-failure -j "${CTEST_JOBS:-2}" | grep -v "^ *[0-9]*/[0-9]* Test"

echo "== 2. clang++ -Wall -Wextra -Werror: the generated bindings"
[ -f "$BUILD_DIR/compile_commands.json" ] || { echo "no $BUILD_DIR/compile_commands.json: scripts/build.sh first" >&2; exit 2; }
python3 - "$BUILD_DIR" <<'EOF'
import json, shlex, subprocess, sys, tempfile, os
build = sys.argv[1]
failed = checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        src = entry["file"]
        if "_generated/csrc/" not in src or not src.endswith(".cpp"):
            continue
        argv = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
        flags, skip = [], False
        for a in argv[1:]:
            if skip:
                skip = False
            elif a in ("-o", "-MT", "-MF"):
                skip = True
            elif a not in ("-c", "-MD", src):
                flags.append(a)
        cmd = ["clang++", *flags, "-Wall", "-Wextra", "-Werror", "-c", src, "-o", os.path.join(tmp, "x.o")]
        proc = subprocess.run(cmd, cwd=entry["directory"], capture_output=True, text=True)
        checked += 1
        if proc.returncode:
            failed += 1
            print(f"FAILED: {os.path.basename(src)}\n{proc.stderr}")
print(f"{checked} generated TUs compiled with clang++ -Werror, {failed} failed")
sys.exit(1 if failed or not checked else 0)
EOF
