import torch

register_fake = torch.library.register_fake

# About a: its def spans lines, its fake is '_' and returns nothing.
torch.library.define(
    "proj::a",
    "(Tensor A, Tensor! out) -> ()",
)


@register_fake("proj::a")
def _(A, out):
    torch._check(out.shape == A.shape, lambda: "out must match A")
    # the body's last words

# About b, which follows: this comment stays with b's def.
torch.library.define("proj::b", "(Tensor x) -> Tensor")
_ = torch.library.define("proj::c", "(Tensor x) -> ()")


@register_fake("proj::b")
def _(x):
    return torch.empty_like(x)
