"""opgen::one_shot_all_reduce, the symmetric-memory op.

The CPU kernel goes through the process group's own allreduce, so two gloo
ranks on this machine check its numerics (against a float32 reference built
from every rank's input), torch.compile(fullgraph=True) and opcheck. The CUDA
kernel's rank-independent host decisions (launch shape, signal-pad channels,
signal words: kernels/common/symm_mem_layout.h) are compiled with the host C++
compiler and checked here without a GPU; the CUDA kernel itself (numerics,
calls on two streams, the bounded wait's trap, mismatched ranks) needs one GPU
or two and is skipped without them.
"""

import ctypes
import faulthandler
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def _reference(reduce_op, shape, dtype, world_size=WORLD_SIZE):
    stacked = torch.stack([_rank_input(r, shape, dtype).float() for r in range(world_size)])
    reduced = {
        "sum": stacked.sum(0),
        "avg": stacked.sum(0) / world_size,
        "min": stacked.amin(0),
        "max": stacked.amax(0),
    }[reduce_op]
    return reduced.to(dtype)


def _worker(rank, store_path, results_dir):
    # A rank that aborts (a C++ terminate) says where, in the test's output.
    faulthandler.enable()
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
        # Both ranks done with every collective before either tears its group down: a rank
        # destroying its gloo group while the other still runs one aborted (torch 2.11,
        # "terminate called without an active exception", twice in 14 runs here).
        dist.barrier()
    finally:
        dist.destroy_process_group()


def test_two_gloo_ranks(tmp_path):
    mp.spawn(_worker, args=(str(tmp_path / "store"), str(tmp_path)), nprocs=WORLD_SIZE, join=True)
    expected = len(DTYPES) * len(SHAPES) * len(REDUCE_OPS)
    for rank in range(WORLD_SIZE):
        assert (tmp_path / f"rank{rank}").read_text() == str(expected)


@pytest.mark.skipif(not hasattr(torch.library.Library, "register_symm_mem_args"),
                    reason=f"torch {torch.__version__} has no Library.register_symm_mem_args (2.13 and up)")
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


# ---------------------------------------------------------------------------
# The CUDA kernel's host-side layout (kernels/common/symm_mem_layout.h), with
# the host C++ compiler: no GPU needed.
# ---------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
LAYOUT_HEADER = ROOT / "kernels" / "common" / "symm_mem_layout.h"
CUDA_SOURCE = ROOT / "kernels" / "one_shot_all_reduce.cu"
CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++") or shutil.which("clang++")

LAYOUT_NUMELS = (1, 2, 511, 512, 2047, 2048, 2049, 4096, 4097, 8192, 49151, 49152, 49153, 98304, 98305, 10**6, 2**40)
LAYOUT_SEQS = (0, 1, 7, 8, 9, 15, 16, 65534, 65535, 65536, 2**40 + 3)
CHECKSUM_CASES = (  # numel, dtype, reduce_op, offset_bytes
    (1000, 6, 0, 0),
    (1001, 6, 0, 0),
    (1000, 5, 0, 0),
    (1000, 6, 1, 0),
    (1000, 6, 0, 16),
    (0, 0, 0, 0),
)
# c10d's default signal pad (torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryTypes.hpp):
# symm_max_nblocks (32) * max_cuda_p2p_domain_size (72) * sizeof(uint32_t).
C10D_DEFAULT_SIGNAL_PAD_BYTES = 32 * 72 * 4

_LAYOUT_DRIVER = r"""
#include "symm_mem_layout.h"

#include <cstdint>
#include <cstdio>
#include <initializer_list>

namespace sm = opgen::kernels::symm_mem;

int main() {
  std::printf("consts %d %d %d %d %d %d %d %llu\n", sm::kThreads, sm::kMaxBlocks, sm::kVecBytes, sm::kMaxWorldSize,
              sm::kReservedChannels, sm::kLanes, sm::kChannels, (unsigned long long)sm::kDefaultTimeoutMs);
  const long long numels[] = {NUMELS};
  for (int es : {2, 4}) {
    for (long long n : numels) {
      const sm::LaunchShape s = sm::one_shot_launch_shape(n, es);
      std::printf("shape %lld %d %d %d\n", n, es, s.blocks, s.threads);
    }
  }
  const unsigned long long seqs[] = {SEQS};
  for (unsigned long long seq : seqs) {
    for (int b = 0; b < sm::kMaxBlocks; ++b) std::printf("channel %llu %d %d\n", seq, b, sm::channel_of(seq, b));
    for (unsigned cs : {0u, 1u, 0xffffu}) std::printf("word %llu %u %u\n", seq, cs, sm::signal_word(seq, cs));
  }
  for (int w = 1; w <= sm::kMaxWorldSize; ++w) {
    std::printf("pad %d %lld\n", w, (long long)sm::signal_pad_bytes_needed(w));
    for (int c : {0, 31, 32, 223}) {
      for (int p = 0; p < w; ++p) std::printf("slot %d %d %d %lld\n", c, w, p, (long long)sm::signal_slot(c, w, p));
    }
  }
  const long long cases[][4] = {CASES};
  for (const auto& c : cases) {
    std::printf("checksum %lld %lld %lld %lld %u\n", c[0], c[1], c[2], c[3],
                sm::call_checksum(c[0], (int)c[1], (int)c[2], (uint64_t)c[3]));
  }
  const uint32_t mine = sm::signal_word(5, 0x1234);
  std::printf("classify %d %d %d %d\n", (int)sm::classify(mine, mine), (int)sm::classify(1u, mine),
              (int)sm::classify(sm::signal_word(5, 0x4321), mine), (int)sm::classify(sm::signal_word(6, 0x1234), mine));
  std::printf("timeout %llu %llu %llu\n", (unsigned long long)sm::timeout_ns(0), (unsigned long long)sm::timeout_ns(7),
              (unsigned long long)sm::timeout_ns(UINT64_MAX / 1000));
  return 0;
}
"""


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """Compiles and runs a driver of symm_mem_layout.h; its output, parsed."""
    if CXX is None:
        pytest.skip("needs a host C++ compiler (c++, g++ or clang++)")
    tmp = tmp_path_factory.mktemp("symm_mem_layout")
    source = (
        _LAYOUT_DRIVER.replace("NUMELS", ", ".join(f"{n}LL" for n in LAYOUT_NUMELS))
        .replace("SEQS", ", ".join(f"{s}ULL" for s in LAYOUT_SEQS))
        .replace("CASES", ", ".join("{" + ", ".join(f"{v}LL" for v in c) + "}" for c in CHECKSUM_CASES))
    )
    (tmp / "driver.cpp").write_text(source)
    exe = tmp / "driver"
    # Plain C++17 and warning-free: the header includes no CUDA or torch header.
    build = subprocess.run(
        [CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", str(LAYOUT_HEADER.parent), str(tmp / "driver.cpp"),
         "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    rows = {}
    for line in run.stdout.splitlines():
        kind, *values = line.split()
        rows.setdefault(kind, []).append(tuple(int(v) for v in values))
    return rows


def test_layout_constants(layout):
    # 512 threads and at most 24 blocks: PyTorch's one_shot_all_reduce; channels [0, 32) are c10d's
    # (symm_max_nblocks), then 8 lanes of 24 channels; 10 minutes: c10d's default collective timeout.
    assert layout["consts"] == [(512, 24, 16, 8, 32, 8, 32 + 8 * 24, 10 * 60 * 1000)]


def test_launch_shape_depends_only_on_numel_and_dtype(layout):
    shapes = layout["shape"]
    assert len(shapes) == 2 * len(LAYOUT_NUMELS)
    for numel, element_size, blocks, threads in shapes:
        per_block = 512 * (16 // element_size)  # one 128-bit vector per thread
        assert threads == 512
        assert blocks == min(24, max(1, -(-numel // per_block))), (numel, element_size)
    # More elements never mean fewer blocks, and the cap is reached.
    for element_size in (2, 4):
        blocks = [b for n, es, b, _ in shapes if es == element_size]
        assert blocks == sorted(blocks) and blocks[0] == 1 and blocks[-1] == 24


def test_each_call_in_flight_has_its_own_channels(layout):
    channels = {}
    for seq, block, channel in layout["channel"]:
        channels.setdefault(seq, []).append(channel)
    for seq, chans in channels.items():
        lane = seq % 8
        # Past c10d's channels [0, 32) (its kernels' blocks, barrier(channel=0..3)), inside [32, 224).
        assert chans == list(range(32 + 24 * lane, 32 + 24 * (lane + 1))), seq
    # 8 consecutive calls on a group: disjoint channels; the 9th reuses the first's lane.
    for first in (0, 8, 65534):
        lanes = [set(channels[s]) for s in LAYOUT_SEQS if first <= s < first + 8]
        assert all(a.isdisjoint(b) for i, a in enumerate(lanes) for b in lanes[i + 1 :])
    assert channels[0] == channels[8] == channels[16]
    # c10d's slot layout: channel * world_size + peer.
    for channel, world_size, peer, slot in layout["slot"]:
        assert slot == channel * world_size + peer


def test_signal_pad_needed_fits_c10d_default(layout):
    for world_size, needed in layout["pad"]:
        assert needed == (32 + 8 * 24) * world_size * 4
        # Up to 8 ranks (the op's limit) fit c10d's default pad: no set_signal_pad_size needed.
        assert needed <= C10D_DEFAULT_SIGNAL_PAD_BYTES
    import torch.distributed._symmetric_memory as symm_mem

    if hasattr(symm_mem, "get_signal_pad_size"):
        assert symm_mem.get_signal_pad_size() >= (32 + 8 * 24) * 8 * 4


def test_signal_words(layout):
    for seq, checksum, word in layout["word"]:
        assert word != 0 and word != 1  # never "no signal", never c10d's own signal word
        assert word >> 16 == 1 + seq % 0xFFFF and word & 0xFFFF == checksum
    words = {(seq, cs): w for seq, cs, w in layout["word"]}
    assert len({words[(0, 1)], words[(1, 1)], words[(8, 1)], words[(16, 1)]}) == 4  # calls sharing a lane differ
    checksums = [c[-1] for c in layout["checksum"]]
    assert all(0 < c <= 0xFFFF for c in checksums)
    # Any one of numel, dtype, reduce_op, offset differing changes the checksum (in these cases).
    assert len(set(checksums)) == len(checksums)
    # Seen: 0 = its own word, 1 = another call's (or c10d's 1): keep waiting, 2 = the ranks disagree.
    assert layout["classify"] == [(0, 1, 2, 1)]
    # 0 stays "no limit"; too many milliseconds saturate instead of wrapping to a short timeout.
    assert layout["timeout"] == [(0, 7_000_000, 2**64 - 1)]


def test_cuda_launch_shape_comes_from_the_shared_layout_only():
    # The grid the .cu launches is one_shot_launch_shape()'s (numel and dtype), never a
    # rank-local fact: no SM count, no pointer alignment in it.
    src = CUDA_SOURCE.read_text()
    assert re.findall(r"<<<([^>]*)>>>", src) == ["shape.blocks, shape.threads, 0, stream"]
    assert re.search(r"shape = sm::one_shot_launch_shape\(n, static_cast<int64_t>\(input\.element_size\(\)\)\)", src)
    assert "multiProcessorCount" not in src


# ---------------------------------------------------------------------------
# The CUDA kernel (skipped without GPUs). A gloo group carries the store the
# symmetric-memory rendezvous needs; the tensors are CUDA tensors.
# ---------------------------------------------------------------------------

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
TWO_GPUS = pytest.mark.skipif(
    not (torch.cuda.is_available() and torch.cuda.device_count() >= 2 and torch.cuda.can_device_access_peer(0, 1)),
    reason="needs two CUDA devices with peer access",
)
OUR_SLOTS = 32 + 8 * 24  # channels [0, 224) of one rank's pad, per peer


def _init_cuda_group(rank, world_size, store_path):
    import torch.distributed._symmetric_memory as symm_mem

    torch.cuda.set_device(rank)
    dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=world_size)
    return symm_mem, dist.group.WORLD.group_name, torch.device("cuda", rank)


def _flush_c_stdio():
    """The kernel's printf goes through the C library's stdout: flush it before os._exit."""
    ctypes.CDLL(None).fflush(None)


def _cuda_worker(rank, world_size, store_path, results_dir):
    symm_mem, group_name, device = _init_cuda_group(rank, world_size, store_path)
    try:
        buf = symm_mem.empty(1 << 16, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, group_name)
        checked = 0
        for dtype in DTYPES:
            typed = buf.view(dtype)
            for shape in SHAPES:
                numel = torch.Size(shape).numel()
                # Offset 1 element: no 128-bit accesses on this rank, the same grid as offset 0.
                for offset in (0, 1, 8):
                    x = typed[offset : offset + numel].view(shape)
                    x.copy_(_rank_input(rank, shape, dtype).to(device))
                    for reduce_op in REDUCE_OPS:
                        out = opgen_ops.one_shot_all_reduce(x, reduce_op, group_name)
                        expected = _reference(reduce_op, shape, dtype, world_size).to(device)
                        torch.testing.assert_close(out, expected, rtol=0, atol=0)
                        checked += 1
                    # Rewriting x next is stream-ordered after the kernel's second barrier: no peer reads it then.
                    assert torch.equal(x.cpu(), _rank_input(rank, shape, dtype)), "the input must not change"

        # 25 calls alternating between two streams: lanes wrap around three times.
        shape = (3, 1000)
        x = buf[: 3000].view(shape)
        x.copy_(_rank_input(rank, shape, torch.float32).to(device))
        streams = [torch.cuda.Stream(device), torch.cuda.Stream(device)]
        for stream in streams:
            stream.wait_stream(torch.cuda.current_stream())
        outs = []
        for i in range(3 * 8 + 1):
            with torch.cuda.stream(streams[i % 2]):
                outs.append(opgen_ops.one_shot_all_reduce(x, "sum", group_name))
        torch.cuda.synchronize()
        expected = _reference("sum", shape, torch.float32, world_size).to(device)
        for out in outs:
            torch.testing.assert_close(out, expected, rtol=0, atol=0)
        # Every slot the op used is back at 0 (c10d's rule for signal pads).
        pad = hdl.get_signal_pad(hdl.rank, [OUR_SLOTS * world_size], dtype=torch.int32)
        assert int(pad.count_nonzero()) == 0

        # A timeout that is not a number is an error that names the op and the variable.
        os.environ["OPGEN_SYMM_MEM_TIMEOUT_MS"] = "soon"
        try:
            opgen_ops.one_shot_all_reduce(x, "sum", group_name)
        except RuntimeError as e:
            assert "opgen::one_shot_all_reduce: OPGEN_SYMM_MEM_TIMEOUT_MS must be a whole number" in str(e)
        else:
            raise AssertionError("no error for OPGEN_SYMM_MEM_TIMEOUT_MS=soon")
        finally:
            del os.environ["OPGEN_SYMM_MEM_TIMEOUT_MS"]

        with open(os.path.join(results_dir, f"rank{rank}"), "w") as f:
            f.write(str(checked))
        # Both ranks done before either tears its group down, as in the gloo test.
        dist.barrier()
    finally:
        dist.destroy_process_group()


def _run_cuda_ranks(world_size, tmp_path):
    mp.spawn(_cuda_worker, args=(world_size, str(tmp_path / "store"), str(tmp_path)), nprocs=world_size, join=True)
    expected = len(DTYPES) * len(SHAPES) * 3 * len(REDUCE_OPS)
    for rank in range(world_size):
        assert (tmp_path / f"rank{rank}").read_text() == str(expected)


@CUDA
def test_cuda_one_rank(tmp_path):
    _run_cuda_ranks(1, tmp_path)


@TWO_GPUS
def test_cuda_two_ranks(tmp_path):
    _run_cuda_ranks(2, tmp_path)


def _trap_worker(rank, world_size, store_path, scenario):
    """Runs in a process of its own: the trap leaves its CUDA context unusable."""
    symm_mem, group_name, device = _init_cuda_group(rank, world_size, store_path)
    buf = symm_mem.empty(4096, dtype=torch.float32, device=device)
    hdl = symm_mem.rendezvous(buf, group_name)
    if scenario == "timeout":
        # c10d's signal word parked in every slot of this op's channels: the first raise never lands.
        hdl.get_signal_pad(rank, [OUR_SLOTS * world_size], dtype=torch.int32)[32 * world_size :].fill_(1)
        torch.cuda.synchronize()
        x = buf[:16]
    else:  # "mismatch": numel 1000 on rank 0, 1001 on rank 1 (the same grid of one block)
        x = buf[: 1000 + rank]
    x.fill_(1.0)
    opgen_ops.one_shot_all_reduce(x, "sum", group_name)
    try:
        torch.cuda.synchronize()
        print(f"rank {rank}: no error", flush=True)
    except RuntimeError as e:
        print(f"rank {rank}: host error: {e}", flush=True)
    _flush_c_stdio()
    os._exit(0)


def _small_pad_worker(store_path):
    import torch.distributed._symmetric_memory as symm_mem

    symm_mem.set_signal_pad_size(256)  # before any allocation; this op needs 224 * 4 bytes a rank
    _, group_name, device = _init_cuda_group(0, 1, store_path)
    buf = symm_mem.empty(4096, dtype=torch.float32, device=device)
    symm_mem.rendezvous(buf, group_name)
    try:
        opgen_ops.one_shot_all_reduce(buf[:16], "sum", group_name)
        print("no error", flush=True)
    except RuntimeError as e:
        print(f"host error: {e}", flush=True)
    os._exit(0)


def _run_isolated(call, env=None, timeout=300):
    """Runs `call` (Python source using this module as `t`) in a fresh interpreter."""
    code = f"import sys; sys.path[:0] = {[str(Path(__file__).parent), *sys.path]!r}; import test_symm_mem as t; {call}"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


@CUDA
def test_cuda_wait_is_bounded_and_traps_with_a_message(tmp_path):
    call = f"t._trap_worker(0, 1, {str(tmp_path / 'store')!r}, 'timeout')"
    proc = _run_isolated(call, {"OPGEN_SYMM_MEM_TIMEOUT_MS": "200"})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert (
        "[FATAL] opgen::one_shot_all_reduce: rank 0 timed out after 200 ms signalling rank 0 "
        "(call 0, block 0, channel 32, barrier 1 of 2)" in out
    ), out
    assert "rank 0: host error:" in out, out  # the trap is a CUDA error the host sees


@CUDA
def test_cuda_signal_pad_too_small_is_an_error(tmp_path):
    proc = _run_isolated(f"t._small_pad_worker({str(tmp_path / 'store')!r})")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "host error:" in out, out
    assert re.search(
        r"opgen::one_shot_all_reduce: the symmetric-memory signal pad has \d+ bytes per rank, "
        r"but this op needs 896 for 1 ranks",
        out,
    ), out


@TWO_GPUS
def test_cuda_ranks_that_disagree_trap_at_once(tmp_path):
    # The mismatch is caught by the signal word at once; the 30 s timeout only bounds a failure of that.
    call = f"t.mp.spawn(t._trap_worker, args=(2, {str(tmp_path / 'store')!r}, 'mismatch'), nprocs=2, join=True)"
    proc = _run_isolated(call, {"OPGEN_SYMM_MEM_TIMEOUT_MS": "30000"}, timeout=180)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "[FATAL] opgen::one_shot_all_reduce: rank 0 and rank 1 disagree on call 0" in out, out
    assert "[FATAL] opgen::one_shot_all_reduce: rank 1 and rank 0 disagree on call 0" in out, out
    assert "rank 0: host error:" in out and "rank 1: host error:" in out, out
