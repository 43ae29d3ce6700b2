// CPU kernel for opgen::multi_tensor_l2norm (unstable ABI / ATen).
//
// Returns (total, per_tensor): per_tensor[i] = ||tensors[i]||_2 (float32,
// shape [len(tensors)]), total = sqrt(sum_i per_tensor[i]^2) (0-dim float32).
// Sums of squares are accumulated in float32 (float64 for float64 tensors).
// An empty list gives total = 0 and per_tensor of shape [0] (on the CPU).

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/multi_tensor_l2norm.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace {

constexpr const char* kOp = "opgen::multi_tensor_l2norm";
constexpr int64_t kGrain = 32768;

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
acc_t<T> sum_squares(const T* x, int64_t n) {
  using A = acc_t<T>;
  return at::parallel_reduce(
      0, n, kGrain, A(0),
      [&](int64_t begin, int64_t end, A acc) {
        constexpr int kLanes = 8;
        A lanes[kLanes] = {};
        int64_t i = begin;
        for (; i + kLanes <= end; i += kLanes) {
          for (int k = 0; k < kLanes; ++k) {
            const A v = static_cast<A>(x[i + k]);
            lanes[k] += v * v;
          }
        }
        for (; i < end; ++i) {
          const A v = static_cast<A>(x[i]);
          acc += v * v;
        }
        for (int k = 0; k < kLanes; ++k) {
          acc += lanes[k];
        }
        return acc;
      },
      [](A a, A b) { return a + b; });
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> opgen::kernels::multi_tensor_l2norm_cpu(at::TensorList tensors) {
  const auto n = static_cast<int64_t>(tensors.size());
  const at::Device device = n > 0 ? tensors[0].device() : at::Device(at::kCPU);
  TORCH_CHECK(device.is_cpu(), kOp, ": CPU kernel called with non-CPU tensors");
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  at::Tensor per_tensor = at::empty({n}, opts);
  float* per = per_tensor.mutable_data_ptr<float>();

  double total_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const at::Tensor& t = tensors[i];
    TORCH_CHECK(t.device() == device, kOp, ": all tensors must be on the same device; tensor 0 is on ", device,
                ", tensor ", i, " on ", t.device());
    const at::Tensor c = t.is_non_overlapping_and_dense() ? t : t.contiguous();
    double sq = 0.0;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, c.scalar_type(), "opgen::multi_tensor_l2norm", [&] {
      sq = static_cast<double>(sum_squares(c.const_data_ptr<scalar_t>(), c.numel()));
    });
    per[i] = static_cast<float>(std::sqrt(sq));
    total_sq += sq;
  }
  at::Tensor total = at::scalar_tensor(static_cast<float>(std::sqrt(total_sq)), opts);
  return {total, per_tensor};
}
