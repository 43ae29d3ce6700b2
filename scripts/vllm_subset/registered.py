"""What one side registers for the kept ops (<OUT>/keep.txt: `<ns> <op>` per line), in a process of its own: each
op's schema as torch prints it and the dispatch keys with a kernel.
  registered.py project <OUT> <file.json> [<library.so>...]   (default: vLLM's two extensions in <OUT>/build-project)
  registered.py imported <OUT> <file.json> [<package>...]     (opgen's packages in <OUT>/build-imported/python;
                                                                default: one per namespace, named as it)
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
    # Meta left out: the imported side registers a fake for each op from its package, the project registers its
    # fakes from Python (vllm/_custom_ops.py), which this check does not load.
    keys = sum([k for k in project[op]["keys"] if k != "Meta"] == [k for k in imported[op]["keys"] if k != "Meta"]
               for op in project)
    print(f"{len(keep)} ops kept; registered by both: {len(project.keys() & imported.keys())}; "
          f"the same schema: {schemas}; the same backend keys: {keys}")
    sys.exit(0 if schemas == keys == len(keep) == len(project) == len(imported) else 1)

import torch  # noqa: E402

if side == "project":
    for library in sys.argv[4:] or [f"{out}/build-project/{e}.so" for e in ("_C_stable_libtorch", "_moe_C_stable_libtorch")]:
        torch.ops.load_library(library)
else:
    sys.path.insert(0, f"{out}/build-imported/python")
    for package in sys.argv[4:] or sorted({ns for ns, _ in keep}):  # the packages as the report names them
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
