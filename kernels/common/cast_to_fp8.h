// opgen::cast_to_fp8 in ATen ops, one implementation for every device: the
// CPU and the CUDA kernel (kernels/cast_to_fp8.{cpp,cu}) differ only in the
// device check. The spec's doc gives the math.
#pragma once

#include "opgen/kernels/cast_to_fp8.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/ceil.h>
#include <ATen/ops/exp2.h>
#include <ATen/ops/log2.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include <string>
#include <tuple>

namespace opgen::kernels::detail {

// All-reduces `tensor` in place over the process group named `group_name`
// (c10d's registry), by sum or max. Defined in kernels/cast_to_fp8.cpp, so
// that the CUDA kernels' TU (nvcc) does without c10d's headers.
void all_reduce(at::Tensor& tensor, const std::string& group_name, bool max, const char* op);

inline std::tuple<at::Tensor, at::Tensor> cast_to_fp8(const at::Tensor& input, const Float8Quantizer& quantizer,
                                                      const std::optional<ProcessGroup>& amax_group) {
  constexpr const char* kOp = "opgen::cast_to_fp8";
  const double fp8_max = quantizer.fp8_dtype == at::kFloat8_e4m3fn ? 448.0 : 57344.0;  // e5m2
  const at::Tensor x = input.to(at::kFloat);
  at::Tensor amax = x.numel() == 0 ? at::zeros({}, x.options()) : x.abs().amax();
  if (amax_group) all_reduce(amax, amax_group->group_name, /*max=*/true, kOp);
  at::Tensor scale_inv = at::where(amax > 0, amax.clamp_min(quantizer.amax_epsilon) / fp8_max, at::ones_like(amax));
  if (quantizer.force_pow_2_scales) scale_inv = at::exp2(at::ceil(at::log2(scale_inv)));
  at::Tensor data = (x / scale_inv).clamp(-fp8_max, fp8_max).to(quantizer.fp8_dtype);
  return {data, scale_inv};
}

}  // namespace opgen::kernels::detail
