"""torch.library.opcheck and torch.compile(fullgraph=True) on one side's ops (vLLM's own build, or the package
opgen generated), on the inputs run_ops.py gives them; prints one JSON line per op: what passed, what failed
and its first line. vLLM's own build is loaded as vLLM's C++ registers it, without the fakes its Python
(vllm/_custom_ops.py) adds to some ops.
  check_ops.py project|imported <OUT of build.sh>"""
import json
import sys

import torch
from torch.library import opcheck

side, out_dir = sys.argv[1], sys.argv[2]
if side == "project":
    torch.ops.load_library(f"{out_dir}/build-project/_C.so")
else:
    sys.path.insert(0, f"{out_dir}/build-imported/python")
    import _C  # noqa: F401  - the generated package loads its library
C = torch.ops._C
torch.manual_seed(0)
n, d = 7, 256
x, w = torch.randn(n, d), torch.randn(d)
CASES = {
    "silu_and_mul": (torch.empty(n, d), torch.randn(n, 2 * d)),
    "gelu_new": (torch.empty(n, d), x),
    "rms_norm": (torch.empty(n, d), x, w, 1e-6),
    "fused_add_rms_norm": (x.clone(), torch.randn(n, d), w, 1e-6),
    "rotary_embedding": (torch.randint(0, 64, (5,)), torch.randn(5, 4 * 32), torch.randn(5, 2 * 32), 32,
                         torch.randn(64, 32), True),
    "static_scaled_int8_quant": (torch.empty(n, d, dtype=torch.int8), x, torch.tensor([0.05]), None),
    "dynamic_scaled_int8_quant": (torch.empty(n, d, dtype=torch.int8), x, torch.empty(n, 1), None),
    "fused_gdn_gating_cpu": (torch.rand(4), torch.rand(3, 4, dtype=torch.bfloat16),
                             torch.rand(3, 4, dtype=torch.bfloat16), torch.rand(4, dtype=torch.bfloat16)),
    "expand_kernel_impl": (torch.empty(6, dtype=torch.int64), torch.tensor([3, -1, 5]), torch.tensor([2, 3, 6]), -1,
                           0),
}
for name, args in CASES.items():
    op = getattr(C, name).default
    line = {"side": side, "op": name}
    try:
        opcheck(op, args)
        line["opcheck"] = "pass"
    except Exception as error:  # noqa: BLE001 - reported
        line["opcheck"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]
    try:
        torch._dynamo.reset()
        clones = lambda: [a.clone() if isinstance(a, torch.Tensor) else a for a in args]  # noqa: E731
        eager, compiled = clones(), clones()
        expect = op(*eager)
        got = torch.compile(lambda *a: op(*a), fullgraph=True)(*compiled)
        same = all(torch.equal(a, b) for a, b in zip(eager, compiled) if isinstance(a, torch.Tensor))
        if isinstance(expect, tuple):
            same = same and all(torch.equal(a, b) for a, b in zip(expect, got))
        line["compile"] = "bit-identical to eager" if same else "differs from eager"
    except Exception as error:  # noqa: BLE001 - reported
        line["compile"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]
    print(json.dumps(line), flush=True)
