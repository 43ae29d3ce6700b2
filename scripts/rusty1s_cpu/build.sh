#!/bin/bash
# The PyG family's extensions by rusty1s, torch_scatter, torch_sparse and torch_cluster: ops registered through
# c10's legacy `torch::RegisterOperators().op("<package>::name", &fn)`, schemas inferred from the C++ signatures
# (Dict(str, Tensor) and (str, str, str)[] among torch_sparse's), each kernel a catch-all one that runs a
# torch::autograd::Function or a dispatch over CPU kernels, one file per op family (csrc/<name>.cpp) beside its
# kernels (csrc/cpu/<name>_cpu.cpp). Each built twice from the same, unchanged sources, as its CPU build (setup.py
# without CUDA) compiles them, against the torch of $VENV:
#   $OUT/project  - the package's own extensions, one per csrc/<name>.cpp with csrc/cpu/<name>_cpu.cpp
#                   (`_scatter_cpu`, `_segment_coo_cpu`...), `-DWITH_PYTHON`, OpenMP, C++17
#   $OUT/imported - what `opgen import` writes from those files, built with the lines its report prints: the
#                   RegisterOperators statements it names deleted (in a copy of csrc/), the files kept for the
#                   kernels they define; C++20, the standard opgen_add_library gives its target
# Then, each side in its own process:
#   for s in project imported; do $VENV/bin/python scripts/rusty1s_cpu/run_<package>.py $s $OUT $OUT/$s.pt; done
#   $VENV/bin/python scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#   diff $OUT/project-registered.txt $OUT/imported-registered.txt   # the schemas and keys each side registers
#
#   scripts/rusty1s_cpu/build.sh <tree> <package> [OUT=build-<package>-cpu]   (torch_spline_conv too)
# The trees (`fetch github:rusty1s/pytorch_scatter` etc.; nothing in them is written): pytorch_scatter 648dda3
# (2.1.2), pytorch_sparse 91feaa5, pytorch_cluster 3d1d9e3. torch_sparse's CPU kernels include parallel-hashmap, its
# git submodule, which a snapshot lacks: PHMAP=<parallel-hashmap checkout> (the one pyg-lib vendors in
# tests/import/projects is the default). A few minutes each on 2 cores (with ccache on the PATH, the second side's
# kernel objects are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <tree> <package> [OUT]}" && pwd)
PACKAGE=${2:?usage: build.sh <tree> <package> [OUT]}
OUT=$(mkdir -p "${3:-$root/build-$PACKAGE-cpu}" && cd "${3:-$root/build-$PACKAGE-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PHMAP=${PHMAP:-$root/tests/import/projects/pyg-team__pyg-lib/third_party/parallel-hashmap}
PY=$VENV/bin/python
# The standard torch's cpp_extension compiles the project with: its setup.py's -std=c++17 (`extra_compile_args`)
# up to torch 2.12; torch >= 2.13's headers need C++20, which cpp_extension gives.
CXX_STD=$("$PY" -c "import torch; print(20 if tuple(map(int, torch.__version__.split('.')[:2])) >= (2, 13) else 17)")
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
NAMES=$(cd "$T/csrc" && ls *.cpp | sed 's/\.cpp$//' | grep -v hip)
# setup.py's flags for a CPU build with OpenMP (torch's parallel backend), on both sides; its include directories.
FLAGS="-Wno-sign-compare -DAT_PARALLEL_OPENMP -fopenmp"
INCLUDES="$T/csrc $PHMAP"

# 1. The import: the main files and the CPU kernels beside them.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" \
   --python-package ${PACKAGE}_ops $(for n in $NAMES; do echo csrc/$n.cpp; done) csrc/cpu > "$OUT/import.log")
grep -E "ops imported|need their fake|need a person|opgen_add_library|target_" "$OUT/import.log"

# 2. The project's side: one extension per main file, as setup.py makes them.
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(${PACKAGE}_cpu_project CXX)"
  echo "include($root/cmake/Opgen.cmake)"
  echo "_opgen_find_torch()"
  echo "find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)"
  for n in $NAMES; do
    cpu=$([ -f "$T/csrc/cpu/${n}_cpu.cpp" ] && echo "$T/csrc/cpu/${n}_cpu.cpp" || true)
    echo "add_library(_${n}_cpu MODULE $T/csrc/$n.cpp $cpu)"
    echo "set_target_properties(_${n}_cpu PROPERTIES PREFIX \"\" CXX_STANDARD $CXX_STD)"
    echo "target_compile_definitions(_${n}_cpu PRIVATE WITH_PYTHON)"
    echo "target_include_directories(_${n}_cpu PRIVATE $INCLUDES)"
    echo "target_link_libraries(_${n}_cpu PRIVATE opgen_torch Python3::Module)"
  done
} > "$OUT/project/CMakeLists.txt"

# 3. The imported side: csrc/ copied, what the report says to delete deleted there; the report's lines, its paths
#    into the copy.
cp -r "$T/csrc" "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" csrc/
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(${PACKAGE}_cpu_imported CXX)"
  echo "include($root/cmake/Opgen.cmake)"
  grep -oP '^ *\K(opgen_add_library|target_include_directories)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#([ (])csrc(/|\)| )#\1$OUT/imported/src/csrc\2#g"
  echo "target_include_directories(${PACKAGE}_ops PRIVATE $PHMAP)"
} > "$OUT/imported/CMakeLists.txt"
# Each side's sources seen as SRC/ in __FILE__ (the kernels' TORCH_CHECK messages name their file): the same
# messages from the tree and from its copy.
declare -A TREE=([project]="$T" [imported]="$OUT/imported/src")
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$FLAGS -fmacro-prefix-map=${TREE[$side]}=SRC" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" -DPython3_EXECUTABLE="$PY" -DOPGEN_EXECUTABLE="$OPGEN" \
    -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER > "$OUT/$side.configure.log" 2>&1 \
    || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  start=$SECONDS
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side ($((SECONDS - start)) s)"
done
