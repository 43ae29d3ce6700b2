#!/bin/bash
# torchvision's detection ops (torchvision/csrc/ops: nms, roi_align, roi_pool, ps_roi_align, ps_roi_pool,
# deform_conv2d and their backwards; one file of defs per op, the CPU, QuantizedCPU and Autograd kernels in
# anonymous namespaces beside their impl blocks) built twice from the same, unchanged kernel sources, as its CPU
# build (setup.py without CUDA) compiles them, against the torch of $VENV:
#   $OUT/project  - torchvision's own `_C`: csrc/*.cpp, ops/*.cpp, ops/autograd, ops/cpu, ops/quantized/cpu
#   $OUT/imported - what `opgen import` writes from those files, built with the lines its report prints: the def
#                   blocks it names deleted (in a copy of csrc/), the impl blocks kept (internal linkage), and the
#                   fakes the report asks for written (fakes.py beside this script: torchvision 0.14 has none);
#                   C++20, the standard opgen_add_library gives its target (torchvision's own build: C++17)
# Then, each side in its own process:
#   for s in project imported; do $VENV/bin/python scripts/torchvision_cpu/run_ops.py $s $OUT $OUT/$s.pt; done
#   $VENV/bin/python scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#
#   scripts/torchvision_cpu/build.sh <torchvision tree> [OUT=build-torchvision-cpu]
# The tree: torchvision's source (tested: 0.14.1, Debian's pytorch-vision_0.14.1.orig.tar.gz, which
# `apt-get source --download-only pytorch-vision` fetches with a deb-src line for bookworm); nothing in it is
# written. About 4 minutes on 2 cores (with ccache on the PATH, the second side's kernel objects are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <torchvision tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-torchvision-cpu}" && cd "${2:-$root/build-torchvision-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# setup.py's CPU sources.
SOURCES=$(cd "$T" && ls torchvision/csrc/*.cpp torchvision/csrc/ops/*.cpp torchvision/csrc/ops/autograd/*.cpp \
  torchvision/csrc/ops/cpu/*.cpp torchvision/csrc/ops/quantized/cpu/*.cpp)

# 1. The import.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" $SOURCES \
   > "$OUT/import.log")
grep -E "ops imported|need their fake|Python package|need a person|opgen_add_library|target_" "$OUT/import.log"

# 2. The project's side.
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(torchvision_cpu_project CXX)
include($root/cmake/Opgen.cmake)
_opgen_find_torch()
add_library(_C MODULE $(for s in $SOURCES; do echo -n " $T/$s"; done))
set_target_properties(_C PROPERTIES PREFIX "" CXX_STANDARD 17)
target_include_directories(_C PRIVATE $T/torchvision/csrc)
target_link_libraries(_C PRIVATE opgen_torch)
CM

# 3. The imported side: csrc/ copied, what the report says to delete deleted there; the fakes written; the
#    report's lines, its paths into the copy.
cp -r "$T/torchvision" "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" torchvision/
cp "$here/fakes.py" "$OUT/imported/python/_fakes.py"
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(torchvision_cpu_imported CXX)"
  echo "include($root/cmake/Opgen.cmake)"
  grep -oP '^ *\K(opgen_add_library|target_include_directories)\(.*\)$' "$OUT/import.log" \
    | sed "s# torchvision/# $OUT/imported/src/torchvision/#g"
} > "$OUT/imported/CMakeLists.txt"
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DPython3_EXECUTABLE="$PY" -DOPGEN_EXECUTABLE="$OPGEN" -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER > "$OUT/$side.configure.log" 2>&1 \
    || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side"
done
