#!/bin/bash
# vLLM's stable-ABI CUDA ops whose kernels build without CUTLASS, built twice from the same, unchanged kernel
# sources against the torch of $VENV (vLLM pins 2.11, the device's):
#   $OUT/build-project  - vLLM's own binding file, its registrations of the other ops blanked (trim.py),
#                         compiled beside the original so its includes resolve as vLLM's build resolves them
#   $OUT/build-imported - the specs `opgen import` writes for them, built with the CMake lines its report prints
# Then each side is loaded in its own process and what it registers compared (registered.py): here, on a
# machine without a GPU. On a GPU (the device, torch 2.11), each side calls the ops on seeded inputs and the
# results are compared bit for bit; carry build-vllm/{keep.txt,build-project/_C_stable_libtorch.so,
# build-imported/python} (17 MB each) and run, from the repository root:
#   for s in project imported; do python scripts/vllm_subset/run_ops.py $s build-vllm /tmp/$s.pt; done
#   python scripts/vllm_subset/compare.py /tmp/project.pt /tmp/imported.pt
#
#   scripts/vllm_subset/build.sh <vLLM tree> <CUTLASS source dir> [OUT=build-vllm]
# The tree: a vLLM checkout (tested: the fork ZJY0516/vllm at fa36f86d7, upstream's #45772). The import reads
# its whole csrc/libtorch_stable, as docs/import.md's table does (CUTLASS's include/ and tools/util/include/,
# e.g. the nvidia-cutlass wheel's cutlass_library/source, for the ops' headers); only the kernels listed
# below are built. Writes trim.py's file csrc/libtorch_stable/torch_bindings_subset.cpp
# into the tree, nothing else. Takes about 7 minutes on 2 cores (nvcc, sm_90: each kernel source is compiled
# once to read what it defines, then by each side's build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
V=$(cd "${1:?usage: build.sh <vLLM tree> <CUTLASS source dir> [OUT]}" && pwd)
CUTLASS=${2:?usage: build.sh <vLLM tree> <CUTLASS source dir> [OUT]}
OUT=$(mkdir -p "${3:-$root/build-vllm}" && cd "${3:-$root/build-vllm}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
# The kernel sources that build without CUTLASS and without vLLM's generated sources.
KERNELS="activation_kernels cache_kernels cache_kernels_fused cuda_utils_kernels cuda_view custom_all_reduce
  fused_deepseek_v4_qnorm_rope_kv_insert_kernel fused_minimax_m3_qknorm_rope_kv_insert_kernel fused_qknorm_rope_kernel
  layernorm_kernels layernorm_quant_kernels minimax_reduce_rms_kernel permute_cols pos_encoding_kernels sampler topk"
sources() { for k in "$@"; do echo -n " $V/csrc/libtorch_stable/${k%.cu}.cu"; done; }
ALL="$(sources $KERNELS)"
# vLLM's nvcc flags: get_torch_gpu_compiler_flags (torch's COMMON_NVCC_FLAGS without the __CUDA_NO_HALF* ones
# for CUDA >= 12, -DENABLE_FP8) and --expt-extended-lambda; the same on both sides.
COMMON="set(CMAKE_CUDA_ARCHITECTURES 90)
set(CMAKE_CUDA_FLAGS \"--expt-relaxed-constexpr --expt-extended-lambda -DENABLE_FP8\")
include($root/cmake/Opgen.cmake)
find_package(CUDAToolkit REQUIRED)"

# 1. Import the whole stable extension, as docs/import.md does, into $OUT/imported.
rm -rf "$OUT/imported"
(cd "$V" && "$OPGEN" import -I csrc -I "$CUTLASS/include" -I "$CUTLASS/tools/util/include" -D TORCH_EXTENSION_NAME=_C_stable_libtorch -D USE_CUDA \
   --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" csrc/libtorch_stable > "$OUT/import.log")
grep -E "ops imported|need a person" "$OUT/import.log"

# 2. The kernels: compiled once, to find the functions they define; the ops kept are the ones whose every
#    bound kernel is among them (their specs name the kernels).
mkdir -p "$OUT/objects"
TORCH_INCLUDE=$("$PY" -c 'import torch.utils.cpp_extension as e; print(e.include_paths()[0])')
export V OUT TORCH_INCLUDE
echo $ALL | tr ' ' '\n' | xargs -P2 -I{} sh -c '[ -f "$OUT/objects/$(basename {} .cu).o" ] || nvcc -c -std=c++17 -O3 \
  -gencode arch=compute_90,code=sm_90 --expt-relaxed-constexpr --expt-extended-lambda -DENABLE_FP8 -Xcompiler -fPIC \
  -DUSE_CUDA -DTORCH_TARGET_VERSION=0x020B000000000000ULL -I "$V/csrc" -isystem "$TORCH_INCLUDE" {} \
  -o "$OUT/objects/$(basename {} .cu).o" >> "$OUT/objects.log" 2>&1'
"$PY" "$here/keep.py" "$OUT/objects" "$OUT/imported/schemas" "$OUT/keep.txt" "$OUT/sources.txt"
echo "kept: $(wc -l < "$OUT/keep.txt") ops"

# 3. The project's side.
mkdir -p "$OUT/project"
python3 "$here/trim.py" "$V/csrc/libtorch_stable/torch_bindings.cpp" "$OUT/keep.txt" \
  "$V/csrc/libtorch_stable/torch_bindings_subset.cpp"
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(vllm_project CXX CUDA)
$COMMON
_opgen_find_torch()
add_library(_C_stable_libtorch MODULE $V/csrc/libtorch_stable/torch_bindings_subset.cpp $ALL)
set_target_properties(_C_stable_libtorch PROPERTIES PREFIX "" CXX_STANDARD 17 CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
target_include_directories(_C_stable_libtorch PRIVATE $V/csrc $($PY -c "import sysconfig; print(sysconfig.get_paths()['include'])"))
target_compile_definitions(_C_stable_libtorch PRIVATE TORCH_TARGET_VERSION=0x020B000000000000ULL USE_CUDA)
target_link_libraries(_C_stable_libtorch PRIVATE opgen_torch torch_cuda c10_cuda CUDA::cuda_driver)
CM

# 4. The imported side: the kept specs, the report's CMake lines with their kernel sources filled in.
mkdir -p "$OUT/imported/kept"
while read -r ns op; do
  mkdir -p "$OUT/imported/kept/$ns"; cp "$OUT/imported/schemas/$ns/$op.yaml" "$OUT/imported/kept/$ns/"
done < "$OUT/keep.txt"
lib() {  # namespace: the report's lines, its kernel sources filled in
  local ns=$1
  local fakes=""; [ -f "$OUT/imported/python/$ns/_fakes.py" ] && fakes="PYTHON_SOURCES python/$ns/_fakes.py"
  echo "file(GLOB ${ns}_specs kept/$ns/*.yaml)
opgen_add_library(${ns}_ops NAMESPACE $ns FRAGMENT TORCH_TARGET_VERSION 2.11 $fakes SCHEMAS \${${ns}_specs} KERNELS $(sources $(awk -v ns=$ns '$1 == ns {print $2}' "$OUT/sources.txt")))
target_include_directories(${ns}_ops PRIVATE $V/csrc $V/csrc/libtorch_stable schemas/$ns)
target_compile_definitions(${ns}_ops PRIVATE TORCH_EXTENSION_NAME=_C_stable_libtorch USE_CUDA)
target_link_libraries(${ns}_ops PRIVATE CUDA::cuda_driver)  # custom_all_reduce.cu calls the driver, as vLLM links it"
}
{
  echo "cmake_minimum_required(VERSION 3.25)
project(vllm_imported CXX CUDA)
$COMMON"
  for ns in $(cut -d' ' -f1 "$OUT/keep.txt" | sort -u); do lib "$ns"; done
} > "$OUT/imported/CMakeLists.txt"
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DPython3_EXECUTABLE="$PY" -DOPGEN_REQUIRE_CUDA=ON \
    -DOPGEN_EXECUTABLE="$OPGEN" > "$OUT/$side.configure.log" 2>&1 || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side"
done

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
