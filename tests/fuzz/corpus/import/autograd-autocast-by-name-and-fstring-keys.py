import torch
from torch.ops import attention_kernels

if torch.cuda.is_available() or True:
    @torch.library.register_fake("attention_kernels::forward")
    def _(kx, vx, qy, nh: int, nlon_out: int) -> torch.Tensor:
        return torch.empty((kx.shape[0], nlon_out), dtype=kx.dtype, device=kx.device)

    @torch.library.custom_op("attention_kernels::fused", mutates_args=())
    def fused(kx: torch.Tensor, vx: torch.Tensor, nh: int) -> torch.Tensor:
        return attention_kernels.forward.default(kx, vx, kx, nh, 4)

    @torch.library.register_fake("attention_kernels::fused")
    def _(kx, vx, nh):
        return torch.empty_like(kx)


def _backward(ctx, grad):
    return grad, grad, None


def _setup(ctx, inputs, output):
    ctx.nh = inputs[2]


torch.library.register_autograd("attention_kernels::fused", _backward, setup_context=_setup)
torch.library.register_autograd("attention_kernels::forward", lambda ctx, grad: (grad,) * 5)
torch.library.register_autocast("attention_kernels::fused", "cuda", torch.float16)
torch.library.register_autograd(name_at_run_time, _backward)


def _make_autocast_impl(device_type):
    @torch.library.impl("attention_kernels::fused", f"Autocast{device_type.upper()}")
    def _(kx, vx, nh):
        with torch.amp.autocast(device_type, enabled=False):
            return fused(kx.float(), vx.float(), nh)

    return _


_make_autocast_impl("cuda")
_make_autocast_impl("cpu")
