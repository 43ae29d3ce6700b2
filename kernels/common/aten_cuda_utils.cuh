// Helpers for the ATen (unstable-ABI) CUDA kernels.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace opgen::kernels::cuda {

// ATen scalar type -> the CUDA type used in device code (cuda_utils.cuh).
template <class T>
struct ToCudaType {
  using type = T;
};
template <>
struct ToCudaType<c10::Half> {
  using type = __half;
};
template <>
struct ToCudaType<c10::BFloat16> {
  using type = __nv_bfloat16;
};
template <class T>
using cuda_type_t = typename ToCudaType<T>::type;

}  // namespace opgen::kernels::cuda
