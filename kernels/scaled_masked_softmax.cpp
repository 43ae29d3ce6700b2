// CPU kernels for opgen::scaled_masked_softmax and its backward (stable ABI).
//
//   forward:  v = mask ? -10000 : input * scale;  y = softmax(v, -1)
//   backward: dx = mask ? 0 : scale * y * (g - sum(g * y, -1))
//
// mask (bool/uint8, nonzero = masked) is [B or 1, H or 1, Sq, Sk] for a
// [B, H, Sq, Sk] input. Math in float (double for float64). Non-contiguous
// inputs are made contiguous; outputs have torch.empty_like's layout.

#include "opgen/kernels/scaled_masked_softmax.h"
#include "opgen/kernels/scaled_masked_softmax_backward.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;
using torch::stable::Tensor;

constexpr double kMaskedValue = -10000.0;

// Row r of a [B, H, Sq, Sk] input -> offset of its mask row in a contiguous
// [Bm, Hm, Sq, Sk] mask (Bm, Hm broadcast when 1).
struct MaskRows {
  const uint8_t* data = nullptr;
  int64_t heads = 1, sq = 1, batch_stride = 0, head_stride = 0, sk = 0;

  const uint8_t* row(int64_t r) const {
    if (data == nullptr) return nullptr;
    const int64_t s = r % sq;
    const int64_t h = (r / sq) % heads;
    const int64_t b = r / (sq * heads);
    return data + b * batch_stride + h * head_stride + s * sk;
  }
};

MaskRows mask_rows(const Tensor& input, const std::optional<Tensor>& mask, const Tensor& mask_contig,
                   const char* op) {
  MaskRows m;
  if (!mask.has_value()) return m;
  STD_TORCH_CHECK(input.dim() == 4 && mask->dim() == 4, op, ": with a mask, input and mask must be 4-D");
  STD_TORCH_CHECK(mask->size(0) == 1 || mask->size(0) == input.size(0), op, ": mask.size(0) must be 1 or B");
  STD_TORCH_CHECK(mask->size(1) == 1 || mask->size(1) == input.size(1), op, ": mask.size(1) must be 1 or H");
  STD_TORCH_CHECK(mask->size(2) == input.size(2) && mask->size(3) == input.size(3), op,
                  ": mask must match the input in its last two dimensions");
  m.data = static_cast<const uint8_t*>(mask_contig.const_data_ptr());
  m.heads = input.size(1);
  m.sq = input.size(2);
  m.sk = input.size(3);
  m.head_stride = mask->size(1) == 1 ? 0 : m.sq * m.sk;
  m.batch_stride = mask->size(0) == 1 ? 0 : mask->size(1) * m.sq * m.sk;
  return m;
}

template <class T>
void softmax_rows(const T* x, const MaskRows& mask, T* y, int64_t rows, int64_t cols, double scale) {
  using A = acc_t<T>;
  const A scale_a = static_cast<A>(scale);
  const A masked = static_cast<A>(kMaskedValue);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(cols), [&](int64_t begin, int64_t end) {
    std::vector<A> v(static_cast<size_t>(cols));
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * cols;
      const uint8_t* mr = mask.row(r);
      A mx = -std::numeric_limits<A>::infinity();
      for (int64_t j = 0; j < cols; ++j) {
        v[j] = (mr != nullptr && mr[j] != 0) ? masked : to_acc(xr[j]) * scale_a;
        mx = std::max(mx, v[j]);
      }
      A sum = 0;
      for (int64_t j = 0; j < cols; ++j) {
        v[j] = std::exp(v[j] - mx);
        sum += v[j];
      }
      const A inv = A(1) / sum;
      T* yr = y + r * cols;
      for (int64_t j = 0; j < cols; ++j) yr[j] = static_cast<T>(v[j] * inv);
    }
  });
}

template <class T>
void softmax_backward_rows(const T* g, const T* y, const MaskRows& mask, T* dx, int64_t rows, int64_t cols,
                           double scale) {
  using A = acc_t<T>;
  const A scale_a = static_cast<A>(scale);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* gr = g + r * cols;
      const T* yr = y + r * cols;
      const uint8_t* mr = mask.row(r);
      A dot = 0;
      for (int64_t j = 0; j < cols; ++j) dot += to_acc(gr[j]) * to_acc(yr[j]);
      T* dr = dx + r * cols;
      for (int64_t j = 0; j < cols; ++j) {
        const bool masked = mr != nullptr && mr[j] != 0;
        dr[j] = static_cast<T>(masked ? A(0) : scale_a * to_acc(yr[j]) * (to_acc(gr[j]) - dot));
      }
    }
  });
}

}  // namespace

torch::stable::Tensor opgen::kernels::scaled_masked_softmax_cpu(const torch::stable::Tensor& input,
                                                                const std::optional<torch::stable::Tensor>& mask,
                                                                double scale) {
  constexpr const char* kOp = "opgen::scaled_masked_softmax";
  STD_TORCH_CHECK(input.is_cpu() && (!mask.has_value() || mask->is_cpu()), kOp,
                  ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  const Tensor mask_c = mask.has_value() ? common::contiguous_or_self(*mask) : Tensor();
  const MaskRows m = mask_rows(input, mask, mask_c, kOp);
  common::OutputBuffer y(input);
  if (input.numel() == 0) return y.finish();
  const Tensor x = common::contiguous_or_self(input);
  common::dispatch_floating<cpu::CpuTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_rows<T>(x.const_data_ptr<T>(), m, y.work().mutable_data_ptr<T>(), shape.rows, shape.hidden, scale);
  });
  return y.finish();
}

torch::stable::Tensor opgen::kernels::scaled_masked_softmax_backward_cpu(
    const torch::stable::Tensor& grad, const torch::stable::Tensor& output,
    const std::optional<torch::stable::Tensor>& mask, double scale) {
  constexpr const char* kOp = "opgen::scaled_masked_softmax_backward";
  STD_TORCH_CHECK(grad.is_cpu() && output.is_cpu() && (!mask.has_value() || mask->is_cpu()), kOp,
                  ": CPU kernel called with non-CPU tensors");
  STD_TORCH_CHECK(common::same_sizes(grad, output), kOp, ": grad must have the output's shape");
  const auto shape = common::row_shape(output, kOp);
  const Tensor mask_c = mask.has_value() ? common::contiguous_or_self(*mask) : Tensor();
  const MaskRows m = mask_rows(output, mask, mask_c, kOp);
  common::OutputBuffer dx(output);
  if (output.numel() == 0) return dx.finish();
  const Tensor g = common::contiguous_or_self(grad);
  const Tensor y = common::contiguous_or_self(output);
  common::dispatch_floating<cpu::CpuTypes>(y.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_backward_rows<T>(g.const_data_ptr<T>(), y.const_data_ptr<T>(), m, dx.work().mutable_data_ptr<T>(),
                             shape.rows, shape.hidden, scale);
  });
  return dx.finish();
}
