"""Host objects the in-tree ops take (schemas/_types.yaml)."""

from __future__ import annotations

import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class Float8Quantizer:
    """How opgen_ops.cast_to_fp8 casts a tensor to float8: the format, the floor
    of amax, and whether scales are powers of 2 (TransformerEngine's quantizer
    configuration). Frozen and compared by value: torch.compile reads the
    fields at trace time and reuses a graph for an equal quantizer."""

    fp8_dtype: torch.dtype = torch.float8_e4m3fn
    amax_epsilon: float = 0.0
    force_pow_2_scales: bool = False
