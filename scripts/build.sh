#!/usr/bin/env bash
# Configures and builds opgen, the in-tree op library and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cache-env.sh
BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@"
fi
cmake --build "$BUILD_DIR"
