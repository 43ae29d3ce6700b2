#!/bin/bash
# vLLM's stable-ABI CUDA ops, its `_C_stable_libtorch` and `_moe_C_stable_libtorch` extensions, built twice from
# the same, unchanged kernel sources against the torch of $VENV (vLLM pins 2.11, the device's):
#   $OUT/build-project  - vLLM's own two extensions: its binding files, their registrations of the ops not built
#                         here blanked (trim.py), compiled beside the originals so their includes resolve as
#                         vLLM's build resolves them
#   $OUT/build-imported - the specs `opgen import` writes for them, built with the CMake lines its report prints,
#                         over a copy of csrc/ in which what the report says to delete is deleted
#                         (scripts/apply_deletions.py)
# Then each side is loaded in its own process and what it registers compared (registered.py): here, on a
# machine without a GPU. On a GPU (the device, torch 2.11), each side calls the ops on seeded inputs and the
# results are compared bit for bit. Each side is about 30 MB compressed, too much to carry both in one call:
#   mkdir -p build-vllm-bundle
#   tar -C $OUT -cJf build-vllm-bundle/project.tar.xz keep.txt build-project/_C_stable_libtorch.so build-project/_moe_C_stable_libtorch.so
#   tar -C $OUT -cJf build-vllm-bundle/imported.tar.xz keep.txt build-imported/python
# and, one device call per side (carry build-vllm-bundle/<side>.tar.xz; $OUT/<side>.pt comes back), from the
# repository root:
#   mkdir -p build-vllm && tar -C build-vllm -xJf build-vllm-bundle/<side>.tar.xz
#   python scripts/vllm_subset/run_ops.py <side> build-vllm $OUT/<side>.pt
# then, here: python scripts/vllm_subset/compare.py project.pt imported.pt
#
#   scripts/vllm_subset/build.sh <vLLM tree> <CUTLASS source dir> [OUT=build-vllm]
# The tree: a vLLM checkout (tested: the fork ZJY0516/vllm at fa36f86d7, upstream's #45772). The import reads
# its whole csrc/libtorch_stable, as docs/import.md's table does (CUTLASS's include/ and tools/util/include/,
# e.g. the nvidia-cutlass wheel's cutlass_library/source, for the ops' headers); the kernels listed below are
# built. Writes trim.py's files csrc/libtorch_stable/torch_bindings_subset.cpp and moe/torch_bindings_subset.cpp
# into the tree, nothing else. Takes about 28 minutes on 2 cores (nvcc 13, sm_90a; each kernel source compiled
# by each side's build: the project's 11 minutes, the imported side's 17).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
V=$(cd "${1:?usage: build.sh <vLLM tree> <CUTLASS source dir> [OUT]}" && pwd)
CUTLASS=${2:?usage: build.sh <vLLM tree> <CUTLASS source dir> [OUT]}
OUT=$(mkdir -p "${3:-$root/build-vllm}" && cd "${3:-$root/build-vllm}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
# The kernel sources vLLM's CUDA build compiles for sm_90 (its CMakeLists.txt) into each of its two stable
# extensions, under csrc/libtorch_stable, less the families that need CUTLASS's GEMMs instantiated or vLLM's
# generated sources (scaled_mm's c2x/c3x kernels, machete, marlin): their entry points, which vLLM builds
# whatever the architectures, raise at run time without them (the ENABLE_* macros left undefined), alike on
# both sides.
C_KERNELS="activation_kernels quantization/activation_kernels quantization/w8a8/int8/scaled_quant
  quantization/w8a8/fp8/common quantization/w8a8/fp8/per_token_group_quant quantization/w8a8/int8/per_token_group_quant
  permute_cols quantization/gptq/q_gemm pos_encoding_kernels fused_qknorm_rope_kernel
  fused_minimax_m3_qknorm_rope_kv_insert_kernel layernorm_kernels layernorm_quant_kernels
  quantization/fused_kernels/fused_layernorm_dynamic_per_token_quant quantization/fused_kernels/fused_silu_mul_block_quant
  attention/merge_attn_states sampler topk mamba/selective_scan_fwd attention/paged_attention_v1
  attention/paged_attention_v2 cache_kernels cache_kernels_fused custom_all_reduce
  fused_deepseek_v4_qnorm_rope_kv_insert_kernel cuda_view cuda_utils_kernels cutlass_extensions/common.cpp
  quantization/w8a8/cutlass/scaled_mm_entry quantization/fp4/nvfp4_quant_entry quantization/fp4/nvfp4_scaled_mm_entry
  quantization/awq/gemm_kernels minimax_reduce_rms_kernel dsv3_fused_a_gemm fp32_router_gemm_entry fp32_router_gemm
  quantization/hadamard/hadacore/hadamard_transform_cuda"
MOE_KERNELS="moe/moe_align_sum_kernels moe/topk_softmax_kernels moe/topk_softplus_sqrt_kernels moe/moe_wna16
  moe/grouped_topk_kernels moe/permute_unpermute_kernels/moe_permute_unpermute_kernel moe/moe_permute_unpermute_op
  moe/dsv3_router_gemm_entry moe/dsv3_router_gemm_float_out moe/dsv3_router_gemm_bf16_out"
sources() {  # <dir> <kernel>...: their paths under <dir>/csrc/libtorch_stable
  local dir=$1; shift
  for k in "$@"; do case $k in *.cpp) echo -n " $dir/csrc/libtorch_stable/$k" ;; *) echo -n " $dir/csrc/libtorch_stable/$k.cu" ;; esac; done
}
PYTHON_INCLUDE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")  # core/registration.h
# vLLM's nvcc flags: get_torch_gpu_compiler_flags (torch's COMMON_NVCC_FLAGS without the __CUDA_NO_HALF* ones
# for CUDA >= 12, -DENABLE_FP8) and --expt-extended-lambda; sm_90a, which its Hopper-only kernels (the DeepSeek
# GEMMs) take; the same on both sides.
COMMON="set(CMAKE_CUDA_ARCHITECTURES 90a)
set(CMAKE_CUDA_FLAGS \"--expt-relaxed-constexpr --expt-extended-lambda -DENABLE_FP8\")
include($root/cmake/Opgen.cmake)
find_package(CUDAToolkit REQUIRED)"
INCLUDES="$CUTLASS/include $CUTLASS/tools/util/include $PYTHON_INCLUDE"

# 1. Import the whole stable extension, as docs/import.md does, into $OUT/imported (without the trimmed binding
#    files an earlier run wrote into the tree, which would be read as vLLM's own).
rm -rf "$OUT/imported" "$V/csrc/libtorch_stable/torch_bindings_subset.cpp" "$V/csrc/libtorch_stable/moe/torch_bindings_subset.cpp"
(cd "$V" && "$OPGEN" import -I csrc -I "$CUTLASS/include" -I "$CUTLASS/tools/util/include" -D TORCH_EXTENSION_NAME=_C_stable_libtorch -D USE_CUDA \
   --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" csrc/libtorch_stable > "$OUT/import.log")
grep -E "ops imported|need a person" "$OUT/import.log"

# 2. The project's side: vLLM's two extensions, their kernels compiled first (object libraries) to find the
#    functions they define; the ops kept are the ones whose every bound kernel is among them (their specs name
#    the kernels); the binding files then trimmed to those ops (trim.py) and the extensions linked.
mkdir -p "$OUT/project"
for bindings in torch_bindings moe/torch_bindings; do  # compiled beside the original, so its includes resolve alike
  touch "$V/csrc/libtorch_stable/${bindings}_subset.cpp"
done
project_extension() {  # <name> <bindings> <kernels>...
  local name=$1 bindings=$2; shift 2
  echo "add_library(${name}_kernels OBJECT $(sources "$V" "$@"))
add_library($name MODULE $V/csrc/libtorch_stable/${bindings}_subset.cpp \$<TARGET_OBJECTS:${name}_kernels>)
foreach(target ${name}_kernels $name)
  set_target_properties(\${target} PROPERTIES PREFIX \"\" CXX_STANDARD 17 CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
  target_include_directories(\${target} PRIVATE $V/csrc $INCLUDES)
  target_compile_definitions(\${target} PRIVATE TORCH_TARGET_VERSION=0x020B000000000000ULL USE_CUDA
                             TORCH_EXTENSION_NAME=$name CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1)
  target_link_libraries(\${target} PRIVATE opgen_torch torch_cuda c10_cuda CUDA::cuda_driver)
endforeach()"
}
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(vllm_project CXX CUDA)
$COMMON
_opgen_find_torch()
$(project_extension _C_stable_libtorch torch_bindings $C_KERNELS)
$(project_extension _moe_C_stable_libtorch moe/torch_bindings $MOE_KERNELS)
CM
configure() {  # <side>
  cmake -S "$OUT/$1" -B "$OUT/build-$1" -G Ninja -DPython3_EXECUTABLE="$PY" -DOPGEN_REQUIRE_CUDA=ON \
    -DOPGEN_EXECUTABLE="$OPGEN" > "$OUT/$1.configure.log" 2>&1 || { tail -20 "$OUT/$1.configure.log"; exit 1; }
}
build() {  # <side> [targets]
  ninja -C "$OUT/build-$1" "${@:2}" >> "$OUT/$1.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$1.build.log"; exit 1; }
}
configure project
build project _C_stable_libtorch_kernels _moe_C_stable_libtorch_kernels
"$PY" "$here/keep.py" "$OUT/build-project/CMakeFiles" "$OUT/imported/schemas" "$OUT/keep.txt" "$OUT/sources.txt" "$V/csrc"
echo "kept: $(wc -l < "$OUT/keep.txt") ops"
for bindings in torch_bindings moe/torch_bindings; do
  python3 "$here/trim.py" "$V/csrc/libtorch_stable/$bindings.cpp" "$OUT/keep.txt" "$V/csrc/libtorch_stable/${bindings}_subset.cpp"
done
build project
echo "built: project"

# 3. The imported side: the kept specs; csrc/ copied, what the report says to delete deleted there (the blocks of
#    the binding files, and those of kernel sources that register their own kernels); the report's CMake
#    lines, their kernel sources filled in from the copy.
mkdir -p "$OUT/imported/kept" "$OUT/imported/src"
while read -r ns op; do
  mkdir -p "$OUT/imported/kept/$ns"; cp "$OUT/imported/schemas/$ns/$op.yaml" "$OUT/imported/kept/$ns/"
done < "$OUT/keep.txt"
cp -a "$V/csrc" "$OUT/imported/src/"  # its times kept: a rerun recompiles only what the deletions change
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" > "$OUT/deletions.log"
lib() {  # namespace: the report's lines, its kernel sources filled in
  local ns=$1
  local fakes=""; [ -f "$OUT/imported/python/$ns/_fakes.py" ] && fakes="PYTHON_SOURCES python/$ns/_fakes.py"
  echo "file(GLOB ${ns}_specs kept/$ns/*.yaml)
opgen_add_library(${ns}_ops NAMESPACE $ns FRAGMENT TORCH_TARGET_VERSION 2.11 $fakes SCHEMAS \${${ns}_specs} KERNELS $(sources "$OUT/imported/src" $(awk -v ns=$ns '$1 == ns {print $2}' "$OUT/sources.txt")))
$(grep -oP "^ *\K(target_include_directories|target_compile_definitions)\(${ns}_ops .*\)$" "$OUT/import.log" \
  | sed "s# csrc# src/csrc#g")
# What vLLM's CMake gives its extensions besides: Python's headers (core/registration.h), CUTLASS's direct
# driver calls, the driver, which custom_all_reduce.cu calls, and cuBLAS, which the GPTQ GEMM calls (vLLM's
# module finds it in the process, through torch; the library, linked --no-undefined, names it).
target_include_directories(${ns}_ops PRIVATE $PYTHON_INCLUDE)
target_compile_definitions(${ns}_ops PRIVATE CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1)
target_link_libraries(${ns}_ops PRIVATE CUDA::cuda_driver CUDA::cublas)"
}
{
  echo "cmake_minimum_required(VERSION 3.25)
project(vllm_imported CXX CUDA)
$COMMON"
  for ns in $(cut -d' ' -f1 "$OUT/keep.txt" | sort -u); do lib "$ns"; done
} > "$OUT/imported/CMakeLists.txt"
configure imported
build imported
echo "built: imported"

# 5. Loaded each in its own process (libcuda's stub stands in for a driver where there is none); what they
#    register compared.
stub=""
if ! ldconfig -p | grep -q "libcuda.so.1"; then
  mkdir -p "$OUT/stub"; ln -sf "$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so" "$OUT/stub/libcuda.so.1"
  stub="$OUT/stub"
fi
for side in project imported; do
  LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$PY" "$here/registered.py" "$side" "$OUT" "$OUT/$side.json"
done
"$PY" "$here/registered.py" compare "$OUT" "$OUT/project.json" "$OUT/imported.json"
