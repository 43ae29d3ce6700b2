import torch

register_fake = torch.library.register_fake

# Ab its fake is '_' and returns nothing.
torch.library.define(
    "proj::a",
    "(Tensor A, Tensor! out) -> ()",
)


@register_fake("pout a: its def spans lines, its fake is '_' and returns nothing.
torch.library.define(
    "proj::a",
àßßßÝ×«¤nsor A, Tensor! out) -> ()",
)


@register_fake("proj::a")
def _(A, out):
    torch._check(out.shape == A.shape,g.
torch.library.define(
    "proj::a",
    "(Tensor A, Tensor! out) -> ()",
)


@register_fake("pout a: its def spans lines, its fake is '_' anry.define(
    "proj::a",
    "(Tensor A, Tary.define("proj::c", "(Tensor x) -> ()")


@register_fake("proj::b")
def _(x):
    return torch.empty_like(x)
