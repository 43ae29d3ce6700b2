import torch
from torch.library import triton_op, wrap_triton


def _halve(x: torch.Tensor) -> torch.Tensor:
    return x / 2


halve = torch.library.custom_op("calls::halve", _halve, mutates_args=())
negate = torch.library.custom_op("calls::negate", mutates_args=())(_halve)
OPS = {"nested": torch.library.custom_op("calls::nested", _halve, mutates_args=())}
torch.library.custom_op("calls::bare", _halve, mutates_args=())
unknown = torch.library.custom_op("calls::unknown", _missing, mutates_args=())
computed = torch.library.custom_op(f"calls::{name}", _halve, mutates_args=())


@halve.register_fake
def _halve_fake(x):
    return torch.empty_like(x)


@halve.register_kernel("cpu")
def _halve_cpu(x):
    return x / 2


halve.register_autograd(lambda ctx, grad: grad / 2)
negate.register_vmap(None)
negate.register_torch_dispatch(object, None)
halve.register_kernel(device)(_halve_cpu)


@triton_op("calls::traced", mutates_args={})
def traced(x: torch.Tensor, a: float = 2.0) -> torch.Tensor:
    return x * a


@traced.register_fake
def _traced_fake(x, a=2.0):
    return torch.empty_like(x)


@torch.library.triton_op("calls::traced_on_devices", mutates_args=(), device_types="cuda")
def traced_on_devices(x: torch.Tensor) -> torch.Tensor:
    return x


@triton_op("calls::unclosed", mutates_args={})
def unclosed(x: torch.Tensor -> torch.Tensor:
    return x


direct_register_custom_op(op_name="helper_op", op_func=_halve, fake_impl=_halve_fake)
direct_register_custom_op(f"helper_{x}", _halve, ["x"], dispatch_key=current_platform.dispatch_key)


helper_lib = Library("calls", "FRAGMENT")


def direct_register_custom_op(
    op_name, op_func, mutates_args=None, fake_impl=None, target_lib=None, dispatch_key=None, tags=(),
):
    my_lib = target_lib or helper_lib
    my_lib.define(op_name + infer_schema(op_func, mutates_args=mutates_args), tags=tags)
    my_lib.impl(op_name, op_func, dispatch_key=dispatch_key)
    if fake_impl is not None:
        my_lib._register_fake(op_name, fake_impl)


direct_register_custom_op("helped", _halve, None, _halve_fake, None, "CUDA", (torch.Tag.pt2_compliant_tag,))
direct_register_custom_op("helped_mut", _halve, mutates_args=[x for x in names], target_lib=elsewhere_lib)
direct_register_custom_op("helped_tags", _halve, tags=tag_cudagraph_unsafe)
