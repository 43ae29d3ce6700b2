#!/bin/bash
# HF kernels-community's deep-gemm (DeepGEMM's host side as kernel-builder builds it: torch-ext/torch_binding.cpp
# and csrc/impl.cu, whose kernels DeepGEMM compiles at run time) built twice from the same, unchanged sources, as
# its build.toml says (nvcc's C++20, -O3, sm_90a; CUTLASS's headers), against the torch of $VENV:
#   $OUT/build-project  - the project's own extension: both files, kernel-builder's registration.h (written
#                         here: the repository does not hold it), the namespace deep_gemm
#   $OUT/build-imported - what `opgen import` writes from them, built with the lines its report prints, in a copy
#                         in which what the report says to delete is deleted (scripts/apply_deletions.py)
# Then each side is loaded in its own process and what it registers compared (scripts/vllm_subset/registered.py).
# Calling the GEMMs needs a GPU (and DeepGEMM's JIT, nvcc at run time).
#
#   scripts/deep_gemm_cuda/build.sh <kernels-community tree> <CUTLASS source dir> [OUT=build-deep-gemm-cuda]
# The tree: a huggingface/kernels-community checkout (tested: 40d4194f); CUTLASS's include/ (the
# nvidia-cutlass wheel's cutlass_library/source: 4.2.0.0 tested; build.toml asks for 4.0). Nothing in the tree
# is written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
K=$(cd "${1:?usage: build.sh <kernels-community tree> <CUTLASS source dir> [OUT]}" && pwd)/deep-gemm
CUTLASS=$(cd "${2:?usage: build.sh <kernels-community tree> <CUTLASS source dir> [OUT]}" && pwd)
OUT=$(mkdir -p "${3:-$root/build-deep-gemm-cuda}" && cd "${3:-$root/build-deep-gemm-cuda}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
source "$root/scripts/lib/both_ways.sh"
SOURCES="torch-ext/torch_binding.cpp csrc/impl.cu"
COMMON="set(CMAKE_CUDA_ARCHITECTURES 90a)
set(CMAKE_CUDA_FLAGS \"-O3 -DNDEBUG --expt-relaxed-constexpr --expt-extended-lambda -Wno-deprecated-declarations\")
include($root/cmake/Opgen.cmake)
find_package(CUDAToolkit REQUIRED)"

# 1. The import, from the kernel's directory as its maintainers run it; the namespace as the build defines it.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project/include"
(cd "$K" && "$OPGEN" import -I csrc -I deep_gemm/include -I "$CUTLASS/include" -D TORCH_EXTENSION_NAME=deep_gemm \
   --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" $SOURCES > "$OUT/import.log")
grep -E "ops imported|Python package|need a person|opgen_add_library|target_" "$OUT/import.log"
ls "$OUT/imported/schemas" | sed -n 's/\.yaml$//p' | sed 's/^/deep_gemm /' > "$OUT/keep.txt"  # every op imported

# 2. The project's side. kernel-builder's registration.h: the macros the binding file uses, as kernel-builder
#    defines them (tests/python/test_import_project.py has the same).
cat > "$OUT/project/include/registration.h" <<'H'
#pragma once
#include <Python.h>
#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)
#define _STRINGIFY(A) #A
#define STRINGIFY(A) _STRINGIFY(A)
#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)
#define TORCH_LIBRARY_IMPL_EXPAND(NAME, DEVICE, MODULE) TORCH_LIBRARY_IMPL(NAME, DEVICE, MODULE)
#define REGISTER_EXTENSION(NAME)                                                                      \
  PyMODINIT_FUNC CONCAT(PyInit_, NAME)() {                                                            \
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(NAME), nullptr, 0, nullptr}; \
    return PyModule_Create(&module);                                                                  \
  }
H
PYTHON_INCLUDE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(deep_gemm_project CXX CUDA)
$COMMON
_opgen_find_torch()
add_library(_deep_gemm MODULE $(for s in $SOURCES; do echo -n " $K/$s"; done))
set_target_properties(_deep_gemm PROPERTIES PREFIX "" CXX_STANDARD 20 CUDA_STANDARD 20)
target_include_directories(_deep_gemm PRIVATE $OUT/project/include $PYTHON_INCLUDE $K/csrc $K/deep_gemm/include $CUTLASS/include)
target_compile_definitions(_deep_gemm PRIVATE TORCH_EXTENSION_NAME=deep_gemm)
target_link_libraries(_deep_gemm PRIVATE opgen_torch torch_cuda c10_cuda CUDA::cuda_driver CUDA::cublas CUDA::cublasLt CUDA::nvrtc)
CM

# 3. The imported side: the kernel's directory copied, what the report says to delete deleted there; the
#    report's lines, their paths into the copy.
cp -a "$K/." "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" > "$OUT/deletions.log"
{
  echo "cmake_minimum_required(VERSION 3.25)
project(deep_gemm_imported CXX CUDA)
$COMMON"
  grep -oP '^ *\K(opgen_add_library|target_include_directories|target_compile_definitions)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#( |\()(torch-ext|csrc|deep_gemm/include)#\1$OUT/imported/src/\2#g"
  # What the project's build gives besides: kernel-builder's registration.h, which the binding file, kept for
  # its one kept impl, includes (Python's headers come with the report's PYTHON_API: csrc/impl.cu includes
  # torch/extension.h); DeepGEMM calls the CUDA driver, NVRTC, cuBLAS and cuBLASLt, which the library names.
  echo "target_include_directories(deep_gemm_ops PRIVATE $OUT/project/include)
target_link_libraries(deep_gemm_ops PRIVATE CUDA::cuda_driver CUDA::cublas CUDA::cublasLt CUDA::nvrtc)"
} > "$OUT/imported/CMakeLists.txt"
build_sides -DOPGEN_REQUIRE_CUDA=ON

# 4. Loaded each in its own process (libcuda's stub stands in for a driver where there is none); what they
#    register compared.
compare_registered "$OUT/build-project/_deep_gemm.so" deep_gemm_ops
