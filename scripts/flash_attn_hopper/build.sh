#!/bin/bash
# FlashAttention 3 (hopper/: its stable-ABI `flash_attn_3._C`, flash_api_stable.cpp's four ops) built twice from
# the same, unchanged sources, as hopper/setup.py builds it for torch >= 2.9 (its nvcc flags, C++17, sm_90a), with
# the feature switches setup.py reads from FLASH_ATTENTION_DISABLE_* set so that one configuration of kernels is
# compiled (head dimension 128, bfloat16, forward and backward; the others raise alike on both sides), against the
# torch of $VENV:
#   $OUT/build-project  - FlashAttention's own `_C.so`: the sources setup.py picks for those switches
#   $OUT/build-imported - what `opgen import` writes from the same sources, built with the lines its report prints,
#                         in a copy of hopper/ in which what the report says to delete is deleted
#                         (scripts/apply_deletions.py); C++20, the standard opgen_add_library gives its target
# Then each side is loaded in its own process and what it registers compared (scripts/vllm_subset/registered.py).
# The kernels are Hopper's: calling them needs a GPU.
#
#   scripts/flash_attn_hopper/build.sh <flash-attention tree> <CUTLASS source dir> [OUT=build-flash-attn-hopper]
# The tree: a Dao-AILab/flash-attention checkout (tested: 0251105a); CUTLASS's include/ (its csrc/cutlass, or the
# nvidia-cutlass wheel's cutlass_library/source: 4.2.0.0 tested). Nothing in the tree is written. nvcc 13.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
F=$(cd "${1:?usage: build.sh <flash-attention tree> <CUTLASS source dir> [OUT]}" && pwd)/hopper
CUTLASS=$(cd "${2:?usage: build.sh <flash-attention tree> <CUTLASS source dir> [OUT]}" && pwd)
OUT=$(mkdir -p "${3:-$root/build-flash-attn-hopper}" && cd "${3:-$root/build-flash-attn-hopper}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
source "$root/scripts/lib/both_ways.sh"
# setup.py's feature macros for FLASH_ATTENTION_DISABLE_{SPLIT,PAGEDKV,APPENDKV,LOCAL,SOFTCAP,PACKGQA,FP16,FP8,
# VARLEN,CLUSTER,HDIM64,HDIM96,HDIM192,HDIM256,SM80,HDIMDIFF64,HDIMDIFF192}=TRUE, and the sources it then picks:
# the API, one forward and one backward instantiation, the scheduler's (the combine kernel goes with SPLIT).
FEATURES="FLASHATTENTION_DISABLE_SPLIT FLASHATTENTION_DISABLE_PAGEDKV FLASHATTENTION_DISABLE_APPENDKV
  FLASHATTENTION_DISABLE_LOCAL FLASHATTENTION_DISABLE_SOFTCAP FLASHATTENTION_DISABLE_PACKGQA
  FLASHATTENTION_DISABLE_FP16 FLASHATTENTION_DISABLE_FP8 FLASHATTENTION_DISABLE_VARLEN FLASHATTENTION_DISABLE_CLUSTER
  FLASHATTENTION_DISABLE_HDIM64 FLASHATTENTION_DISABLE_HDIM96 FLASHATTENTION_DISABLE_HDIM192
  FLASHATTENTION_DISABLE_HDIM256 FLASHATTENTION_DISABLE_SM8x FLASH_ATTENTION_DISABLE_HDIMDIFF64
  FLASH_ATTENTION_DISABLE_HDIMDIFF192"
SOURCES="flash_api_stable.cpp instantiations/flash_fwd_hdim128_bf16_sm90.cu instantiations/flash_bwd_hdim128_bf16_sm90.cu
  flash_prepare_scheduler.cu"
# setup.py's nvcc flags (line info and register reports left out: they change no code), torch's COMMON_NVCC_FLAGS,
# which CUDAExtension adds; its stable-ABI target version and the limited Python API of its C++ flags.
CUDA_FLAGS="-O3 --use_fast_math -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DCUTLASS_ENABLE_GDC_FOR_SM90
  -DCUTLASS_DEBUG_TRACE_LEVEL=0 -DNDEBUG -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
  -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr"
COMMON="set(CMAKE_CUDA_ARCHITECTURES 90a)
set(CMAKE_CUDA_FLAGS \"$(echo $CUDA_FLAGS)\")
include($root/cmake/Opgen.cmake)"
DEFINES=$(for f in $FEATURES; do echo -n " -D $f"; done)

# 1. The import, from hopper/ as setup.py builds there; its configuration the target version and the switches.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$F" && "$OPGEN" import -I . -I "$CUTLASS/include" -D TORCH_TARGET_VERSION=0x0209000000000000 $DEFINES \
   --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" $SOURCES > "$OUT/import.log")
grep -E "ops imported|need a person|opgen_add_library|target_" "$OUT/import.log"
ls "$OUT/imported/schemas" | sed -n 's/\.yaml$//p' | sed 's/^/flash_attn_3 /' > "$OUT/keep.txt"  # every op imported

# 2. The project's side.
PYTHON_INCLUDE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(flash_attn_3_project CXX CUDA)
$COMMON
_opgen_find_torch()
add_library(_C MODULE $(for s in $SOURCES; do echo -n " $F/$s"; done))
set_target_properties(_C PROPERTIES PREFIX "" CXX_STANDARD 17 CUDA_STANDARD 17)
target_include_directories(_C PRIVATE $F $CUTLASS/include $PYTHON_INCLUDE)
target_compile_definitions(_C PRIVATE $FEATURES)
target_compile_options(_C PRIVATE \$<\$<COMPILE_LANGUAGE:CXX>:-O3 -DPy_LIMITED_API=0x03090000
  -DTORCH_TARGET_VERSION=0x0209000000000000>)
target_link_libraries(_C PRIVATE opgen_torch torch_cuda c10_cuda)
CM

# 3. The imported side: hopper/ copied, what the report says to delete deleted there; the report's lines, their
#    paths into the copy.
cp -a "$F/." "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" > "$OUT/deletions.log"
{
  echo "cmake_minimum_required(VERSION 3.25)
project(flash_attn_3_imported CXX CUDA)
$COMMON"
  grep -oP '^ *\K(opgen_add_library|target_include_directories|target_compile_definitions|set_source_files_properties)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#( |\()(flash_api_stable.cpp|instantiations/|flash_prepare_scheduler.cu|\.( |\)))#\1$OUT/imported/src/\2#g"
} > "$OUT/imported/CMakeLists.txt"
build_sides -DOPGEN_REQUIRE_CUDA=ON

# 4. Loaded each in its own process (libcuda's stub stands in for a driver where there is none); what they
#    register compared.
compare_registered "$OUT/build-project/_C.so" flash_attn_3_ops
