// The stable-ABI kernels' bodies, shared by the opgen ops (kernels/stable.cpp)
// and the same ops registered by hand (manual_stable_library.cpp), so that
// both variants run the very same code. Include after the TORCH_TARGET_VERSION
// is set.
#pragma once

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

namespace bench_stable {

// torch::stable::empty_like goes through torch_call_dispatcher, which finds
// aten::empty_like by name and calls it boxed, on every call.
inline torch::stable::Tensor empty_like(const torch::stable::Tensor& x) { return torch::stable::empty_like(x); }

// The C shim's aoti_torch_empty_strided calls at::empty_strided directly: the
// same ATen call as the unstable and handwritten variants of this kernel make.
inline torch::stable::Tensor empty_strided(const torch::stable::Tensor& x) {
  int32_t dtype = 0, device_type = 0, device_index = 0;
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_get_dtype(x.get(), &dtype));
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_type(x.get(), &device_type));
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_index(x.get(), &device_index));
  const auto sizes = x.sizes();
  const auto strides = x.strides();
  AtenTensorHandle out = nullptr;
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()), sizes.data(),
                                                         strides.data(), dtype, device_type, device_index, &out));
  return torch::stable::Tensor(out);
}

inline void noop(const torch::stable::Tensor&) {}

}  // namespace bench_stable
