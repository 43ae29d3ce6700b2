import torch
from torch import Tensor

lib = torch.library.Library("seedao", "FRAGMENT")
lib.define("prepack(Tensor weight, Tensor scales) -> (Tensor, Tensor)")
lib.define("view_of(Tensor(a) x) -> Tensor(a)")
lib.define("linear(Tensor x, Tensor w, ScalarType dtype) -> Tensor")


def register_custom_op(name):
    def decorator(func):
        return torch.library.register_fake(f"{name}")(func)

    return decorator


@register_custom_op("seedao::prepack")
def _(weight: Tensor, scales: Tensor) -> Tensor:
    return (weight, scales)


@register_custom_op("seedao::view_of")
def _(x, *, y=None):
    return x


@register_custom_op("seedao::linear")
def _(x: Tensor, w: Tensor, dtype: torch.dtype) -> Tensor:
    return x.new_empty((x.shape[0], w.shape[0]), dtype=dtype), return_ (
