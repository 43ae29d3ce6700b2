"""What both vLLM comparisons' run_ops.py record per case (scripts/vllm_subset for the CUDA ops, scripts/vllm_cpu for
the CPU extension), so that compare.py reads the two sides alike."""
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
