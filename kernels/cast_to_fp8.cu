// CUDA kernel for opgen::cast_to_fp8 (unstable ABI / ATen + c10d): the same
// ATen ops as on the CPU, launched on the input's device.
#include "common/cast_to_fp8.h"

std::tuple<at::Tensor, at::Tensor> opgen::kernels::cast_to_fp8_cuda(const at::Tensor& input,
                                                                    const Float8Quantizer& quantizer,
                                                                    const std::optional<ProcessGroup>& amax_group) {
  TORCH_CHECK(input.is_cuda(), "opgen::cast_to_fp8: CUDA kernel called with a non-CUDA input");
  return detail::cast_to_fp8(input, quantizer, amax_group);
}
