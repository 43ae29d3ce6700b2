import torch
from . import helpers
from ..shapes import rows
if hasattr(torch, "float8_e4m3fn"):
    import math
try:
    import triton
except ImportError:
    triton = None

lib = torch.library.Library("seed", "FRAGMENT")
lib.define("mm(Tensor a, Tensor b) -> Tensor")
lib.define("scale(Tensor x, float s) -> Tensor")


@torch.library.impl(lib, "mm", "Meta")
def _(a, b):
    return a.new_empty((rows(a) + helpers.half(math.floor(2.5)), b.shape[1]))


@torch.library.impl(lib, "mm", "CUDA")
def mm_cuda(a, b):
    return a @ b


def scale_meta(x, s):
    return torch.empty_like(x)


lib.impl("scale", scale_meta, "Meta")
lib.impl("scale", lambda x, s: x * s, "CPU")
