#!/usr/bin/env bash
# The main job: set-up, generate and build, then call several ops from
# Python, eagerly and under torch.compile(fullgraph=True), checked against
# PyTorch references.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
PYTHONPATH="${BUILD_DIR:-build}/python" python3 scripts/demo.py
