// Host-side CUDA helpers for the stable-ABI kernels: current stream, SM count.
// Stable-ABI 2.10 APIs only (no ATen / c10).
#pragma once

#ifndef USE_CUDA
#error "stable_cuda_utils.h needs USE_CUDA (aoti_torch_get_current_cuda_stream is declared under it)"
#endif

#include <cuda_runtime.h>

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/util/shim_utils.h>

#include <cstdint>

namespace opgen::kernels::cuda {

// PyTorch's current CUDA stream for `device_index`.
// (torch::stable::accelerator::Stream::nativeHandle() is 2.13+, so use the
// AOTI shim, which exists since 2.9.) The header-only TORCH_ERROR_CODE_CHECK
// is in every release from 2.10; STABLE_TORCH_ERROR_CODE_CHECK (its richer
// message) appeared after 2.11 without a TORCH_FEATURE_VERSION guard, so a
// build against newer headers would not notice. The ABI matrix and the
// device-check rehearsal compile these kernels against the older releases.
inline cudaStream_t current_stream(int32_t device_index) {
  void* stream = nullptr;
  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(device_index, &stream));
  return static_cast<cudaStream_t>(stream);
}

inline int sm_count(int32_t device_index) {
  int count = 0;
  STD_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device_index));
  return count;
}

}  // namespace opgen::kernels::cuda
