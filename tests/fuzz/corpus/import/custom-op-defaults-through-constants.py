import torch
import torch.nn.functional as F
from torch.nn.functional import SwizzleType
from .config import e4m3_dtype

_SCALING = (
    int(F.ScalingType.TensorWise) if hasattr(F, "ScalingType") else 0
)
BLOCK: int = 128
EPS = 1e-6
STEP = EPS
HALF = torch.bfloat16
TWICE = 1
TWICE = 2
LOOP = LOOP_BACK
LOOP_BACK = LOOP
if torch.cuda.is_available():
    PICKED = 1
else:
    PICKED = 2


@torch.library.custom_op("ns::scaled", mutates_args=())
def scaled(x: torch.Tensor, s: int = _SCALING, b: int = BLOCK, e: float = STEP, d: torch.dtype = HALF,
           w: int = int(SwizzleType.SWIZZLE_32_4_4), p: int = PICKED) -> torch.Tensor:
    return x.clone()


@scaled.register_fake
def _(x, s=_SCALING, b=BLOCK, e=STEP, d=None, w=1, p=1):
    return torch.empty_like(x)


@torch.library.custom_op("ns::later", mutates_args=())
def later(x: torch.Tensor, d: torch.dtype = e4m3_dtype, n: int = LOOP, t: int = TWICE) -> torch.Tensor:
    return x.clone()
