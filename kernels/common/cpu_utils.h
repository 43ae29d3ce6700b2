// Helpers shared by the CPU kernels. Header-only torch headers only, so both
// stable-ABI and ATen kernels may include it.
#pragma once

#include <torch/headeronly/util/BFloat16.h>
#include <torch/headeronly/util/Half.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace opgen::kernels::cpu {

// Type table for common::dispatch_floating / dispatch_norm_types.
struct CpuTypes {
  using Float = float;
  using Double = double;
  using Half = c10::Half;
  using BFloat16 = c10::BFloat16;
};

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
inline acc_t<T> to_acc(T v) {
  return static_cast<acc_t<T>>(v);
}

template <class T, class A>
inline T from_acc(A v) {
  return static_cast<T>(v);
}

// Rows per parallel_for task so that a task touches at least ~32K elements.
inline int64_t row_grain(int64_t hidden) {
  constexpr int64_t kElemsPerTask = 32768;
  return std::max<int64_t>(1, kElemsPerTask / std::max<int64_t>(hidden, 1));
}

inline constexpr int64_t kElementwiseGrain = 32768;

// Sum of squares of n values with a few independent accumulators (ILP / lets
// the compiler vectorize without -ffast-math).
template <class T>
inline acc_t<T> sum_squares(const T* x, int64_t n) {
  using A = acc_t<T>;
  constexpr int kLanes = 8;
  A acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) {
      const A v = to_acc(x[i + k]);
      acc[k] += v * v;
    }
  }
  A total = 0;
  for (int k = 0; k < kLanes; ++k) {
    total += acc[k];
  }
  for (; i < n; ++i) {
    const A v = to_acc(x[i]);
    total += v * v;
  }
  return total;
}

}  // namespace opgen::kernels::cpu
