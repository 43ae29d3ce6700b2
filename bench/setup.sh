#!/usr/bin/env bash
# Installs what the benchmarks need on top of scripts/setup.sh: Debian's
# hyperfine and bench/requirements.txt from PyPI. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v hyperfine >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq hyperfine
fi
"${PYTHON:-python3}" -m pip install -q --disable-pip-version-check -r bench/requirements.txt
