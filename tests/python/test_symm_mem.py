"""opgen::one_shot_all_reduce, the symmetric-memory op.

The CPU kernel goes through the process group's own allreduce, so two gloo
ranks on this machine check its numerics (against a float32 reference built
from every rank's input), torch.compile(fullgraph=True) and opcheck. The CUDA
kernel needs symmetric memory on several GPUs; CI builds it but cannot run it.
"""

import os

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import opgen_ops
from helpers import compile_fullgraph

OP = torch.ops.opgen.one_shot_all_reduce.default
WORLD_SIZE = 2
REDUCE_OPS = ("sum", "avg", "min", "max")
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
SHAPES = ((0,), (1,), (7,), (3, 1000), (2, 3, 33))


def _rank_input(rank, shape, dtype):
    """Every rank can rebuild every rank's input: the reference needs them all."""
    g = torch.Generator().manual_seed(1000 + rank)
    return (torch.randn(shape, generator=g) * 4).to(dtype)


def _reference(reduce_op, shape, dtype):
    stacked = torch.stack([_rank_input(r, shape, dtype).float() for r in range(WORLD_SIZE)])
    reduced = {
        "sum": stacked.sum(0),
        "avg": stacked.sum(0) / WORLD_SIZE,
        "min": stacked.amin(0),
        "max": stacked.amax(0),
    }[reduce_op]
    return reduced.to(dtype)


def _worker(rank, store_path, results_dir):
    dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=WORLD_SIZE)
    try:
        group_name = dist.group.WORLD.group_name
        checked = 0
        for dtype in DTYPES:
            for shape in SHAPES:
                x = _rank_input(rank, shape, dtype)
                for reduce_op in REDUCE_OPS:
                    out = opgen_ops.one_shot_all_reduce(x, reduce_op, group_name)
                    assert out.dtype == dtype and out.shape == x.shape and out.is_contiguous()
                    torch.testing.assert_close(out, _reference(reduce_op, shape, dtype), rtol=0, atol=0)
                    checked += 1
                assert torch.equal(x, _rank_input(rank, shape, dtype)), "the input must not change"

        # torch.compile sees an opaque node whose fake gives the shape: no
        # graph break, with static and dynamic shapes.
        def fn(t):
            return torch.ops.opgen.one_shot_all_reduce(t * 2, "sum", group_name) + 1

        for dynamic in (False, True):
            compiled = compile_fullgraph(fn, dynamic=dynamic)
            for shape in ((5,), (4, 9)):
                x = _rank_input(rank, shape, torch.float32)
                torch.testing.assert_close(compiled(x), _reference("sum", shape, torch.float32) * 2 + 1)

        # Every rank makes the same calls in the same order, as collectives need.
        torch.library.opcheck(OP, (_rank_input(rank, (4, 8), torch.float32), "sum", group_name))

        with open(os.path.join(results_dir, f"rank{rank}"), "w") as f:
            f.write(str(checked))
    finally:
        dist.destroy_process_group()


def test_two_gloo_ranks(tmp_path):
    mp.spawn(_worker, args=(str(tmp_path / "store"), str(tmp_path)), nprocs=WORLD_SIZE, join=True)
    expected = len(DTYPES) * len(SHAPES) * len(REDUCE_OPS)
    for rank in range(WORLD_SIZE):
        assert (tmp_path / f"rank{rank}").read_text() == str(expected)


def test_input_is_registered_as_a_symm_mem_argument():
    entry = torch._library.simple_registry.singleton.find("opgen::one_shot_all_reduce")
    assert list(entry.symm_mem_args.get()) == ["input"]
    assert str(OP._schema) == "opgen::one_shot_all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor"


def test_fake_needs_no_process_group():
    x = torch.randn(3, 5, dtype=torch.bfloat16)
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        out = OP(mode.from_tensor(x), "sum", "no such group")
    assert out.shape == x.shape and out.dtype == x.dtype


def test_errors_name_the_op_and_the_argument():
    x = torch.randn(4, 4)
    with pytest.raises(RuntimeError, match=r"opgen::one_shot_all_reduce.*'input'.*dtype"):
        OP(x.double(), "sum", "0")
    with pytest.raises(RuntimeError, match=r"opgen::one_shot_all_reduce.*'input'.*contiguous"):
        OP(x.t(), "sum", "0")
    with pytest.raises(RuntimeError, match=r"opgen::one_shot_all_reduce: 'reduce_op' must be .*got \"prod\""):
        OP(x, "prod", "0")
    with pytest.raises(RuntimeError, match=r"opgen::one_shot_all_reduce: 'group_name' is \"no such group\", which names no process group"):
        OP(x, "sum", "no such group")


def test_fake_matches_real_shapes_without_a_group():
    # The fake alone (no collective): shapes and dtypes of every sample shape.
    for shape in SHAPES:
        x = _rank_input(0, shape, torch.float16)
        with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
            out = OP(mode.from_tensor(x), "avg", "g")
        assert out.shape == x.shape and out.dtype == x.dtype and out.stride() == x.stride()
