// CPU kernel for opgen_ext::rms_norm, vLLM's signature (stable ABI): writes
// into `result`, returns nothing.

#include "opgen_ext/kernels/rms_norm.h"

#include <torch/headeronly/core/ScalarType.h>

#include <cmath>
#include <cstdint>

namespace {

template <class T>
void rms_norm(T* out, const T* x, const T* w, int64_t rows, int64_t cols, double epsilon) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * cols;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += static_cast<double>(row[c]) * static_cast<double>(row[c]);
    const double scale = 1.0 / std::sqrt(sum / static_cast<double>(cols) + epsilon);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<T>(static_cast<double>(row[c]) * scale * w[c]);
  }
}

}  // namespace

void opgen_ext::kernels::rms_norm_cpu(torch::stable::Tensor& result, const torch::stable::Tensor& input,
                                      const torch::stable::Tensor& weight, double epsilon) {
  const int64_t cols = input.size(input.dim() - 1);
  const int64_t rows = cols == 0 ? 0 : input.numel() / cols;
  if (input.scalar_type() == torch::headeronly::ScalarType::Double) {
    rms_norm(result.mutable_data_ptr<double>(), input.const_data_ptr<double>(), weight.const_data_ptr<double>(), rows,
             cols, epsilon);
  } else {  // float32: the spec's dtype check allows nothing else
    rms_norm(result.mutable_data_ptr<float>(), input.const_data_ptr<float>(), weight.const_data_ptr<float>(), rows,
             cols, epsilon);
  }
}
