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


class Float8Tensor(torch.Tensor):
    """A tensor held in float8, as TransformerEngine's Float8Tensor holds it:
    the float8 bits (`_data`, as uint8) and the inverse of the scale they were
    cast with (`_scale_inv`, 0-dim float32), standing for `_data * _scale_inv`
    in `orig_dtype`. A wrapper subclass: torch.compile flattens it into its
    inner tensors (`__tensor_flatten__`), so a graph sees only plain tensors,
    and opgen's bindings flatten it at an op's boundary the same way
    (schemas/_types.yaml). Any other op sees the dequantized tensor."""

    _data: torch.Tensor
    _scale_inv: torch.Tensor
    fp8_dtype: torch.dtype
    orig_dtype: torch.dtype

    @staticmethod
    def __new__(cls, data: torch.Tensor, scale_inv: torch.Tensor, fp8_dtype: torch.dtype, orig_dtype: torch.dtype):
        return torch.Tensor._make_wrapper_subclass(
            cls, data.shape, strides=data.stride(), dtype=orig_dtype, device=data.device, requires_grad=False
        )

    def __init__(self, data: torch.Tensor, scale_inv: torch.Tensor, fp8_dtype: torch.dtype, orig_dtype: torch.dtype):
        self._data = data
        self._scale_inv = scale_inv
        self.fp8_dtype = fp8_dtype
        self.orig_dtype = orig_dtype

    def __repr__(self) -> str:
        return f"Float8Tensor(fp8_dtype={self.fp8_dtype}, orig_dtype={self.orig_dtype}, shape={tuple(self.shape)})"

    def __tensor_flatten__(self):
        return ["_data", "_scale_inv"], {"fp8_dtype": self.fp8_dtype, "orig_dtype": self.orig_dtype}

    @staticmethod
    def __tensor_unflatten__(inner: dict, meta: dict, outer_size, outer_stride):
        return Float8Tensor(inner["_data"], inner["_scale_inv"], meta["fp8_dtype"], meta["orig_dtype"])

    def dequantize(self, dtype: torch.dtype | None = None) -> torch.Tensor:
        """`_data * _scale_inv`, in `dtype` (default: `orig_dtype`)."""
        return (self._data.view(self.fp8_dtype).float() * self._scale_inv).to(dtype or self.orig_dtype)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.ops.aten.detach.default, torch.ops.aten.alias.default, torch.ops.aten.clone.default):
            (self,) = args
            return Float8Tensor(func(self._data), func(self._scale_inv), self.fp8_dtype, self.orig_dtype)
        # Everything else computes on the dequantized values.
        unwrap = lambda t: t.dequantize() if isinstance(t, Float8Tensor) else t  # noqa: E731
        return func(*torch.utils._pytree.tree_map(unwrap, args), **torch.utils._pytree.tree_map(unwrap, kwargs))
