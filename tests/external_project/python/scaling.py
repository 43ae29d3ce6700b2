"""The host class opgen_ext.scale_by takes (schemas/_types.yaml)."""

import dataclasses
from typing import Optional

import torch


@dataclasses.dataclass
class Scaling:
    factor: float
    label: str = ""
    bias: Optional[torch.Tensor] = None
    out_dtype: Optional[torch.dtype] = None
