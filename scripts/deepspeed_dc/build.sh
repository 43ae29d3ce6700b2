#!/bin/bash
# DeepSpeed's DeepCompile ops (csrc/compile: the `dc` namespace's 14 ops, their CPU, CUDA and Meta impls, and a
# PYBIND11_MODULE of 17 functions its Python calls, `init`, `register_param`..., that share the kernels' state)
# built twice from the same, unchanged sources, as its op builder (op_builder/dc.py) compiles them, against the
# torch of $VENV:
#   $OUT/build-project  - DeepSpeed's own extension `dc_op`: the six sources, its C++ flags
#   $OUT/build-imported - what `opgen import` writes from them, built with the lines its report prints, in a copy
#                         of csrc/ in which what the report says to delete is deleted (scripts/apply_deletions.py);
#                         the pybind11 module stays in the library (PYTHON_API), named dc_op as the op builder
#                         names it, and Python imports it through a link named dc_op<extension suffix>
# Then each side is loaded in its own process: what it registers is compared (scripts/vllm_subset/registered.py),
# and each side's `dc_op` module is imported and called (its profiling switch, kept in the kernels' state).
#
#   scripts/deepspeed_dc/build.sh <DeepSpeed tree> [OUT=build-deepspeed-dc]
# The tree: a DeepSpeed checkout (tested: deepspeedai/DeepSpeed at edaa72212). Nothing in it is written. NCCL's
# headers from torch's nvidia-nccl wheel; about 5 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
D=$(cd "${1:?usage: build.sh <DeepSpeed tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-deepspeed-dc}" && cd "${2:-$root/build-deepspeed-dc}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
source "$root/scripts/lib/both_ways.sh"
SOURCES="csrc/compile/deepcompile.cpp csrc/compile/init.cpp csrc/compile/z1.cpp csrc/compile/z2.cpp csrc/compile/z3.cpp csrc/compile/util.cpp"
SITE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
PYTHON_INCLUDE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
CUDA_INCLUDE=$(dirname "$(command -v nvcc)")/../include
NCCL=$SITE/nvidia/nccl
# op_builder's flags for torch 2.11 (TorchCPUOpBuilder with CUDA: -O3 -std=c++17 -Wno-reorder, OpenMP,
# __ENABLE_CUDA__; its -march=native and SIMD width left out: these sources use neither), on both sides.
COMMON="include($root/cmake/Opgen.cmake)
find_package(CUDAToolkit REQUIRED)
find_package(OpenMP REQUIRED)
add_library(nccl SHARED IMPORTED)
set_target_properties(nccl PROPERTIES IMPORTED_LOCATION $NCCL/lib/libnccl.so.2)"
FLAGS="-O3 -Wno-reorder -D__ENABLE_CUDA__"

# 1. The import, from the tree's root, as docs/import.md's table reads it.
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project"
(cd "$D" && "$OPGEN" import -I csrc/includes -I csrc/compile --schemas-dir "$OUT/imported/schemas" \
   --python-dir "$OUT/imported/python" $SOURCES > "$OUT/import.log")
grep -E "ops imported|Python package|need a person|too,|opgen_add_library|target_" "$OUT/import.log" | cut -c1-300
ls "$OUT/imported/schemas" | sed -n 's/\.yaml$//p' | sed 's/^/dc /' > "$OUT/keep.txt"  # every op imported

# 2. The project's side.
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(dc_project CXX)
$COMMON
_opgen_find_torch()
add_library(dc_op MODULE $(for s in $SOURCES; do echo -n " $D/$s"; done))
set_target_properties(dc_op PROPERTIES PREFIX "" CXX_STANDARD 17)
target_include_directories(dc_op PRIVATE $D/csrc/includes $D/csrc/compile $PYTHON_INCLUDE $CUDA_INCLUDE $NCCL/include)
target_compile_definitions(dc_op PRIVATE TORCH_EXTENSION_NAME=dc_op)
target_compile_options(dc_op PRIVATE $FLAGS)
target_link_libraries(dc_op PRIVATE opgen_torch torch_cuda c10_cuda torch_python OpenMP::OpenMP_CXX CUDA::cudart nccl)
CM

# 3. The imported side: csrc/ copied, what the report says to delete deleted there; the pybind11 module moved
#    into module.cpp (the lines the report names, after init.cpp's includes), built as the project's extension.
cp -a "$D/csrc" "$OUT/imported/src/"
python3 "$root/scripts/apply_deletions.py" "$OUT/import.log" "$OUT/imported/src" > "$OUT/deletions.log"
{
  echo "cmake_minimum_required(VERSION 3.25)
project(dc_imported CXX)
$COMMON"
  grep -oP '^ *\K(opgen_add_library|target_include_directories)\(.*\)$' "$OUT/import.log" \
    | sed -E "s#( |\()csrc/#\1$OUT/imported/src/csrc/#g"
  # What the op builder gives every source besides: CUDA's and NCCL's headers (deepcompile.h includes c10d's NCCL
  # utilities; Python's come with the report's PYTHON_API), its flags, and what the kernels call: the CUDA
  # runtime, NCCL, OpenMP, torch's CUDA libraries.
  echo "target_include_directories(dc_ops PRIVATE $CUDA_INCLUDE $NCCL/include)
target_compile_options(dc_ops PRIVATE $FLAGS)
target_link_libraries(dc_ops PRIVATE torch_cuda c10_cuda OpenMP::OpenMP_CXX CUDA::cudart nccl)
# The module's name, as the op builder defines it (the report: define its name as the project's build does).
target_compile_definitions(dc_ops PRIVATE TORCH_EXTENSION_NAME=dc_op)"
} > "$OUT/imported/CMakeLists.txt"
build_sides -DOPGEN_ENABLE_CUDA=OFF

# 4. Each side in its own process (libcuda's stub stands in for a driver where there is none): what it registers,
#    compared; then its dc_op module, imported and called.
EXTRA_LIBRARY_PATH=$NCCL/lib
compare_registered "$OUT/build-project/dc_op.so" dc
# The imported side's module: a link to the library named as the module, as the report says.
EXT=$("$PY" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p "$OUT/module"
ln -sf "$OUT/build-imported/python/dc/libdc_ops.so" "$OUT/module/dc_op$EXT"
for side in project imported; do
  run_python -c "
import importlib.util, sys, torch
if '$side' == 'imported':  # the package loads the library; the module is the same file, loaded once
    sys.path[:0] = ['$OUT/build-imported/python', '$OUT/module']
    import dc  # noqa: F401
    import dc_op
else:
    spec = importlib.util.spec_from_file_location('dc_op', '$OUT/build-project/dc_op.so')
    dc_op = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dc_op)
before = dc_op.is_profiling()
dc_op.enable_profiling(True)
mapped = {line.split()[-1] for line in open('/proc/self/maps') if 'dc_op' in line or 'libdc_ops' in line}
print('$side: dc_op.is_profiling()', before, '-> enable_profiling(True) ->', dc_op.is_profiling(),
      '; dc::test_call:', torch.equal(torch.ops.dc.test_call(torch.arange(3)), torch.arange(3)),
      '; files mapped:', len(mapped))
" 2>&1 | tail -1
done
