#!/bin/bash
# torchao's CPU kernels (torchao/csrc/cpu/aten_kernels: the 6 ops its ops.py defines for them, their fakes
# registered as '_' through its own decorator, register_custom_op; the kernels in anonymous namespaces, their
# impls registered in C++), built twice from the same, unchanged kernel sources against the torch of $VENV:
#   $OUT/project  - torchao's own: ops.py as it is, and the `_C` library setup.py builds from the 4 sources
#   $OUT/imported - what `opgen import torchao/ops.py torchao/csrc/cpu/aten_kernels` writes, built with the
#                   opgen_add_library line its report prints (the kernels' impl blocks stay: internal linkage),
#                   and ops.py with the defs and fake registrations the report names taken out
# Both with setup.py's flags for a CPU with AVX-512 (USE_CPU_KERNELS=1: -O3 -march=native -mfma -fopenmp,
# CPU_CAPABILITY_AVX512 and _VNNI). Then, each side in its own process:
#   for s in project imported; do $VENV/bin/python scripts/torchao_cpu/run_ops.py $s $OUT $OUT/$s.pt; done
#   $VENV/bin/python scripts/vllm_subset/compare.py $OUT/project.pt $OUT/imported.pt
#
#   scripts/torchao_cpu/build.sh <torchao tree> [OUT=build-torchao-cpu]
# The tree: a torchao checkout (tested: pytorch/ao at 36027d82d); nothing in it is written. Needs a CPU with
# AVX-512 (the kernels' vectorized paths) and about 6 minutes on 2 cores (with ccache on the PATH, the second
# side's kernel objects are hits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <torchao tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-torchao-cpu}" && cd "${2:-$root/build-torchao-cpu}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
PY=$VENV/bin/python
LAUNCHER=$(command -v ccache > /dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
KERNELS=$(cd "$T" && ls torchao/csrc/cpu/aten_kernels/*.cpp)
"$PY" -c "import torch, sys; sys.exit(0 if torch.cpu._is_avx512_supported() else 'this CPU has no AVX-512')"
flags() {  # setup.py's, for the target
  echo "set_target_properties($1 PROPERTIES CXX_STANDARD 20 POSITION_INDEPENDENT_CODE ON)
find_package(OpenMP REQUIRED)
target_compile_options($1 PRIVATE -march=native -mfma)
target_compile_definitions($1 PRIVATE CPU_CAPABILITY_AVX512 CPU_CAPABILITY_AVX512_VNNI)
target_link_libraries($1 PRIVATE OpenMP::OpenMP_CXX)"
}

# 1. The import, from a copy of the files it reads (the report's paths are the tree's).
rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/torchao" "$OUT/project/torchao"
(cd "$T" && "$OPGEN" import --python-package torchao_ops --schemas-dir "$OUT/imported/schemas" \
   --python-dir "$OUT/imported/python" torchao/ops.py torchao/csrc/cpu/aten_kernels > "$OUT/import.log")
grep -E "ops imported|fake moved|need a person|opgen_add_library" "$OUT/import.log"

# 2. The project's side: ops.py as it is, in a package of its own (torchao's __init__ imports the whole library).
touch "$OUT/project/torchao/__init__.py" "$OUT/imported/torchao/__init__.py"
cp "$T/torchao/ops.py" "$OUT/project/torchao/ops.py"
KERNEL_PATHS=$(for k in $KERNELS; do echo -n " $T/$k"; done)
cat > "$OUT/project/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(torchao_cpu_project CXX)
include($root/cmake/Opgen.cmake)
_opgen_find_torch()
add_library(_C MODULE $KERNEL_PATHS)
set_target_properties(_C PROPERTIES PREFIX "")
target_link_libraries(_C PRIVATE opgen_torch)
$(flags _C)
CM

# 3. The imported side: ops.py without what the report says the package now registers (the defs' lines, and the
#    decorator lines of the fakes), and the report's opgen_add_library line with the kernels' paths.
lines=$(grep -oP "(defs of the \d+ ops|registrations of the \d+ fakes) the specs .*" "$OUT/import.log" \
  | grep -oP 'torchao/ops\.py:\K[0-9]+(-[0-9]+)?' | tr - , | sed 's/$/d/' | paste -sd';')
[ -n "$lines" ] || { echo "the report names nothing to take out of ops.py" >&2; exit 1; }
sed "$lines" "$T/torchao/ops.py" > "$OUT/imported/torchao/ops.py"
line=$(grep -oP '^ *\Kopgen_add_library\(.*\)$' "$OUT/import.log")
line=${line// torchao\/csrc/ $T/torchao/csrc}  # the kernels, as the tree has them (the specs' paths are absolute)
cat > "$OUT/imported/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(torchao_cpu_imported CXX)
include($root/cmake/Opgen.cmake)
$line
$(flags torchao_ops)
CM
for side in project imported; do
  cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" \
    -DPython3_EXECUTABLE="$PY" -DOPGEN_EXECUTABLE="$OPGEN" -DOPGEN_ENABLE_CUDA=OFF $LAUNCHER > "$OUT/$side.configure.log" 2>&1 \
    || { tail -20 "$OUT/$side.configure.log"; exit 1; }
  ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
  echo "built: $side"
done
