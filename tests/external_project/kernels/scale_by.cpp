// opgen_ext::scale_by (stable ABI): host objects as generated structs.

#include "opgen_ext/kernels/scale_by.h"

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <cstdint>
#include <vector>

namespace {

std::vector<double> as_doubles(const torch::stable::Tensor& t) {
  std::vector<double> out(t.numel());
  if (t.scalar_type() == torch::headeronly::ScalarType::Double) {
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = t.const_data_ptr<double>()[i];
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = t.const_data_ptr<float>()[i];
  }
  return out;
}

}  // namespace

torch::stable::Tensor opgen_ext::kernels::scale_by_cpu(const torch::stable::Tensor& x, const Scaling& scaling,
                                                       const std::optional<Scaling>& shift) {
  std::vector<double> y = as_doubles(x);
  const std::vector<double> bias = scaling.bias ? as_doubles(*scaling.bias) : std::vector<double>(y.size(), 0.0);
  const double offset = static_cast<double>(scaling.label.size()) +
                        (shift ? shift->factor * static_cast<double>(shift->label.size()) : 0.0);
  for (size_t i = 0; i < y.size(); ++i) y[i] = y[i] * scaling.factor + bias[i] + offset;
  const auto dtype = scaling.out_dtype.value_or(x.scalar_type());
  torch::stable::Tensor out = torch::stable::new_empty(x, x.sizes(), dtype);
  if (dtype == torch::headeronly::ScalarType::Double) {
    for (size_t i = 0; i < y.size(); ++i) out.mutable_data_ptr<double>()[i] = y[i];
  } else {
    for (size_t i = 0; i < y.size(); ++i) out.mutable_data_ptr<float>()[i] = static_cast<float>(y[i]);
  }
  return out;
}
