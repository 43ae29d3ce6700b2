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


def aot_call_targets(fn, *args, backward=False):
    """What the graphs AOTAutograd makes of fn(*args) under
    torch.compile(fullgraph=True) call: {"forward": [targets], "backward":
    [targets]}, the backward's after fn(*args).backward() (fn returns a scalar)."""
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_module_simplified

    graphs = {}

    def backend(gm, example_inputs):
        def keep(name):
            def compiler(inner, _):
                graphs[name] = [n.target for n in inner.graph.nodes if n.op == "call_function"]
                return make_boxed_func(inner.forward)
            return compiler

        return aot_module_simplified(gm, example_inputs, fw_compiler=keep("forward"), bw_compiler=keep("backward"))

    out = torch.compile(fn, backend=backend, fullgraph=True)(*args)
    if backward:
        out.backward()
    return graphs


def clone_args(args):
    return torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.detach().clone(), args)
