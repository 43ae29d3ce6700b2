#!/bin/bash
# torch_scatter's ops (csrc/: scatter, segment_coo, segment_csr, version; registered through c10's legacy
# `torch::RegisterOperators().op("torch_scatter::name", &fn)`, schemas inferred from the C++ signatures, each
# kernel a catch-all one that runs a torch::autograd::Function over the CPU kernels) built twice from the same,
# unchanged sources, as its CPU build (setup.py without CUDA) compiles them, against the torch of $VENV:
#   $OUT/project  - torch_scatter's own four extensions, `_scatter_cpu`, `_segment_coo_cpu`, `_segment_csr_cpu`,
#                   `_version_cpu`: csrc/<name>.cpp with csrc/cpu/<name>_cpu.cpp, `-DWITH_PYTHON`, OpenMP
#   $OUT/imported - what `opgen import` writes from those files, built with the lines its report prints: the
#                   RegisterOperators statements it names deleted (in a copy of csrc/), the files kept for the
#                   kernels they define; C++20, the standard opgen_add_library gives its target (torch_scatter's
#                   own: C++17)
# Then, each side in its own process:
#   for s in project imported; do $VENV/bin/python scripts/torch_scatter_cpu/run_ops.py $s $OUT $OUT/$s.pt; done
#   $VENV/bin/python scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#
#   scripts/torch_scatter_cpu/build.sh <pytorch_scatter tree> [OUT=build-torch-scatter-cpu]
# The tree: rusty1s/pytorch_scatter (tested: 648dda3, 2.1.2; `fetch github:rusty1s/pytorch_scatter`); nothing in
# it is written. About 4 minutes on 2 cores (with ccache on the PATH, the second side's kernel objects are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <pytorch_scatter tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-torch-scatter-cpu}" && cd "${2:-$root/build-torch-scatter-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
NAMES="scatter segment_coo segment_csr version"
# setup.py's flags for a CPU build with OpenMP (torch's parallel backend), on both sides.
FLAGS="-Wno-sign-compare -DAT_PARALLEL_OPENMP -fopenmp"

# 1. The import: the four main files and the CPU kernels beside them.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" \
   --python-package torch_scatter_ops $(for n in $NAMES; do echo csrc/$n.cpp; done) csrc/cpu > "$OUT/import.log")
grep -E "ops imported|need their fake|need a person|opgen_add_library|target_" "$OUT/import.log"

# 2. The project's side: one extension per main file, as setup.py makes them.
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(torch_scatter_cpu_project CXX)"
  echo "include($root/cmake/Opgen.cmake)"
  echo "_opgen_find_torch()"
  echo "find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)"
  for n in $NAMES; do
    cpu=$([ -f "$T/csrc/cpu/${n}_cpu.cpp" ] && echo "$T/csrc/cpu/${n}_cpu.cpp" || true)
    echo "add_library(_${n}_cpu MODULE $T/csrc/$n.cpp $cpu)"
    echo "set_target_properties(_${n}_cpu PROPERTIES PREFIX \"\" CXX_STANDARD 17)"
    echo "target_compile_definitions(_${n}_cpu PRIVATE WITH_PYTHON)"
    echo "target_include_directories(_${n}_cpu PRIVATE $T/csrc)"
    echo "target_link_libraries(_${n}_cpu PRIVATE opgen_torch Python3::Module)"
  done
} > "$OUT/project/CMakeLists.txt"

# 3. The imported side: csrc/ copied, what the report says to delete deleted there; the report's lines, its paths
#    into the copy.
cp -r "$T/csrc" "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" csrc/
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(torch_scatter_cpu_imported CXX)"
  echo "include($root/cmake/Opgen.cmake)"
  grep -oP '^ *\K(opgen_add_library|target_include_directories)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#([ (])csrc(/|\))#\1$OUT/imported/src/csrc\2#g"
} > "$OUT/imported/CMakeLists.txt"
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" -DPython3_EXECUTABLE="$PY" -DOPGEN_EXECUTABLE="$OPGEN" \
    -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER > "$OUT/$side.configure.log" 2>&1 \
    || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  start=$SECONDS
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side ($((SECONDS - start)) s)"
done
