"""The checks behind every generated test suite (tests/test_<pkg>_ops.py).

A generated suite holds only what its specs say (a `Case` per op and
sample: how to make the inputs, the sizes of the named dims, where each
output's fake comes from) and calls these functions, so a fix here reaches
every suite without regenerating it. A failure names the op, the sample,
the sizes and, for a fake that disagrees with its kernel, which side said
what and the spec line of the fake rule.

CONTRACT is what a generated suite expects of this module: opgen bumps it
when the two must change together, and a suite checks it on import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import pytest
import torch
import torch._dynamo.testing
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_leaves, tree_map_only
from torch.utils.flop_counter import FlopCounterMode

CONTRACT = 3

Make = Callable[[dict], tuple]


def require_contract(contract: int) -> None:
    """Called by a generated suite with the CONTRACT it was generated for."""
    if contract != CONTRACT:
        raise ImportError(f"this test suite was generated for opgen.testing contract {contract}, but the opgen "
                          f"installed here has contract {CONTRACT}: regenerate the suite with this opgen, or "
                          "install the opgen that generated it")


@dataclass(frozen=True)
class Case:
    """One sample of one op, as its spec gives it."""

    op: torch._ops.OpOverload
    qualified: str              # "ns::op", as errors name it
    make: Make                  # dims -> (args, kwargs)
    sizes: list[dict]           # the named dims' sizes, one dict per run
    differentiable: bool = False
    fakes: list[str] = field(default_factory=list)  # per output: where its fake comes from
    name: str = ""              # "op-0": the op and the sample's index
    eager_only: str = ""        # why opcheck and torch.compile refuse the op (W0401, W0402): they are skipped

    def __str__(self) -> str:
        return self.name or self.qualified


def tensor(shape, dtype, device, low, high):
    """A sample tensor: uniform in [low, high) (integers: randint)."""
    if device.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("this sample needs a CUDA device")
    if dtype.is_floating_point:
        return torch.empty(shape, dtype=torch.float32, device=device).uniform_(low, high).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    return torch.randint(int(low), int(high), shape, device=device).to(dtype)


def _clone(value):
    return tree_map_only(torch.Tensor, lambda t: t.detach().clone(), value)


def _call(op, args, kwargs):
    return op(*args, **kwargs)


def _assert_same(got, expected, msg: Callable[[str], str], **tolerances) -> None:
    """assert_close over tensors and numbers, == over every other leaf: an op's
    arguments and results hold dtypes and strings too, which assert_close
    refuses (a sample with a ScalarType argument failed its compile test)."""
    got_leaves, got_spec = tree_flatten(got)
    expected_leaves, expected_spec = tree_flatten(expected)
    if got_spec != expected_spec:
        raise AssertionError(msg(f"the structure differs: {got_spec} vs {expected_spec}"))
    numeric = (torch.Tensor, bool, int, float, complex, torch.SymInt, torch.SymFloat)
    pairs = [(g, e) for g, e in zip(got_leaves, expected_leaves) if isinstance(g, numeric) or isinstance(e, numeric)]
    torch.testing.assert_close([g for g, _ in pairs], [e for _, e in pairs], equal_nan=True, msg=msg, **tolerances)
    for i, (g, e) in enumerate(zip(got_leaves, expected_leaves)):
        if not (isinstance(g, numeric) or isinstance(e, numeric)) and g != e:
            raise AssertionError(msg(f"leaf {i}: {g!r} vs {e!r}"))


def untraceable_carried_fields() -> str:
    """Why this torch cannot trace an op whose fake reads a carried object's
    fields ("" when it can): the opaque types' `members` and `guard_fn`
    arrived in PyTorch 2.11."""
    from torch._library import opaque_object

    if hasattr(opaque_object, "MemberType"):
        return ""
    return f"torch {torch.__version__} cannot read a carried object's fields while tracing (PyTorch >= 2.11)"


def _skip_if_eager_only(case: Case) -> None:
    if case.eager_only:
        pytest.skip(f"{case.qualified} works in eager calls only: {case.eager_only}")


def check_opcheck(case: Case) -> None:
    """torch.library.opcheck on the first sizes (with gradients where the op has autograd)."""
    _skip_if_eager_only(case)
    args, kwargs = case.make(case.sizes[0])
    if case.differentiable:
        args, kwargs = tree_map_only(
            torch.Tensor, lambda t: t.requires_grad_() if t.is_floating_point() else t, (args, kwargs)
        )
    torch.library.opcheck(case.op, args, kwargs)


def check_compile(case: Case, dynamic: bool) -> None:
    """torch.compile(fullgraph=True) agrees with eager, mutated arguments too;
    with dynamic shapes, the later sizes reuse the first compilation."""
    _skip_if_eager_only(case)
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(_call, fullgraph=True, dynamic=dynamic, backend=counter)
    sizes = case.sizes if dynamic else case.sizes[:1]
    compiles_after_first = None
    for dims in sizes:
        args, kwargs = case.make(dims)
        eager_args, eager_kwargs = _clone((args, kwargs))
        expected = (_call(case.op, eager_args, eager_kwargs), eager_args, eager_kwargs)
        got = (compiled(case.op, args, kwargs), args, kwargs)
        _assert_same(got, expected, msg=lambda m: f"{case.qualified} ({case}, sizes {dims}), compiled vs eager: {m}")
        if compiles_after_first is None:
            compiles_after_first = counter.frame_count
    assert compiles_after_first >= 1, f"{case.qualified} ({case}): nothing was compiled"
    assert counter.frame_count == compiles_after_first, (
        f"{case.qualified} ({case}): recompiled for sizes {sizes[1:]} after {sizes[0]}: {_recompile_cause(case, sizes)}")


def _input_dims(case: Case, dims: dict) -> dict[str, int]:
    """Every tensor dimension of the inputs at `dims`, by where it stands: {"x.shape[0]": 4, ...}."""
    args, kwargs = case.make(dims)
    names = [a.name for a in case.op._schema.arguments]
    found = {}
    for name, value in [*zip(names, args), *kwargs.items()]:
        tensors = value if isinstance(value, (list, tuple)) else [value]
        for k, t in enumerate(tensors):
            if isinstance(t, torch.Tensor):
                where = f"{name}[{k}]" if isinstance(value, (list, tuple)) else name
                found.update({f"{where}.shape[{i}]": size for i, size in enumerate(t.shape)})
    return found


def _recompile_cause(case: Case, sizes: list[dict]) -> str:
    """Why the later sizes missed the first compilation's guards: torch.compile
    specializes a dimension of 0 or 1, and gives dimensions that are equal at
    the first call one symbol (duck sizing), so a later call where they differ
    fails its guard."""
    first, later = _input_dims(case, sizes[0]), [_input_dims(case, d) for d in sizes[1:]]
    for where, size in first.items():
        if size in (0, 1) and any(other.get(where) != size for other in later):
            return (f"{where} is {size} at the first sizes, and torch.compile specializes a size of 0 or 1; "
                    "use sizes of 2 or more in the sample's dims")
    places = list(first)
    for i, a in enumerate(places):
        for b in places[i + 1:]:
            if first[a] == first[b] and any(other.get(a) != other.get(b) for other in later):
                return (f"{a} and {b} are both {first[a]} at the first sizes, so torch.compile's duck sizing gave "
                        "them one symbol, and later sizes tell them apart; give the sample's dims sizes that equal "
                        "no other dimension of the inputs")
    return "see TORCH_LOGS=recompiles for the guard that failed"


def _same_size(fake, real) -> bool:
    """A fake size or stride is an int, or, for a data-dependent size (a
    `dynamic()` rule), an unbacked SymInt, which stands for any real value."""
    return isinstance(fake, torch.SymInt) or fake == real


def _show(sizes) -> str:
    return "(" + ", ".join(str(s) for s in sizes) + ("," if len(sizes) == 1 else "") + ")"


def _disagreement(fake: torch.Tensor, real: torch.Tensor) -> str | None:
    """What a fake output gets wrong about its kernel's output, or None."""
    if fake.dtype != real.dtype:
        return f"dtype: the fake says {fake.dtype}, the kernel returns {real.dtype}"
    if fake.device != real.device:
        return f"device: the fake says {fake.device}, the kernel returns {real.device}"
    if fake.dim() != real.dim() or not all(map(_same_size, fake.shape, real.shape)):
        return f"shape: the fake says {_show(fake.shape)}, the kernel returns {_show(real.shape)}"
    if real.numel() > 1 and not all(map(_same_size, fake.stride(), real.stride())):
        return f"strides: the fake says {_show(fake.stride())}, the kernel returns {_show(real.stride())}"
    return None


def _decomposes(qualified: str) -> bool:
    """Whether the op has a CompositeImplicitAutograd kernel (W0803): it has
    no fake, and fake tensors run that kernel."""
    return torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeImplicitAutograd")


def check_fake_matches_real(case: Case) -> None:
    """For every sizes: the fake's outputs have the kernel's dtype, device,
    shape and strides (a data-dependent size matches any)."""
    if _decomposes(case.qualified):
        pytest.skip(f"{case.qualified} decomposes: it has no fake, fake tensors run its kernel (W0803)")
    for dims in case.sizes:
        args, kwargs = case.make(dims)
        real = _call(case.op, *_clone((args, kwargs)))
        # The ShapeEnv lets a fake make data-dependent sizes; the inputs keep int sizes.
        with FakeTensorMode(shape_env=ShapeEnv(), static_shapes=True) as mode:
            fake = _call(case.op, *tree_map_only(torch.Tensor, mode.from_tensor, (args, kwargs)))
        reals = real if isinstance(real, tuple) else (real,)
        fakes = fake if isinstance(fake, tuple) else (fake,)
        assert len(reals) == len(fakes), f"{case.qualified}: {len(fakes)} fake outputs, {len(reals)} real ones"
        for i, (r, f) in enumerate(zip(reals, fakes)):
            if not any(isinstance(t, torch.Tensor) for t in tree_leaves(r)) and r is not None:
                # A plain value (int, bool, float, str, int[]) the fake computes from the inputs must be the
                # kernel's; an unbacked SymInt (`dynamic()`) stands for any value.
                f_values, r_values = tree_leaves(f), tree_leaves(r)
                if len(f_values) != len(r_values) or not all(
                        isinstance(a, torch.SymInt) or a == b for a, b in zip(f_values, r_values)):
                    source = case.fakes[i] if i < len(case.fakes) else "the registered fake"
                    pytest.fail(f"{case.qualified}, output {i} ({case}, sizes {dims}): the fake says {f!r}, the "
                                f"kernel returns {r!r}\n  the fake: {source}", pytrace=False)
                continue
            r_leaves = [t for t in tree_leaves(r) if isinstance(t, torch.Tensor)]
            f_leaves = [t for t in tree_leaves(f) if isinstance(t, torch.Tensor)]
            source = case.fakes[i] if i < len(case.fakes) else "the registered fake"
            where = f"{case.qualified}, output {i} ({case}, sizes {dims})"
            if len(r_leaves) != len(f_leaves):
                pytest.fail(f"{where}: the fake returns {len(f_leaves)} tensors, the kernel {len(r_leaves)}\n"
                            f"  the fake: {source}", pytrace=False)
            for k, (rt, ft) in enumerate(zip(r_leaves, f_leaves)):
                if (problem := _disagreement(ft, rt)) is not None:
                    item = f"[{k}]" if len(r_leaves) > 1 or isinstance(r, (list, tuple)) else ""
                    pytest.fail(f"{where}{item}: the fake and the kernel disagree on the {problem}\n"
                                f"  the fake: {source}", pytrace=False)


def _break(check: str, value: Any, allowed: list[str]):
    """A variant of `value` that fails `check`."""
    if check == "dtype":
        bad = [d for d in (torch.int32, torch.float64, torch.float32, torch.int64) if str(d)[6:] not in allowed]
        return value.to(bad[0])
    if check == "dim":
        return value.unsqueeze(0)
    if check == "contiguous":
        if value.numel() < 2:
            pytest.skip("a tensor of fewer than two elements is always contiguous")
        wide = torch.empty((*value.shape, 2), dtype=value.dtype, device=value.device)
        return wide[..., 0].copy_(value)
    if check == "same_dtype":
        return value.to(torch.float64 if value.dtype != torch.float64 else torch.float32)
    if check == "same_device":
        if not torch.cuda.is_available():
            pytest.skip("needs a second device")
        return value.to("cpu" if value.is_cuda else "cuda")
    raise AssertionError(check)


def _has_kernel(qualified: str, device_type: str) -> bool:
    """Whether the op, or the flat op a host-object op calls, has a kernel for
    `device_type` (a dispatch key of that name)."""
    for name in (f"{qualified}_flat", qualified):
        try:
            return torch._C._dispatch_has_kernel_for_dispatch_key(name, device_type.upper())
        except RuntimeError:  # no such op: not a host-object op
            continue
    return False


def check_input_check(case: Case, where: int | str, name: str, check: str, allowed: list[str]) -> None:
    """An input that breaks a declared check is refused, by the kernel's
    wrapper and by the fake, with an error naming the op and the argument."""
    args, kwargs = case.make(case.sizes[0])
    args = list(args)
    if isinstance(where, int):
        args[where] = _break(check, args[where], allowed)
    else:
        kwargs[where] = _break(check, kwargs[where], allowed)
    pattern = rf"{case.qualified}.*'{name}'"
    eager_pattern = pattern
    if check == "same_device":
        moved = (args[where] if isinstance(where, int) else kwargs[where]).device.type
        if not _has_kernel(case.qualified, moved):
            # An op with no kernel for the device the argument moved to never
            # reaches its wrapper's check: PyTorch's dispatcher refuses the call
            # first, naming the op (or the flat op it calls) and the device.
            eager_pattern = rf"Could not run '{case.qualified}(_flat)?' with arguments from the '{moved.upper()}' backend"
    with pytest.raises(RuntimeError, match=eager_pattern):
        _call(case.op, args, kwargs)
    with FakeTensorMode() as mode, pytest.raises(RuntimeError, match=pattern):
        _call(case.op, *tree_map_only(torch.Tensor, mode.from_tensor, (args, kwargs)))


def check_gradcheck(case: Case, inputs: list[int], outputs: list[int]) -> None:
    """torch.autograd.gradcheck in float64 over the differentiable inputs and outputs."""
    args, kwargs = case.make(case.sizes[0])
    args = [a.detach().double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    leaves = [args[i].requires_grad_() for i in inputs]

    def fn(*xs):
        full = list(args)
        for i, x in zip(inputs, xs):
            full[i] = x
        out = _call(case.op, full, kwargs)
        out = out if isinstance(out, tuple) else (out,)
        return tuple(out[i] for i in outputs)

    assert torch.autograd.gradcheck(fn, leaves)


class _ArgumentDtypes(TorchDispatchMode):
    """Records the dtypes of the tensors `op` is called with, below autocast
    (a dispatch mode runs after the Autocast keys): what the kernel sees."""

    def __init__(self, op):
        super().__init__()
        self.op = op
        self.calls: list[list[torch.dtype]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func == self.op:
            self.calls.append([t.dtype for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)])
        return func(*args, **kwargs)


def _cast_like_autocast(value, dtype):
    """What autocast makes of an input: floating-point tensors but float64 cast."""
    return tree_map_only(
        torch.Tensor, lambda t: t.to(dtype) if t.is_floating_point() and t.dtype != torch.float64 else t, value)


def check_autocast(case: Case, device_type: str, cast_inputs: torch.dtype) -> None:
    """Under torch.autocast(device_type) the kernel sees every floating-point
    input as `cast_inputs` (given in another dtype here, so a missing cast
    shows), and returns exactly what it returns for those inputs cast by hand;
    torch.compile(fullgraph=True) under autocast agrees; gradients flow back
    in the inputs' own dtype."""
    _skip_if_eager_only(case)  # it compiles too
    fed = torch.bfloat16 if cast_inputs == torch.float32 else torch.float32
    _check_traced_autocast_kernel(case, device_type, cast_inputs, fed)
    if device_type == "cuda" and not torch.cuda.is_available():
        pytest.skip("this autocast rule needs a CUDA device (its traced kernel was checked on fake tensors)")

    def given(t: torch.Tensor) -> torch.Tensor:
        t = t.to(device_type)
        return t.to(fed) if t.is_floating_point() else t

    for dims in case.sizes:
        where = f"{case.qualified} ({case}, sizes {dims}) under torch.autocast({device_type!r})"
        args, kwargs = tree_map_only(torch.Tensor, given, case.make(dims))
        expected_inputs = _cast_like_autocast(_clone((args, kwargs)), cast_inputs)
        want = _call(case.op, *expected_inputs)
        seen = _ArgumentDtypes(case.op)
        with torch.autocast(device_type), seen:
            got = _call(case.op, *_clone((args, kwargs)))
        expected = [t.dtype for t in tree_leaves(expected_inputs) if isinstance(t, torch.Tensor)]
        assert seen.calls == [expected], (
            f"{where}: the kernel was called with dtypes {seen.calls}, expected one call with {expected}")
        _assert_same(got, want, rtol=0, atol=0, msg=lambda m: f"{where} vs the inputs cast by hand: {m}")
        torch._dynamo.reset()
        compiled = torch.compile(_call, fullgraph=True, backend="aot_eager")
        with torch.autocast(device_type):
            got = compiled(case.op, *_clone((args, kwargs)))
        _assert_same(got, want, msg=lambda m: f"{where}, compiled: {m}")
        if case.differentiable:
            _check_autocast_gradients(case, args, kwargs, device_type, where)


def _check_traced_autocast_kernel(case: Case, device_type: str, cast_inputs: torch.dtype, fed: torch.dtype) -> None:
    """torch.compile traces the op's Python-dispatcher kernel for the Autocast
    key of `device_type`, not the C++ one eager calls: it must cast for that
    device type too. Checked on fake tensors of the device, so it runs without
    one (torch 2.10 and 2.11 shared one such kernel between the keys, and an
    op's CUDA rule was lost under torch.compile)."""
    key = getattr(torch._C.DispatchKey, "Autocast" + torch._C._dispatch_key_for_device(device_type))
    kernel = case.op.py_kernels.get(key)
    if kernel is None:
        return  # torch traces the C++ kernel, which the eager checks cover

    def given(t: torch.Tensor) -> torch.Tensor:
        t = t.to(device_type)
        return t.to(fed) if t.is_floating_point() else t

    with FakeTensorMode():
        for dims in case.sizes:
            args, kwargs = tree_map_only(torch.Tensor, given, case.make(dims))
            expected = [t.dtype for t in tree_leaves(_cast_like_autocast((args, kwargs), cast_inputs))
                        if isinstance(t, torch.Tensor)]
            seen = _ArgumentDtypes(case.op)
            with seen:
                kernel(*args, **kwargs)
            assert seen.calls == [expected], (
                f"{case.qualified} ({case}, sizes {dims}): under torch.compile and torch.autocast({device_type!r}) "
                f"the kernel would be called with dtypes {seen.calls}, expected {expected}: the op's traced "
                f"autocast kernel for {device_type} does not cast for {device_type}")


def _check_autocast_gradients(case: Case, args, kwargs, device_type: str, where: str) -> None:
    args = [a.detach().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    with torch.autocast(device_type):
        out = _call(case.op, args, kwargs)
    outs = [o for o in tree_leaves(out) if isinstance(o, torch.Tensor) and o.requires_grad]
    inputs = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    grads = torch.autograd.grad(outs, inputs, [torch.ones_like(o) for o in outs], allow_unused=True)
    for x, g in zip(inputs, grads):
        if g is not None:
            assert g.dtype == x.dtype, f"{where}: a gradient came back as {g.dtype} for a {x.dtype} input"


def _flops_in_graph(case: Case, dynamic: bool, dims: dict) -> list:
    """The op's FLOPs as counted while torch.compile traces it: the formula on
    the graph's fake (with dynamic shapes, symbolic) arguments, as Inductor's
    estimates count it. One entry per call of the op in the graph."""
    counted = []

    def backend(gm, example_inputs):
        for node in gm.graph.nodes:
            if node.op != "call_function" or node.target != case.op:
                continue
            args, kwargs = tree_map_only(torch.fx.Node, lambda n: n.meta["example_value"], (node.args, node.kwargs))
            mode = next(t.fake_mode for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor))
            with mode, FlopCounterMode(display=False) as counter:
                node.target(*args, **kwargs)
            counted.append(counter.get_total_flops())
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(_call, fullgraph=True, dynamic=dynamic, backend=backend)
    args, kwargs = case.make(dims)
    compiled(case.op, args, kwargs)
    return counted


def check_flops(case: Case, counts: list[int | None]) -> None:
    """FlopCounterMode counts, for each sizes, what opgen computed from the
    spec's `flops` rule (None: opgen could not evaluate it for this sample);
    the formula also counts on the fake, symbolic arguments torch.compile
    traces with."""
    _skip_if_eager_only(case)  # it counts in compiled graphs too
    packet = case.op.overloadpacket
    for dims, expected in zip(case.sizes, counts):
        args, kwargs = case.make(dims)
        with FlopCounterMode(display=False) as counter:
            _call(case.op, args, kwargs)
        got = counter.get_flop_counts().get("Global", {}).get(packet, 0)
        where = f"{case.qualified} ({case}, sizes {dims})"
        if expected is None:
            assert isinstance(got, int) and got >= 0, f"{where}: FlopCounterMode counted {got!r}"
        else:
            assert got == expected, (
                f"{where}: FlopCounterMode counted {got} FLOPs, the spec's flops rule gives {expected}")
    expected = counts[0]
    for dynamic in (False, True):
        counted = _flops_in_graph(case, dynamic, case.sizes[0])
        assert len(counted) == 1, f"{case.qualified} ({case}): {len(counted)} calls of the op in the compiled graph"
        got = counted[0]
        if isinstance(got, torch.SymInt):
            got = got.node.hint  # the value at the sizes traced with
        if expected is not None:
            assert got == expected, (
                f"{case.qualified} ({case}, sizes {case.sizes[0]}), compiled with dynamic={dynamic}: the formula "
                f"counted {got} FLOPs on the traced arguments, the spec's flops rule gives {expected}")
