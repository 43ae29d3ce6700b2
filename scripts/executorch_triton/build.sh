#!/bin/bash
# ExecuTorch's CUDA Triton kernels (backends/cuda/triton/kernels): 14 ops in the namespace `triton`, each a
# torch.library.triton_op over Triton kernels launched through wrap_triton, with a fake of its own registered on the
# triton_op object (`@sdpa.register_fake`), as torch.export needs. Nothing to compile: Triton builds its kernels at
# the first call, on a GPU. Two sides, from the same, unchanged kernels:
#   $OUT/project  - a copy of the kernels as they are
#   $OUT/imported - what one `opgen import` of the directory writes, the package `opgen generate` writes from it (the
#                   report's line), and a copy of the kernels changed as the report says
#                   (scripts/apply_python_deletions.py: the fakes' registrations out, each triton_op decorator
#                   `@op_kernel(...)`)
# Each side imports the seven kernel modules and writes, per op, its schema, the keys with kernels, its tags and
# whether torch.library holds a custom_op object for it (triton_op's), then the two are diffed. No kernel runs: they
# need a GPU (issue 34: run them when one is lent).
#   scripts/executorch_triton/build.sh <root> [OUT=build-executorch-triton]
# The root: a directory holding `executorch/`, the repository's tree (`fetch github:pytorch/executorch`, cff6f4dd32
# was compared; `git archive HEAD backends/cuda/triton LICENSE`, under executorch/). Triton: `pip install --no-deps
# --target <dir> triton` (3.9.0 was used) and, for chunk_gated_delta_rule, flash-linear-attention and fla-core
# (0.6.0; each into its own target, fla-core's fla/ then merged into the first's) and einops, that <dir> as TRITON;
# their modules are imported, nothing is compiled.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <root> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-executorch-triton}" && cd "${2:-$root/build-executorch-triton}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
TRITON=${TRITON:?TRITON: the directory triton is installed in}
K=executorch/backends/cuda/triton/kernels

rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project/src"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" "$K" \
   > "$OUT/import.log")
grep -E "ops imported|need a person|opgen generate" "$OUT/import.log"
cp -r "$T/executorch" "$OUT/project/src/"
cp -r "$T/executorch" "$OUT/imported/src/"
python3 "$root/scripts/apply_python_deletions.py" "$OUT/import.log" "$OUT/imported/src"
generate=$(sed -n 's/^ *next: generate the package, nothing to build (no C++ kernel): opgen generate \(.*\)$/\1/p' \
           "$OUT/import.log")
"$OPGEN" generate ${generate//<dir>/$OUT/imported/gen} > /dev/null

for side in project imported; do
  PYTHONPATH="$TRITON" python3 - "$OUT" "$side" "$K" <<'PY'
import glob, os, sys, types
out, side, kernels = sys.argv[1:4]
sys.path[:0] = [f"{out}/{side}/src", f"{out}/{side}/gen/python", f"{out}/imported/gen/python"][:2 if side == "project" else 3]
import torch
from torch._library.custom_ops import _maybe_get_opdef
# The kernels alone: their parent package's __init__ imports ExecuTorch's exporter (exir), which is not here.
parent = types.ModuleType("executorch.backends.cuda.triton")
parent.__path__ = [f"{out}/{side}/src/executorch/backends/cuda/triton"]
sys.modules[parent.__name__] = parent
if side == "imported":
    import triton_ops  # noqa: F401  (the package defines the ops; the modules' op_kernel names call them)
for module in sorted(glob.glob(f"{out}/{side}/src/{kernels}/*.py")):
    name = os.path.relpath(module, f"{out}/{side}/src")[:-3].replace("/", ".")
    __import__(name)
keys = ("CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd", "ADInplaceOrView")
with open(f"{out}/{side}-registered.txt", "w") as registered:
    for spec in sorted(glob.glob(f"{out}/imported/schemas/*.yaml")):
        handle = getattr(torch.ops.triton, os.path.basename(spec)[:-5]).default
        has = [k for k in keys if torch._C._dispatch_has_kernel_for_dispatch_key(handle.name(), k)]
        opdef = type(_maybe_get_opdef(handle.name())).__name__
        registered.write(f"{handle._schema} {has} {sorted(str(t) for t in handle.tags)} {opdef}\n")
print(f"{side}: {len(open(f'{out}/{side}-registered.txt').readlines())} ops registered")
PY
done
diff "$OUT/project-registered.txt" "$OUT/imported-registered.txt"
echo "both sides: the same $(wc -l < "$OUT/project-registered.txt") schemas, kernels at the same keys, the same tags, \
each a custom_op object"
