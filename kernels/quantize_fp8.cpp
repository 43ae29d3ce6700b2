// CPU kernel for opgen::quantize_fp8 (unstable ABI / ATen).
//
//   scale given:  q = saturate_e4m3(input / scale), returned scale = scale as a
//                 0-dim float32 tensor (a copy on input's device)
//   no scale:     scale = max(amax(|input|), 1e-12) / 448, then as above
//
// saturate_e4m3 clamps to [-448, 448] before a round-to-nearest-even cast to
// float8_e4m3fn; NaN stays NaN (a NaN in the input makes the dynamic scale
// NaN, like torch.amax). An empty input without a scale gets the clamp floor,
// scale = 1e-12 / 448. Math is in float32 for every input dtype.

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/quantize_fp8.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <c10/util/Float8_e4m3fn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

namespace {

constexpr const char* kOp = "opgen::quantize_fp8";
constexpr float kFp8Max = 448.0f;
constexpr float kMinAmax = 1e-12f;
constexpr int64_t kGrain = 32768;

inline float nan_max(float a, float b) { return (std::isnan(a) || a > b) ? a : b; }

template <class T>
float abs_max(const T* x, int64_t n) {
  return at::parallel_reduce(
      0, n, kGrain, 0.0f,
      [&](int64_t begin, int64_t end, float acc) {
        for (int64_t i = begin; i < end; ++i) {
          acc = nan_max(acc, std::fabs(static_cast<float>(x[i])));
        }
        return acc;
      },
      nan_max);
}

template <class T>
void quantize(const T* x, c10::Float8_e4m3fn* q, int64_t n, float scale) {
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float v = static_cast<float>(x[i]) / scale;
      v = v > kFp8Max ? kFp8Max : (v < -kFp8Max ? -kFp8Max : v);  // NaN passes through
      q[i] = c10::Float8_e4m3fn(v);
    }
  });
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> opgen::kernels::quantize_fp8_cpu(const at::Tensor& input,
                                                                    const std::optional<at::Tensor>& scale) {
  TORCH_CHECK(input.device().is_cpu(), kOp, ": CPU kernel called with a non-CPU input");
  TORCH_CHECK(at::isFloatingType(input.scalar_type()) && input.scalar_type() != at::kFloat8_e4m3fn, kOp,
              ": expected a floating-point input, got ", input.scalar_type());
  const at::Tensor x = input.contiguous();
  at::Tensor q = at::empty(input.sizes(), input.options().dtype(at::kFloat8_e4m3fn));

  at::Tensor scale_out;
  float s = 0.0f;
  if (scale.has_value()) {
    TORCH_CHECK(scale->numel() == 1, kOp, ": scale must have exactly one element, got ", scale->numel());
    TORCH_CHECK(scale->scalar_type() == at::kFloat, kOp, ": scale must be float32, got ", scale->scalar_type());
    scale_out = scale->reshape({}).to(input.device(), at::kFloat, /*non_blocking=*/false, /*copy=*/true);
    s = scale_out.item<float>();
  }

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "opgen::quantize_fp8", [&] {
    const scalar_t* xp = x.const_data_ptr<scalar_t>();
    const int64_t n = x.numel();
    if (!scale.has_value()) {
      const float amax = abs_max(xp, n);
      s = nan_max(amax, kMinAmax) / kFp8Max;
      scale_out = at::scalar_tensor(s, input.options().dtype(at::kFloat));
    }
    quantize(xp, q.mutable_data_ptr<c10::Float8_e4m3fn>(), n, s);
  });
  return {q, scale_out};
}
