"""What the comparisons' run_ops.py record per case (scripts/vllm_subset for vLLM's CUDA ops, scripts/vllm_cpu for its
CPU extension, scripts/torchao_cpu, scripts/torchvision_cpu), so that compare.py reads the two sides alike; and the
opcheck and torch.compile line each prints per op."""
import json
import re
import traceback
import zlib

import torch


class Cases(dict):
    """Case name -> its outputs (tensors on the CPU; other values as tensors), or the error it raised. An op that
    raises costs its case, not the run; `sync` (torch.cuda.synchronize) makes a kernel's error its case's."""

    def __init__(self, sync=None):
        super().__init__()
        self.sync = sync

    def __call__(self, name, run):
        torch.manual_seed(zlib.crc32(name.encode()))  # the same inputs in both processes (str hash is salted)
        try:
            value = run()
            if self.sync:
                self.sync()
            value = () if value is None else value if isinstance(value, tuple) else (value,)
            self[name] = tuple(v.cpu() if isinstance(v, torch.Tensor) else torch.tensor(v) for v in value)
        except Exception as error:  # noqa: BLE001 - recorded, both sides compared
            message = str(error).splitlines()[0] if str(error) else ""
            message = re.sub(r"^\[F\d+ [\d:.]+ ", "[", message)  # c10's TORCH_CHECK_EQ-style prefix stamps the time
            self[name] = f"raised {type(error).__name__}: {message}"
            traceback.print_exc(limit=1)


def first_line(error):
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]


def check_ops(side, ops, checks):
    """For each op name -> arguments in `checks`, one JSON line: torch.library.opcheck's verdict, and whether
    torch.compile(fullgraph=True) gives eager's results bit for bit (floats compared as their bytes)."""
    def as_bytes(t):
        return t.contiguous().reshape(-1).view(torch.uint8) if t.is_floating_point() else t

    for name, args in checks.items():
        op = getattr(ops, name).default
        line = {"side": side, "op": name}
        try:
            torch.library.opcheck(op, args)
            line["opcheck"] = "pass"
        except Exception as error:  # noqa: BLE001 - reported
            line["opcheck"] = first_line(error)
        try:
            torch._dynamo.reset()
            expect, got = op(*args), torch.compile(lambda *a: op(*a), fullgraph=True)(*args)
            expect, got = (v if isinstance(v, tuple) else (v,) for v in (expect, got))
            same = all(torch.equal(as_bytes(a.detach()), as_bytes(b.detach())) for a, b in zip(expect, got))
            line["compile"] = "bit-identical" if same else "differs"
        except Exception as error:  # noqa: BLE001 - reported
            line["compile"] = first_line(error)
        print(json.dumps(line))
