#!/bin/bash
# TorchMD-Net's TensorNet ops (torchmdnet/extensions/warp_ops): 25 ops in three namespaces (`tensornet`, `nvtnet`,
# `torchmdnet`), each a torch.library.custom_op over an NVIDIA Warp kernel, for CPU and CUDA alike, written on
# `def _` and followed by its fake, another `def _`; autograd and double backward registered in Python by the op's
# name (`torch.library.register_autograd("tensornet::..._fwd_primitive", ...)`, whose backward is itself an op with
# its own). Nothing to compile: Warp builds its kernels at the first call. Two sides, from the same, unchanged
# kernels:
#   $OUT/project  - a copy of the package as it is
#   $OUT/imported - what one `opgen import` of the three namespaces writes, `opgen generate` per namespace (the
#                   report's lines), and a copy of the package changed as the report says
#                   (scripts/apply_python_deletions.py: the fakes' registrations out, each custom_op decorator
#                   `@op_kernel(...)`)
# No bit-for-bit comparison of the two: on a CPU, the project's own Warp kernels corrupt the heap in its own build
# (compose_tensor's backward on 1 atom and 1 channel aborts at once; its double backward on 7 atoms and 16 channels a
# few calls later; faulthandler names the op), so a run's later results would say nothing of the switch. What this
# script proves is the switch itself: one import, three packages generated, the package changed by the report's
# lines alone, both sides importing and registering the same 25 schemas (their keys: docs/import.md).
#   scripts/torchmdnet_warp/build.sh <tree> [OUT=build-torchmdnet-warp]
# The tree: `fetch github:torchmd/torchmd-net` (833c077 was compared), its torchmdnet/ (git archive HEAD torchmdnet).
# Warp: `pip install --target <dir> warp-lang` (1.19.0 was used; its CPU backend), that <dir> as WARP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=$(cd "${1:?usage: build.sh <tree> [OUT]}" && pwd)
OUT=$(mkdir -p "${2:-$root/build-torchmdnet-warp}" && cd "${2:-$root/build-torchmdnet-warp}" && pwd)
OPGEN=${OPGEN:-$root/build/codegen/opgen}
WARP=${WARP:?WARP: the directory warp-lang is installed in}

rm -rf "$OUT/imported" "$OUT/project"
mkdir -p "$OUT/imported/src" "$OUT/project/src"
(cd "$T" && "$OPGEN" import --schemas-dir "$OUT/imported/schemas" --python-dir "$OUT/imported/python" \
   torchmdnet/extensions/warp_ops > "$OUT/import.log")
grep -E "ops imported|need a person|opgen generate" "$OUT/import.log"
cp -r "$T/torchmdnet" "$OUT/project/src/"
cp -r "$T/torchmdnet" "$OUT/imported/src/"
python3 "$root/scripts/apply_python_deletions.py" "$OUT/import.log" "$OUT/imported/src"
# The report's `opgen generate` lines, each package's fakes then copied into it, as it says.
python3 - "$OUT" "$OPGEN" <<'PY'
import re, shutil, subprocess, sys
out, opgen = sys.argv[1], sys.argv[2]
for line in open(f"{out}/import.log"):
    m = re.match(r" *next: generate the package, nothing to build \(no C\+\+ kernel\): opgen generate (.*?)"
                 r"(?:, then copy (\S+) into the package)?$", line.rstrip("\n"))
    if not m:
        continue
    ns = re.search(r"--namespace (\S+)", m[1])[1]
    args = m[1].replace("<dir>", f"{out}/imported/gen").split()  # <dir>/<ns>: generate owns its -o
    subprocess.run([opgen, "generate", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    named = re.search(r"--python-package (\S+)", m[1])
    package = named[1] if named else ns
    if m[2]:
        shutil.copy(m[2], f"{out}/imported/gen/{ns}/python/{package}/")
    print(f"generated: {package}")
PY

# Each side imports the project's ops module (Warp from $WARP) and writes what torch holds for the 25 ops: the schema
# and the keys with kernels, to diff.
for side in project imported; do
  PYTHONPATH="$WARP" python3 - "$OUT" "$side" <<'PY'
import glob, os, sys
out, side = sys.argv[1], sys.argv[2]
sys.path[:0] = [f"{out}/{side}/src", *sorted(glob.glob(f"{out}/{side}/gen/*/python"))]
import torch
import torchmdnet.extensions.warp_ops  # noqa: F401  (the imported side's load the generated packages)
keys = ("CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd")
with open(f"{out}/{side}-registered.txt", "w") as registered:
    for spec in sorted(glob.glob(f"{out}/imported/schemas/*/*.yaml")):
        ns, name = spec.split("/")[-2], os.path.basename(spec)[:-5]
        handle = getattr(getattr(torch.ops, ns), name).default
        has = [k for k in keys if torch._C._dispatch_has_kernel_for_dispatch_key(handle.name(), k)]
        registered.write(f"{handle._schema} {has}\n")
print(f"{side}: {len(open(f'{out}/{side}-registered.txt').readlines())} ops registered")
PY
done
# Each op's schema and the keys with kernels, the same on both sides (custom_op's Autograd kernel included: the
# package defines the ops through custom_op, `define: custom_op`).
diff "$OUT/project-registered.txt" "$OUT/imported-registered.txt"
echo "both sides: the same $(wc -l < "$OUT/project-registered.txt") schemas, with kernels at the same keys"
