#!/bin/bash
# vLLM's x86 CPU extension in its AVX2 configuration (the `_C_AVX2` library of cmake/cpu_extension.cmake,
# which registers into `_C`), or with ISA=avx512 in its AVX-512 one (`_C_AVX512`: AVX-512 F, VL, BW and DQ,
# with the shared-memory and MoE sources), built twice from the same, unchanged kernel sources against the
# torch of $VENV (vLLM pins 2.11, the device's):
#   $OUT/build-project  - vLLM's own sources, torch_bindings.cpp among them, as its CMake compiles them
#   $OUT/build-imported - the specs `opgen import -D __AVX2__` writes, built with the lines its report
#                         prints: its block deleted from torch_bindings.cpp (the rest of the file stays)
# Both with vLLM's flags (-fopenmp -mf16c -mavx2, VLLM_CPU_EXTENSION, C++20 with GNU extensions) and
# libraries (oneDNN, libnuma, OpenMP), at -O2 -DNDEBUG (vLLM builds RelWithDebInfo: the same, with -g). Then compare them, each in its own process:
#   for s in project imported; do $VENV/bin/python scripts/vllm_cpu/run_ops.py $s $OUT $OUT/$s.pt; done
#   $VENV/bin/python scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#
#   [ISA=avx2|avx512] scripts/vllm_cpu/build.sh <vLLM tree> <oneDNN source tree> [OUT=build-vllm-cpu]
# The tree: a vLLM checkout (tested: the fork ZJY0516/vllm at fa36f86d7, upstream's #45772). oneDNN: its v3.10
# source, which vLLM's build fetches from GitHub and builds static, matmul and reorder only; this builds it so
# once, into $OUT/onednn (about 8 minutes on 2 cores), and compiles vLLM's dnnl_helper.cpp, which reads
# oneDNN's internal headers, against its src/. Writes csrc/cpu/cpu_attn_dispatch_generated.h into the vLLM
# tree, as vLLM's build does, nothing else. Needs libnuma-dev. About 10 minutes more on 2 cores (each kernel
# source compiled by each side; with ccache on the PATH, the second side's are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage="usage: build.sh <vLLM tree> <oneDNN source tree> [OUT]"
V=$(cd "${1:?$usage}" && pwd)
DNNL_SRC=$(cd "${2:?$usage}" && pwd)
OUT=$(mkdir -p "${3:-$root/build-vllm-cpu}" && cd "${3:-$root/build-vllm-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
PYTHON_INCLUDE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# VLLM_EXT_SRC_AVX2 (or _AVX512) but torch_bindings.cpp, their flags (CXX_COMPILE_FLAGS_AVX2 or _AVX512), and
# the macros those flags define that the bindings test, for the import.
KERNELS="csrc/cpu/sgl-kernels/fla.cpp csrc/cpu/utils.cpp csrc/cpu/spec_decode_utils.cpp csrc/cpu/cpu_attn.cpp
  csrc/cpu/dnnl_kernels.cpp csrc/cpu/activation.cpp csrc/cpu/layernorm.cpp csrc/cpu/mla_decode.cpp
  csrc/cpu/pos_encoding.cpp csrc/moe/dynamic_4bit_int_moe_cpu.cpp"
case ${ISA:=avx2} in
  avx2) ISA_FLAGS="-mf16c -mavx2"; ISA_DEFINES="-D __AVX2__" ;;
  avx512) ISA_FLAGS="-mf16c -mavx512f -mavx512vl -mavx512bw -mavx512dq"; ISA_DEFINES="-D __AVX2__ -D __AVX512F__"
          KERNELS="$KERNELS csrc/cpu/shm.cpp csrc/cpu/cpu_wna16.cpp csrc/cpu/cpu_fused_moe.cpp" ;;
  *) echo "ISA is avx2 or avx512" >&2; exit 2 ;;
esac
ALL=$(for k in $KERNELS; do echo -n " $V/$k"; done)
(cd "$V/csrc/cpu" && "$PY" generate_cpu_attn_dispatch.py > /dev/null)

# 0. oneDNN, with the options cmake/cpu_extension.cmake gives it.
DNNL=$OUT/onednn/install
if [ ! -f "$DNNL/lib/libdnnl.a" ]; then
  cmake -S "$DNNL_SRC" -B "$OUT/onednn/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$DNNL" $LAUNCHER \
    -DONEDNN_LIBRARY_TYPE=STATIC -DONEDNN_BUILD_DOC=OFF -DONEDNN_BUILD_EXAMPLES=OFF -DONEDNN_BUILD_TESTS=OFF \
    -DONEDNN_ENABLE_WORKLOAD=INFERENCE "-DONEDNN_ENABLE_PRIMITIVE=MATMUL;REORDER" -DONEDNN_BUILD_GRAPH=OFF \
    -DONEDNN_ENABLE_JIT_PROFILING=ON -DONEDNN_ENABLE_ITT_TASKS=OFF -DONEDNN_ENABLE_MAX_CPU_ISA=ON \
    -DONEDNN_ENABLE_CPU_ISA_HINTS=ON -DONEDNN_VERBOSE=ON > "$OUT/onednn.log" 2>&1 \
    && ninja -C "$OUT/onednn/build" install >> "$OUT/onednn.log" 2>&1 || { tail -20 "$OUT/onednn.log"; exit 1; }
fi

# What both sides compile with and link, as cpu_extension.cmake gives the library: its flags, oneDNN
# (dnnl_helper.cpp an object library of its own, as vLLM's dnnl_ext, which reads oneDNN's src/ and is compiled
# for AVX2 whatever the library's ISA), libnuma, OpenMP.
flags() {  # target [its ISA flags]
  echo "set_target_properties($1 PROPERTIES CXX_STANDARD 20 CXX_EXTENSIONS ON POSITION_INDEPENDENT_CODE ON)
target_compile_options($1 PRIVATE ${2:-$ISA_FLAGS})
target_compile_definitions($1 PRIVATE VLLM_CPU_EXTENSION)
target_include_directories($1 PRIVATE $V/csrc $PYTHON_INCLUDE $DNNL/include)"
}
common() {  # the extension's target
  echo "find_package(OpenMP REQUIRED)
_opgen_find_torch()
add_library(dnnl_ext OBJECT $V/csrc/cpu/dnnl_helper.cpp)
$(flags dnnl_ext "-mf16c -mavx2")
target_include_directories(dnnl_ext PRIVATE $DNNL_SRC/src)
target_link_libraries(dnnl_ext PRIVATE opgen_torch)
$(flags "$1")
target_compile_definitions($1 PRIVATE TORCH_EXTENSION_NAME=_C)
target_link_libraries($1 PRIVATE dnnl_ext $DNNL/lib/libdnnl.a OpenMP::OpenMP_CXX numa)"
}

# 1. The import, as docs/import.md's table reads the AVX2 build.
rm -rf "$OUT/imported"
(cd "$V" && "$OPGEN" import -I csrc -D TORCH_EXTENSION_NAME=_C $ISA_DEFINES --schemas-dir "$OUT/imported/schemas" \
   --python-dir "$OUT/imported/python" csrc/cpu/torch_bindings.cpp > "$OUT/import.log")
grep -E "ops imported|need a person|: delete|opgen_add_library|target_|#" "$OUT/import.log"

# 2. The project's side.
mkdir -p "$OUT/project"
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(vllm_cpu_project CXX)
include($root/cmake/Opgen.cmake)
add_library(_C MODULE $ALL $V/csrc/cpu/torch_bindings.cpp)
set_target_properties(_C PROPERTIES PREFIX "")
target_link_libraries(_C PRIVATE opgen_torch)
$(common _C)
CM

# 3. The imported side: what the report says to delete from torch_bindings.cpp (its block, its Python module's
#    init), and the report's lines.
mkdir -p "$OUT/imported/src/csrc/cpu"
cp "$V/csrc/cpu/torch_bindings.cpp" "$OUT/imported/src/csrc/cpu/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" csrc/cpu/torch_bindings.cpp
cat > "$OUT/imported/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(vllm_cpu_imported CXX)
include($root/cmake/Opgen.cmake)
opgen_add_library(_C_ops NAMESPACE _C PYTHON_SOURCES python/_fakes.py SCHEMAS schemas KERNELS src/csrc/cpu/torch_bindings.cpp $ALL)
target_include_directories(_C_ops PRIVATE schemas)
$(common _C_ops)
CM
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DPython3_EXECUTABLE="$PY" \
    -DOPGEN_EXECUTABLE="$OPGEN" -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER > "$OUT/$side.configure.log" 2>&1 \
    || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side"
done
