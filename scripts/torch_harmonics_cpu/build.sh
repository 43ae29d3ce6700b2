#!/bin/bash
# NVIDIA's torch-harmonics (spherical DISCO convolutions and neighbourhood attention): two extensions of two
# namespaces, `disco_kernels` and `attention_kernels`, each a `TORCH_LIBRARY` block of defs in its interface file
# (beside a `PyInit__C` written out) and `TORCH_LIBRARY_IMPL` blocks beside the CPU kernels; fakes registered in
# Python as `_` inside `if optimized_kernels_is_available():`, custom_ops over the C++ ops with autograd and
# Autocast impls registered in Python; two pybind11 helper modules (`disco_helpers`, `attention_helpers`) that
# register no op. Built twice from the same, unchanged kernel sources, as its CPU build (setup.py without CUDA)
# compiles them, against the torch of $PY:
#   $OUT/project  - its own extensions, torch_harmonics.disco._C and torch_harmonics.attention._C, and the helpers,
#                   setup.py's flags (-O3 -ffast-math -funroll-loops -DNDEBUG), in a copy of its Python package
#   $OUT/imported - what one `opgen import` of both namespaces writes, built with the lines its report prints, in a
#                   copy of the tree where what the report says to take out is taken out: the def and impl blocks
#                   and the `PyInit__C`s (scripts/apply_deletions.py), the fakes' and custom_ops' decorators in
#                   Python (scripts/apply_python_deletions.py), with the project's `from . import _C` importing
#                   the generated package instead (the module whose init is gone)
# Then, each side in its own process:
#   for s in project imported; do $PY scripts/torch_harmonics_cpu/run_ops.py $s $OUT $OUT/$s.pt; done
#   $PY scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#   diff $OUT/project-registered.txt $OUT/imported-registered.txt   # the schemas and keys each side registers
#
#   scripts/torch_harmonics_cpu/build.sh <tree> [OUT=build-torch-harmonics-cpu]
# The tree: `fetch github:NVIDIA/torch-harmonics` (9e9fa53 was compared; nothing in it is written). A few minutes
# on 2 cores (with ccache on the PATH, the second side's kernel objects are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-torch-harmonics-cpu}" && cd "${2:-$root/build-torch-harmonics-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
PY=${PY:-python3}
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
D=torch_harmonics/disco/optimized
A=torch_harmonics/attention/optimized
# setup.py's CPU build: its sources, and the Python that registers on the ops (fakes, custom_ops, autograd).
SOURCES="$D/disco_interface.cpp $D/kernels_cpu $D/disco_optimized.py torch_harmonics/disco/__init__.py
         $A/attention_interface.cpp $A/kernels_cpu $A/attention_optimized.py torch_harmonics/attention/__init__.py
         torch_harmonics/attention/_layout.py torch_harmonics/attention/kernels_torch/attention_torch.py"
FLAGS="-O3 -ffast-math -funroll-loops -DNDEBUG"  # setup.py's release flags (OpenMP off, its default)

# 1. The import: both namespaces in one run.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported" "$OUT/project"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" \
   $SOURCES > "$OUT/import.log")
grep -E "ops imported|need their fake|need a person|opgen_add_library|target_" "$OUT/import.log"

# Each side's tree: the Python package, and the C++ beside it (the imported side's edited as the report says).
for side in project imported; do
  mkdir -p "$OUT/$side/src"
  cp -rp "$T/torch_harmonics" "$OUT/$side/src/"  # -p: an unchanged source is not rebuilt in a second run
done
S=$OUT/imported/src
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$S" torch_harmonics/
python3 "$root/scripts/apply_python_deletions.py" "$OUT/import.log" "$S"

# The helpers, which register no op, alike on both sides.
helpers() {
  for ns in disco attention; do
    echo "Python3_add_library(${ns}_helpers MODULE WITH_SOABI $1/$ns/optimized/${ns}_helpers.cpp)"
    echo "target_compile_definitions(${ns}_helpers PRIVATE BUILD_CPP=1 BUILD_CUDA=0 BUILD_KPACKED_SM90=0 BUILD_KPACKED_SM100=0)"
    echo "target_link_libraries(${ns}_helpers PRIVATE opgen_torch torch_python)  # its tensor casters"
    echo "set_target_properties(${ns}_helpers PROPERTIES LIBRARY_OUTPUT_DIRECTORY \${CMAKE_BINARY_DIR}/python)"
  done
}
P=$OUT/project/src/torch_harmonics
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(torch_harmonics_cpu_project CXX)"
  echo "set(CMAKE_CXX_STANDARD 20)  # as torch's cpp_extension compiles it (torch >= 2.13 needs C++20)"
  echo "include($root/cmake/Opgen.cmake)"
  echo "_opgen_find_torch()"
  echo "find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)"
  echo "Python3_add_library(disco_C MODULE WITH_SOABI $P/disco/optimized/disco_interface.cpp"
  echo "  $P/disco/optimized/kernels_cpu/disco_cpu_fwd.cpp $P/disco/optimized/kernels_cpu/disco_cpu_bwd.cpp)"
  echo "Python3_add_library(attention_C MODULE WITH_SOABI $P/attention/optimized/attention_interface.cpp"
  for f in permute fwd fwd_upsample bwd bwd_upsample; do echo "  $P/attention/optimized/kernels_cpu/attention_cpu_$f.cpp"; done
  echo ")"
  for ns in disco attention; do
    echo "target_link_libraries(${ns}_C PRIVATE opgen_torch)"
    echo "set_target_properties(${ns}_C PROPERTIES OUTPUT_NAME _C LIBRARY_OUTPUT_DIRECTORY $P/$ns)"
  done
  helpers "$P"
} > "$OUT/project/CMakeLists.txt"
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(torch_harmonics_cpu_imported CXX)"
  echo "set(CMAKE_CXX_STANDARD 20)  # the helpers' (opgen_add_library gives its own target C++20)"
  echo "include($root/cmake/Opgen.cmake)"
  echo "find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)"
  grep -oP '^ *\K(opgen_add_library|target_include_directories)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#([ (])torch_harmonics/#\1$S/torch_harmonics/#g"
  helpers "$S/torch_harmonics"
} > "$OUT/imported/CMakeLists.txt"
# Each side's sources seen as SRC/ in __FILE__ (the kernels' TORCH_CHECK messages name their file).
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="-fmacro-prefix-map=$OUT/$side/src=SRC" -DCMAKE_CXX_FLAGS_RELEASE="$FLAGS" \
    -DPython3_EXECUTABLE="$(command -v "$PY")" -DOPGEN_EXECUTABLE="$OPGEN" -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER \
    > "$OUT/$side.configure.log" 2>&1 || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  start=$SECONDS
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side ($((SECONDS - start)) s)"
done
