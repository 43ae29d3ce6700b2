"""A CuTeDSL-shaped GEMM: the kernel is a Python runner object, built
("compiled") once for its configuration and then called (opgen::runner_gemm,
schemas/runner_gemm.yaml). CuTeDSL libraries keep such compiled kernels in a
registry and pass an int id; here the op takes the runner itself, a symbolic
host object (schemas/_types.yaml): under torch.compile it is a graph input,
so one graph serves every runner whose out_dtype (what the fake reads) is
equal, and the kernel calls the object it was given."""

from __future__ import annotations

import torch

try:  # the base PyTorch requires of a symbolic opaque class, by release
    from torch._custom_class_base import CustomClassBase as _SymbolicBase  # 2.14+
except ImportError:
    try:
        from torch._library.opaque_object import OpaqueBase as _SymbolicBase  # 2.11-2.13
    except ImportError:
        _SymbolicBase = object  # 2.10


class GemmRunner(_SymbolicBase):
    """out = a @ b (+ bias), in out_dtype, by tiles of tile_m x tile_n with
    float32 accumulation. Building one "compiles" the kernel for its tiles
    (a DSL would JIT here); calls counts the launches."""

    # Annotated: opcheck's schema test infers a symbolic object's attributes
    # through TorchScript, which takes an unannotated one for a Tensor.
    out_dtype: torch.dtype
    tile_m: int
    tile_n: int
    calls: int

    def __init__(self, out_dtype: torch.dtype = torch.float32, tile_m: int = 64, tile_n: int = 64):
        if tile_m < 1 or tile_n < 1:
            raise ValueError(f"GemmRunner: tiles must be positive, not {tile_m}x{tile_n}")
        self.out_dtype = out_dtype
        self.tile_m = tile_m
        self.tile_n = tile_n
        self.calls = 0
        self._kernel = self._compile()

    # Inductor's FX graph cache pickles a graph's inputs into its key: the
    # state is the configuration; the compiled kernel is rebuilt from it.
    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_kernel"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._kernel = self._compile()

    def __repr__(self) -> str:
        return f"GemmRunner(out_dtype={self.out_dtype}, tile_m={self.tile_m}, tile_n={self.tile_n})"

    def _compile(self):
        tile_m, tile_n = self.tile_m, self.tile_n

        def kernel(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
            for i in range(0, a.size(0), tile_m):
                for j in range(0, b.size(1), tile_n):
                    out[i:i + tile_m, j:j + tile_n] = a[i:i + tile_m].float() @ b[:, j:j + tile_n].float()

        return kernel

    def __call__(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        self.calls += 1
        acc = torch.empty(a.size(0), b.size(1), dtype=torch.float32, device=a.device)
        self._kernel(a, b, acc)
        if bias is not None:
            acc += bias.float()
        return acc.to(self.out_dtype)

    def backward(self, grad: torch.Tensor, a: torch.Tensor, b: torch.Tensor):
        """The gradients of out = a @ b + bias by the same kernel: grad @ b.T
        in a's dtype, a.T @ grad in b's, and grad summed over rows (float32)."""
        self.calls += 1
        grad_a = torch.empty(a.shape, dtype=torch.float32, device=a.device)
        grad_b = torch.empty(b.shape, dtype=torch.float32, device=b.device)
        self._kernel(grad, b.t(), grad_a)
        self._kernel(a.t(), grad, grad_b)
        return grad_a.to(a.dtype), grad_b.to(b.dtype), grad.float().sum(0)


def run(a: torch.Tensor, b: torch.Tensor, runner: GemmRunner, bias: torch.Tensor | None = None) -> torch.Tensor:
    """The op's kernel on every device: the runner it was given."""
    return runner(a, b, bias)


def run_backward(grad: torch.Tensor, a: torch.Tensor, b: torch.Tensor, runner: GemmRunner):
    """runner_gemm_backward's kernel on every device: the forward's runner."""
    return runner.backward(grad, a, b)
