"""What one side registers for the kept ops, in a process of its own: each op's schema as torch prints it and
the dispatch keys with a kernel.
  registered.py project|imported <OUT> <file.json>   (project: vLLM's extension; imported: opgen's packages)
  registered.py compare <OUT> <project.json> <imported.json>
"""
import importlib
import json
import sys

side, out = sys.argv[1], sys.argv[2]
keep = [line.split() for line in open(f"{out}/keep.txt")]
if side == "compare":
    project, imported = (json.load(open(path)) for path in sys.argv[3:5])
    schemas = sum(project[op]["schema"] == imported[op]["schema"] for op in project)
    # The imported side adds a Meta kernel, the fake its package registers; the project registers its fakes
    # from Python (vllm/_custom_ops.py), which this check does not load.
    keys = sum(project[op]["keys"] == [k for k in imported[op]["keys"] if k != "Meta"] for op in project)
    print(f"{len(keep)} ops kept; registered by both: {len(project.keys() & imported.keys())}; "
          f"the same schema: {schemas}; the same backend keys: {keys}")
    sys.exit(0 if schemas == keys == len(keep) == len(project) == len(imported) else 1)

import torch  # noqa: E402

if side == "project":
    for extension in ("_C_stable_libtorch", "_moe_C_stable_libtorch"):
        torch.ops.load_library(f"{out}/build-project/{extension}.so")
else:
    sys.path.insert(0, f"{out}/build-imported/python")
    for package in sorted({ns for ns, _ in keep}):  # the packages as the report names them
        importlib.import_module(package)
keys = ["CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Meta"]
found = {}
for ns, op in keep:
    name, _, overload_name = op.partition(".")  # a spec per overload: `scaled_fp4_quant.out`
    overload = getattr(getattr(getattr(torch.ops, ns), name), overload_name or "default")
    found[f"{ns}::{op}"] = {
        "schema": str(overload._schema),
        "keys": [k for k in keys if torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), k)],
    }
json.dump(found, open(sys.argv[3], "w"), indent=1, sort_keys=True)
print(f"{side}: {len(found)} ops loaded")
