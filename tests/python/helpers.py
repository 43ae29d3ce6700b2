"""Checks every op test uses: fake vs real, torch.compile without graph breaks."""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode


def assert_fake_matches_real(op, args, kwargs=None):
    """Runs `op` on real and on fake copies of `args`; shapes and dtypes must agree."""
    kwargs = kwargs or {}
    real = op(*args, **kwargs)
    with FakeTensorMode(allow_non_fake_inputs=False) as mode:
        fake_args = torch.utils._pytree.tree_map_only(torch.Tensor, mode.from_tensor, args)
        fake = op(*fake_args, **kwargs)
    real_leaves = torch.utils._pytree.tree_leaves(real)
    fake_leaves = torch.utils._pytree.tree_leaves(fake)
    assert len(real_leaves) == len(fake_leaves)
    for r, f in zip(real_leaves, fake_leaves):
        assert tuple(f.shape) == tuple(r.shape), (f.shape, r.shape)
        assert f.dtype == r.dtype, (f.dtype, r.dtype)
        assert f.device == r.device


def compile_fullgraph(fn, dynamic):
    """torch.compile that fails on any graph break; aot_eager traces through
    the fakes and functionalization without paying for Inductor codegen."""
    return torch.compile(fn, fullgraph=True, dynamic=dynamic, backend="aot_eager")


def clone_args(args):
    return torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.detach().clone(), args)
