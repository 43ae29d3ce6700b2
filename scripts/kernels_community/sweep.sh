#!/bin/bash
# `opgen import` over every kernel of huggingface/kernels-community that has C++ bindings (<kernel>/torch-ext/*.cpp),
# as kernel-builder builds it for CUDA (-D CUDA_KERNEL, the namespace TORCH_EXTENSION_NAME, torch-ext/ and the
# include directories build.toml names on the path, and kernel-builder's registration.h, which it writes at build
# time), then `opgen generate` on what it wrote and each generated TU compiled (g++, syntax only) against the
# kernel's headers and the torch of $VENV: the check that "imported with their kernels as they are" holds, for
# kernels nobody here wrote.
# A hand-run script (it reads a tree CI does not have); one line per kernel, then the totals.
#
#   [ONLY="<kernel> ..."] scripts/kernels_community/sweep.sh <kernels-community tree> [CUTLASS source dir] [OUT=build-kernels-community]
# Tested: kernels-community at 40d4194f, CUTLASS 4.2.0.0 (the nvidia-cutlass wheel's cutlass_library/source).
# Nothing in the tree is written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
K=$(cd "${1:?usage: sweep.sh <kernels-community tree> [CUTLASS] [OUT]}" && pwd)
CUTLASS=${2:-}
OUT=$(mkdir -p "${3:-$root/build-kernels-community}" && cd "${3:-$root/build-kernels-community}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
VENV=${VENV:-$HOME/.cache/opgen/venv-torch-2.11.0}
TORCH=$("$VENV/bin/python" -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'include'))")
PYTHON_INCLUDE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
CUDA_INCLUDE=$(dirname "$(command -v nvcc)")/../include

# kernel-builder's registration.h, as it writes it (tests/python/test_import_project.py has the same macros).
mkdir -p "$OUT/include"
cat > "$OUT/include/registration.h" <<'H'
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

compile_tu() {  # <out dir> <TU>: its log beside it; prints the TU when it fails
  local o=$1 tu=$2
  g++ -std=c++20 -fsyntax-only -w -I "$o/gen/include" -isystem "$TORCH" -isystem "$TORCH/torch/csrc/api/include" \
    -isystem "$CUDA_INCLUDE" -isystem "$PYTHON_INCLUDE" $(cat "$o/flags") "$tu" > "$tu.log" 2>&1 || echo "$tu"
}
export -f compile_tu
export TORCH CUDA_INCLUDE PYTHON_INCLUDE

total_ops=0; total_kernels=0; total_tus=0; total_failed=0
for binding in "$K"/*/torch-ext/torch_binding.cpp; do
  dir=$(dirname "$(dirname "$binding")"); name=$(basename "$dir"); ns=${name//-/_}; o="$OUT/$name"
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && continue  # ONLY="relu megablocks": those alone
  rm -rf "$o"; mkdir -p "$o"
  # The include directories build.toml gives its torch extension and its CUDA kernels (and their headers'), and
  # torch-ext/.
  includes=$(python3 - "$dir/build.toml" <<'PY'
import sys, tomllib
toml = tomllib.load(open(sys.argv[1], "rb"))
dirs = ["torch-ext"] + toml.get("torch", {}).get("include", [])
for kernel in toml.get("kernel", {}).values():
    if kernel.get("backend") == "cuda":  # its include list, and where its headers are (megablocks' csrc/)
        dirs += kernel.get("include", [])
        dirs += [s.rsplit("/", 1)[0] for s in kernel.get("src", []) if s.endswith((".h", ".hpp")) and "/" in s]
print(" ".join(f"-I {d}" for d in dict.fromkeys(dirs)))
PY
)
  [ -n "$CUTLASS" ] && includes="$includes -I $CUTLASS/include"
  if ! (cd "$dir" && "$OPGEN" import $includes -I "$OUT/include" -D TORCH_EXTENSION_NAME="$ns" -D CUDA_KERNEL \
          --schemas-dir "$o/schemas" --python-dir "$o/python" torch-ext/*.cpp > "$o/import.log" 2>&1); then
    echo "$name: import: $(grep -m1 error "$o/import.log")"; continue
  fi
  ops=$(grep -oP '\d+(?= ops imported)' "$o/import.log" || echo 0)
  kernels=$(grep -oP '\d+(?= of them with their kernels as they are)' "$o/import.log" || echo 0)
  need=$(grep -oP '\d+(?= ops need a person)' "$o/import.log" || echo 0)
  fragment=$(grep -q 'opgen_add_library(.* FRAGMENT ' "$o/import.log" && echo --fragment || true)
  if ! "$OPGEN" generate --namespace "$ns" $fragment -o "$o/gen" "$o/schemas" > "$o/generate.log" 2>&1; then
    echo "$name: $ops imported, generate: $(grep -m1 error "$o/generate.log")"; continue
  fi
  # The report's include directories and definitions, from the kernel's directory.
  { for i in $(grep -oP 'target_include_directories\(\S+ PRIVATE \K[^)]*' "$o/import.log"); do
      case $i in /*) echo -n " -I $i" ;; *) echo -n " -I $dir/$i" ;; esac; done
    for d in $(grep -oP 'target_compile_definitions\(\S+ PRIVATE \K[^)]*' "$o/import.log"); do echo -n " -D$d"; done
  } > "$o/flags"
  tus=$(ls "$o"/gen/csrc/*.cpp | wc -l)
  failed=$(ls "$o"/gen/csrc/*.cpp | xargs -P 2 -I{} bash -c 'compile_tu "$0" "$1"' "$o" {} | wc -l)
  echo "$name: $ops ops imported ($need need a person), $kernels with their kernels; $tus generated TUs, $failed fail to compile$([ "$failed" = 0 ] || echo ": $(ls "$o"/gen/csrc/*.cpp.log | xargs grep -l error | head -1 | xargs grep -m1 error)")"
  total_ops=$((total_ops + ops)); total_kernels=$((total_kernels + kernels)); total_tus=$((total_tus + tus))
  total_failed=$((total_failed + failed))
done
echo "all: $total_ops ops imported, $total_kernels with their kernels; $total_tus generated TUs, $total_failed fail to compile"
