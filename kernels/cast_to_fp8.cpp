// CPU kernel for opgen::cast_to_fp8 (unstable ABI / ATen + c10d).
#include "common/cast_to_fp8.h"

std::tuple<at::Tensor, at::Tensor> opgen::kernels::cast_to_fp8_cpu(const at::Tensor& input,
                                                                   const Float8Quantizer& quantizer,
                                                                   const std::optional<ProcessGroup>& amax_group) {
  TORCH_CHECK(input.device().is_cpu(), "opgen::cast_to_fp8: CPU kernel called with a non-CPU input");
  return detail::cast_to_fp8(input, quantizer, amax_group);
}
