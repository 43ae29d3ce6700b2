#!/usr/bin/env bash
# Installs everything opgen needs on a Debian 12 machine, from Debian's and
# PyPI's registries only. Idempotent, and quick when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and libclang-rt-14-dev (libFuzzer, ASan, UBSan) build the fuzz targets of tests/fuzz/;
# ccache caches every compile of the builds and the tests (scripts/cache-env.sh);
# libxxhash-dev hashes the inputs of `opgen generate` (header-only: no run-time dependency);
# libcpuinfo-dev is what FBGEMM's library, built by test_import_project_fbgemm, asks the CPU's features.
APT_PACKAGES=(cmake ninja-build ccache g++ clang libclang-rt-14-dev libyaml-cpp-dev libfmt-dev libgtest-dev libcli11-dev
              libxxhash-dev libcpuinfo-dev python3-pip)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
# Not `-q`: a quiet dry run leaves out the "Would install" line this looks for.
# The output is kept whole rather than piped to `grep -q`, which would cut pip off.
# A failed dry run falls through to the real install, which then says why.
if plan=$("$PYTHON" -m pip install --disable-pip-version-check -r requirements.txt --dry-run 2>&1) &&
   ! grep -q "^Would install" <<<"$plan"; then
  exit 0
fi
echo "setup: installing Python requirements"
"$PYTHON" -m pip install -q --disable-pip-version-check -r requirements.txt
