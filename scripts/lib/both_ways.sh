# Sourced by the scripts that build a project both ways (scripts/xformers_cuda, deep_gemm_cuda, deepspeed_dc):
# the two builds, and each side's registrations read in a process of its own. Needs OUT, PY, OPGEN and root.

# build_sides <cmake option>...: configures and builds $OUT/project and $OUT/imported (Ninja, Release), each
# into $OUT/build-<side>, logs beside them; says how long each took, or shows the first errors and exits.
build_sides() {
  local side start
  for side in project imported; do
    cmake -S "$OUT/$side" -B "$OUT/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$PY" \
      -DOPGEN_EXECUTABLE="$OPGEN" "$@" > "$OUT/$side.configure.log" 2>&1 \
      || { tail -20 "$OUT/$side.configure.log"; exit 1; }
    start=$SECONDS
    ninja -C "$OUT/build-$side" > "$OUT/$side.build.log" 2>&1 || { grep -m5 -A10 "error" "$OUT/$side.build.log"; exit 1; }
    echo "built: $side ($((SECONDS - start)) s)"
  done
}

# libcuda_stub: a directory to put first on LD_LIBRARY_PATH where no driver is installed (libcuda's stub stands in
# for it, so CUDA libraries load), "" where one is.
libcuda_stub() {
  if ! ldconfig -p | grep -q "libcuda.so.1"; then
    mkdir -p "$OUT/stub"
    ln -sf "$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so" "$OUT/stub/libcuda.so.1"
    echo "$OUT/stub"
  fi
}

# run_python <argument>...: $PY in a process of its own, libcuda's stub and $EXTRA_LIBRARY_PATH on its path.
run_python() {
  local path
  path=$(printf '%s:' $(libcuda_stub) ${EXTRA_LIBRARY_PATH:-})${LD_LIBRARY_PATH:-}
  LD_LIBRARY_PATH=${path%:} "$PY" "$@"
}

# compare_registered <project library.so> <imported package>: what each side registers for the ops of
# $OUT/keep.txt, each loaded in a process of its own, compared.
compare_registered() {
  run_python "$root/scripts/vllm_subset/registered.py" project "$OUT" "$OUT/project.json" "$1"
  run_python "$root/scripts/vllm_subset/registered.py" imported "$OUT" "$OUT/imported.json" "$2"
  "$PY" "$root/scripts/vllm_subset/registered.py" compare "$OUT" "$OUT/project.json" "$OUT/imported.json"
}
