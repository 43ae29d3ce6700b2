// CPU kernel for opgen::tiled_gemm (stable ABI): out = a @ b (+ bias) by
// tiles of runner.tile_m x runner.tile_n with float32 accumulation, in
// runner.out_dtype. The runner's fields arrive as the generated struct
// GemmRunner (schemas/_types.yaml); the op carries the runner object, so its
// Python-defined wrapper reads them each call: the tiles below are the
// calling runner's even inside a graph compiled with another one.

#include "opgen/kernels/tiled_gemm.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using opgen::kernels::cpu::CpuTypes;
using torch::stable::Tensor;

constexpr const char* kOp = "opgen::tiled_gemm";

// A tensor's elements as float32, in row-major order.
std::vector<float> to_floats(const Tensor& t) {
  const Tensor c = opgen::kernels::common::contiguous_or_self(t);
  std::vector<float> out(static_cast<size_t>(c.numel()));
  opgen::kernels::common::dispatch_floating<CpuTypes>(c.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = c.const_data_ptr<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
  });
  return out;
}

}  // namespace

torch::stable::Tensor opgen::kernels::tiled_gemm_cpu(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                                                     const GemmRunner& runner,
                                                     const std::optional<torch::stable::Tensor>& bias) {
  STD_TORCH_CHECK(a.is_cpu() && b.is_cpu(), kOp, ": CPU kernel called with non-CPU tensors");
  // The runner's class refuses such tiles; a field set afterwards reaches here.
  STD_TORCH_CHECK(runner.tile_m > 0 && runner.tile_n > 0, kOp, ": the runner's tiles must be positive, not ",
                  runner.tile_m, "x", runner.tile_n);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const std::vector<float> lhs = to_floats(a), rhs = to_floats(b);
  std::vector<float> acc(static_cast<size_t>(m * n), 0.0f);
  if (bias) {
    const std::vector<float> row = to_floats(*bias);
    for (int64_t i = 0; i < m; ++i) std::copy(row.begin(), row.end(), acc.begin() + i * n);
  }
  // One tile of the output at a time, as a GPU block would compute it.
  torch::stable::parallel_for(0, (m + runner.tile_m - 1) / runner.tile_m, 1, [&](int64_t begin, int64_t end) {
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t i0 = tile * runner.tile_m, i1 = std::min(m, i0 + runner.tile_m);
      for (int64_t j0 = 0; j0 < n; j0 += runner.tile_n) {
        const int64_t j1 = std::min(n, j0 + runner.tile_n);
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t p = 0; p < k; ++p) {
            const float x = lhs[static_cast<size_t>(i * k + p)];
            for (int64_t j = j0; j < j1; ++j) acc[static_cast<size_t>(i * n + j)] += x * rhs[static_cast<size_t>(p * n + j)];
          }
      }
    }
  });
  Tensor out = torch::stable::new_empty(a, {m, n}, runner.out_dtype);
  opgen::kernels::common::dispatch_floating<CpuTypes>(runner.out_dtype, kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.mutable_data_ptr<T>();
    for (size_t i = 0; i < acc.size(); ++i) p[i] = static_cast<T>(acc[i]);
  });
  return out;
}
