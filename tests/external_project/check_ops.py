"""The project's own checks of its ops, kept the way a downstream project would
keep them: each op called eagerly against a PyTorch reference, and through
torch.library.opcheck and torch.compile(fullgraph=True, dynamic=True) where
PyTorch allows it.

  PYTHONPATH=<site> python3 check_ops.py [--stable-only] [--site <site>]

--stable-only: the library was built with -DOPGEN_EXT_STABLE_ONLY=ON, its
stable-ABI ops alone; scripts/abi_matrix.py runs that one binary on every
torch release of the matrix. --site: opgen_ext must come from there.
"""

import argparse
from pathlib import Path

import torch
import torch.nn.functional as F

import opgen_ext

ops = torch.ops.opgen_ext


# The wider types (SymInt, SymInt[]?, Tensor?[], Tensor[]?, bool[], float[]?,
# str[], Layout?, MemoryFormat?): each value arrives, on either ABI.
def check_carry(carry):
    x = torch.zeros(2)
    summary = carry(x, 7, None, [1, 2, 3], None, [None, torch.ones(2, 3), None], None, [True, False, True],
                    None, [], None, None)
    assert summary.tolist() == [7, -1, 6, -1, 1, 6, -1, 2, -1, 0, 0, 0], summary
    summary = carry(x, -2, 5, [], [4, 5], [], [x, x, x], [], [0.5, 0.25], ["ab", "cde"], torch.strided,
                    torch.channels_last)
    assert summary.tolist() == [-2, 5, 0, 2, 0, 0, 3, 0, 0.75, 5, 1, 1], summary
    args = (x, 3, 4, [2, 2], [1], [x, None], [x], [False], [1.0], ["n"], torch.strided, torch.contiguous_format)
    torch.library.opcheck(carry.default, args)
    # SymInt arguments traced with dynamic shapes, then read as int64 by the kernel.
    compiled = torch.compile(lambda t: carry(t, t.shape[0], None, [t.shape[0], 1], None, [], None, [], None, [],
                                             None, None), fullgraph=True, dynamic=True, backend="aot_eager")
    assert compiled(torch.zeros(5)).tolist()[:3] == [5, -1, 6]


def check_softplus():
    softplus = ops.softplus
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(5, 33, dtype=dtype) * 8
        torch.testing.assert_close(softplus(x), F.softplus(x))
        torch.testing.assert_close(softplus(x, 2.0, 3.0), F.softplus(x, beta=2.0, threshold=3.0))
    assert opgen_ext.softplus is softplus.default
    x = torch.randn(4, 7)
    torch.library.opcheck(softplus.default, (x, 0.5, 10.0))
    compiled = torch.compile(lambda t: softplus(t, 1.5) + 1, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x), F.softplus(x, beta=1.5) + 1)
    try:
        softplus(torch.ones(3, dtype=torch.int32))
    except RuntimeError as e:
        assert "opgen_ext::softplus" in str(e) and "'x'" in str(e), e
    else:
        raise AssertionError("an int32 input was not rejected")


def check_rms_norm():
    """vLLM's rms_norm, registered from its own schema text (`Tensor! result`)."""
    rms_norm = ops.rms_norm
    assert rms_norm.default._schema == torch._C.parse_schema(
        "opgen_ext::rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()")
    for dtype in (torch.float32, torch.float64):
        x, w = torch.randn(3, 40, dtype=dtype), torch.randn(40, dtype=dtype)
        out = torch.empty_like(x)
        assert rms_norm(out, x, w, 1e-6) is None
        torch.testing.assert_close(out, F.rms_norm(x, (40,), w, 1e-6))
    torch.library.opcheck(rms_norm.default, (torch.empty(2, 8), torch.randn(2, 8), torch.randn(8), 1e-5))

    def step(x, w):
        out = torch.empty_like(x)
        rms_norm(out, x, w, 1e-6)
        return out * 2

    compiled = torch.compile(step, fullgraph=True, dynamic=True, backend="aot_eager")
    x, w = torch.randn(5, 16), torch.randn(16)
    torch.testing.assert_close(compiled(x, w), F.rms_norm(x, (16,), w, 1e-6) * 2)


def check_flush_cache():
    """No arguments, no results (its stable wrapper once failed -Werror)."""
    assert ops.flush_cache() is None


def check_fwd():
    """FlashAttention-3's stable forward, its schema verbatim: registered as
    written (34 arguments, a positional optional `out`), called eagerly."""
    fwd = ops.fwd
    assert len(fwd.default._schema.arguments) == 34
    q, k, v = torch.randn(4, 6), torch.randn(5, 6), torch.randn(5, 6)
    given = torch.empty(4, 6)
    result, lse, ks, vs = fwd(q, k, v, None, None, None, given, softmax_scale=0.5)
    assert result is given
    torch.testing.assert_close(given, 0.5 * q)
    torch.testing.assert_close((lse, ks, vs), (q.sum(1), k.sum(1), v.sum(1)))
    fresh = fwd(q, k, v)[0]
    torch.testing.assert_close(fresh, q)


def check_multi_scale_():
    """apex's multi-tensor apply: in place over a list, each tensor checked."""
    multi_scale_ = ops.multi_scale_
    tensors = [torch.randn(3), torch.randn(2, 5)]
    want = [t * 4 for t in tensors]
    assert multi_scale_(tensors, 4.0) is None
    torch.testing.assert_close(tensors, want)
    torch.library.opcheck(multi_scale_.default, ([torch.randn(3), torch.randn(4)], 2.0))

    def step(ts):
        ts = [t.clone() for t in ts]
        multi_scale_(ts, 0.5)
        return [t + 1 for t in ts]

    compiled = torch.compile(step, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(want), [t * 0.5 + 1 for t in want])
    try:
        multi_scale_([torch.randn(3), torch.randn(3, dtype=torch.float64)], 2.0)
    except RuntimeError as e:
        assert "opgen_ext::multi_scale_: expected 'tensors[1]' to have dtype float32" in str(e), e
    else:
        raise AssertionError("a float64 tensor in the list was not rejected")


def check_maybe_halves():
    """The unstable ABI: `-> (Tensor, Tensor?)` with float[]?, Layout?, MemoryFormat? arguments."""
    maybe_halves = ops.maybe_halves
    x = torch.randn(3, 4)
    a, b = maybe_halves(x, False)
    assert b is None
    torch.testing.assert_close(a, x)
    a, b = maybe_halves(x, True, [2.0, 3.0], torch.strided, torch.contiguous_format)
    torch.testing.assert_close(a, 2 * x)
    torch.testing.assert_close(b, 1.5 * x)
    for both in (False, True):
        torch.library.opcheck(maybe_halves.default, (x, both, [1.0, 4.0]))
    compiled = torch.compile(lambda t: maybe_halves(t, True, [1.0, 2.0])[1] + 1, fullgraph=True, dynamic=True,
                             backend="aot_eager")
    torch.testing.assert_close(compiled(x), x + 1)


def check_describe():
    """-> (int[], str, SymInt): the SymInt result used to abort the load."""
    assert ops.describe(torch.zeros(2, 5, dtype=torch.float16)) == ([2, 5], "Half", 10)


def check_scale_out():
    """ExecuTorch's out= convention: tagged out, the result is `out` itself."""
    scale_out = ops.scale.out
    assert torch.Tag.out in scale_out.tags
    x, out = torch.randn(3, 4), torch.empty(3, 4)
    assert scale_out(x, 2.0, out=out) is out
    torch.testing.assert_close(out, 2 * x)
    torch.library.opcheck(scale_out, (x, 0.5), {"out": torch.empty(3, 4)})

    def scaled(t):
        buffer = torch.empty_like(t)
        return scale_out(t, 3.0, out=buffer) + 1

    compiled = torch.compile(scaled, fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x), 3 * x + 1)


def check_scale_by():
    """Host objects on the stable ABI: the binding reads the fields, the kernel
    gets them as structs (a float, a str, a Tensor?, a ScalarType?)."""
    from opgen_ext.scaling import Scaling

    x = torch.randn(3, 4)
    torch.testing.assert_close(opgen_ext.scale_by(x, Scaling(2.0, "ab")), x * 2 + 2)
    bias = torch.randn(3, 4, dtype=torch.float64)
    y = opgen_ext.scale_by(x.double(), Scaling(-0.5, "", bias, torch.float32), shift=Scaling(3.0, "xyz"))
    assert y.dtype == torch.float32
    torch.testing.assert_close(y, (x.double() * -0.5 + bias + 9).float())
    torch.library.opcheck(ops.scale_by.default, (x, 2.0, "ab", None, None), {"shift_given": True, "shift_factor": 1.0,
                                                                         "shift_label": "q", "shift_bias": None,
                                                                         "shift_out_dtype": None})
    compiled = torch.compile(lambda t, s: opgen_ext.scale_by(t, s), fullgraph=True, dynamic=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x, Scaling(0.5, "abc", None, torch.float64)), (x.double() * 0.5 + 3))


STABLE = {
    "softplus": check_softplus,
    "rms_norm": check_rms_norm,
    "flush_cache": check_flush_cache,
    "carry": lambda: check_carry(ops.carry),
    "fwd": check_fwd,
    "multi_scale_": check_multi_scale_,
    "scale_by": check_scale_by,
}
UNSTABLE = {
    "carry_unstable": lambda: check_carry(ops.carry_unstable),
    "maybe_halves": check_maybe_halves,
    "describe": check_describe,
    "scale": check_scale_out,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stable-only", action="store_true")
    parser.add_argument("--site", type=Path)
    args = parser.parse_args()
    if args.site:
        assert Path(opgen_ext.__file__).is_relative_to(args.site.resolve()), opgen_ext.__file__
    checks = STABLE if args.stable_only else {**STABLE, **UNSTABLE}
    for name, check in checks.items():
        check()
        print(f"opgen_ext::{name} ok ({torch.__version__})")
    # Every op the library registers is checked here; a stable-only build
    # holds no unstable op, which is what lets it load on every release.
    registered = {name.split("::")[1].split(".")[0] for name in torch._C._dispatch_get_all_op_names()
                  if name.startswith("opgen_ext::")}
    assert registered == set(checks), registered ^ set(checks)
    print("opgen_ext ok")


if __name__ == "__main__":
    main()
