#!/bin/bash
# xformers' CUDA extension (its stable-ABI `_C`: the sparse 2:4 ops of xformers/csrc/sparse24, nvcc_info.cu,
# attention.cpp's ROCm-only defs) built twice from the same, unchanged kernel sources, as setup.py builds it for
# CUDA (its .cpp and .cu files less the hip_* ones; its nvcc flags; C++17), against the torch of $VENV:
#   $OUT/build-project  - xformers' own `_C.so`
#   $OUT/build-imported - what `opgen import` writes from those files, built with the lines its report prints, in
#                         a copy of xformers/csrc in which what the report says to delete is deleted
#                         (scripts/apply_deletions.py); C++20, the standard opgen_add_library gives its target
# Then each side is loaded in its own process and what it registers compared (scripts/vllm_subset/registered.py).
# The kernels are CUDA-only: calling them needs a GPU.
#
#   scripts/xformers_cuda/build.sh <xformers tree> <CUTLASS source dir> [OUT=build-xformers-cuda]
# The tree: an xformers checkout (tested: ca6d2aa0); CUTLASS's include/, tools/util/include/ and examples/ (its
# third_party/cutlass, or the nvidia-cutlass wheel's cutlass_library/source: 4.2.0.0 tested). Nothing in the
# tree is written. nvcc 13, sm_90a (the sm90 sparse GEMM's architecture).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
X=$(cd "${1:?usage: build.sh <xformers tree> <CUTLASS source dir> [OUT]}" && pwd)
CUTLASS=$(cd "${2:?usage: build.sh <xformers tree> <CUTLASS source dir> [OUT]}" && pwd)
OUT=$(mkdir -p "${3:-$root/build-xformers-cuda}" && cd "${3:-$root/build-xformers-cuda}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
source "$root/scripts/lib/both_ways.sh"
# setup.py's CUDA sources: xformers/csrc/**/*.cpp and *.cu, less attention/hip_*.
SOURCES=$(cd "$X" && find xformers/csrc -name '*.cpp' -o -name '*.cu' | grep -v '/attention/hip_' | sort)
# setup.py's nvcc flags (RelWithDebInfo's line info left out: it changes no code), and its stable-ABI macros.
CUDA_FLAGS="-DHAS_PYTORCH --use_fast_math -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ --extended-lambda
  -D_ENABLE_EXTENDED_ALIGNED_STORAGE -DNDEBUG --ptxas-options=-O2 --ptxas-options=-allow-expensive-optimizations=true"
COMMON="set(CMAKE_CUDA_ARCHITECTURES 90a)
set(CMAKE_CUDA_FLAGS \"$(echo $CUDA_FLAGS)\")
include($root/cmake/Opgen.cmake)"

# 1. The import, from the tree's root as a maintainer runs it.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$X" && "$OPGEN" import -I xformers/csrc -I "$CUTLASS/include" -I "$CUTLASS/tools/util/include" -D USE_CUDA \
   --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" $SOURCES > "$OUT/import.log")
grep -E "ops imported|does not decide|need a person|opgen_add_library|target_" "$OUT/import.log"
ls "$OUT/imported/schemas" | sed -n 's/\.yaml$//p' | sed 's/^/xformers /' > "$OUT/keep.txt"  # every op imported

# 2. The project's side.
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(xformers_project CXX CUDA)
$COMMON
_opgen_find_torch()
add_library(_C MODULE $(for s in $SOURCES; do echo -n " $X/$s"; done))
set_target_properties(_C PROPERTIES PREFIX "" CXX_STANDARD 17 CUDA_STANDARD 17)
target_include_directories(_C PRIVATE $X/xformers/csrc $CUTLASS/include $CUTLASS/tools/util/include $CUTLASS/examples)
target_compile_definitions(_C PRIVATE TORCH_STABLE_ONLY TORCH_TARGET_VERSION=0x020a000000000000 USE_CUDA)
target_compile_options(_C PRIVATE \$<\$<COMPILE_LANGUAGE:CXX>:-O3 -fopenmp>)
target_link_libraries(_C PRIVATE opgen_torch torch_cuda c10_cuda)
CM

# 3. The imported side: xformers/csrc copied, what the report says to delete deleted there; the report's lines,
#    their paths into the copy.
cp -a "$X/xformers" "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" xformers/ > "$OUT/deletions.log"
{
  echo "cmake_minimum_required(VERSION 3.25)
project(xformers_imported CXX CUDA)
$COMMON"
  grep -oP '^ *\K(opgen_add_library|target_include_directories|target_compile_definitions)\(.*\)$' "$OUT/import.log" \
    | sed "s# xformers/# $OUT/imported/src/xformers/#g"
} > "$OUT/imported/CMakeLists.txt"
build_sides -DOPGEN_REQUIRE_CUDA=ON

# 4. Loaded each in its own process (libcuda's stub stands in for a driver where there is none); what they
#    register compared.
compare_registered "$OUT/build-project/_C.so" xformers_ops
