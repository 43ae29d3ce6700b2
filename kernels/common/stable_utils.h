// Host-side helpers shared by the stable-ABI kernels (CPU and CUDA).
//
// Only LibTorch stable-ABI / header-only headers may be included here, and only
// APIs available at TORCH_TARGET_VERSION 2.10 may be used.
#pragma once

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/macros/Macros.h>
#include <torch/headeronly/util/Exception.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

// Hidden visibility like torch::stable itself (these helpers hold stable types,
// which are hidden, and are internal to the op library anyway).
HIDDEN_NAMESPACE_BEGIN(opgen, kernels, common)

using torch::headeronly::ScalarType;

template <class T>
struct TypeTag {
  using type = T;
};

// Accumulation type: double for double, float for everything else
// (float, half, bfloat16 on either host or device).
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Dispatches a floating dtype to `f(TypeTag<T>{})`, where T is taken from the
// `Types` table (`Types::Float`, `Types::Double`, `Types::Half`,
// `Types::BFloat16`), so CPU code gets c10::Half / c10::BFloat16 and CUDA code
// gets __half / __nv_bfloat16.
template <class Types, class F>
void dispatch_floating(ScalarType st, const char* op, F&& f) {
  switch (st) {
    case ScalarType::Float:
      f(TypeTag<typename Types::Float>{});
      return;
    case ScalarType::Double:
      f(TypeTag<typename Types::Double>{});
      return;
    case ScalarType::Half:
      f(TypeTag<typename Types::Half>{});
      return;
    case ScalarType::BFloat16:
      f(TypeTag<typename Types::BFloat16>{});
      return;
    default:
      STD_TORCH_CHECK(false, op, ": unsupported dtype ", torch::headeronly::toString(st),
                      " (expected float32, float64, float16 or bfloat16)");
  }
}

// Dispatches the (input, weight) dtype pair of a norm op to
// `f(TypeTag<T>{}, TypeTag<W>{})`. Supported: weight dtype == input dtype, or a
// float32 weight with a float16/bfloat16 input (fp32 "master" weights).
template <class Types, class F>
void dispatch_norm_types(ScalarType input_st, ScalarType weight_st, const char* op, F&& f) {
  dispatch_floating<Types>(input_st, op, [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    if (weight_st == input_st) {
      f(in_tag, in_tag);
      return;
    }
    if constexpr (!std::is_same_v<T, typename Types::Float> &&
                  !std::is_same_v<T, typename Types::Double>) {
      if (weight_st == ScalarType::Float) {
        f(in_tag, TypeTag<typename Types::Float>{});
        return;
      }
    }
    STD_TORCH_CHECK(false, op, ": weight dtype ", torch::headeronly::toString(weight_st),
                    " is not supported with input dtype ", torch::headeronly::toString(input_st),
                    " (weight must have the input's dtype, or float32 for a float16/bfloat16 input)");
  });
}

// [..., hidden] viewed as [rows, hidden]. Works for hidden == 0 and rows == 0.
struct RowShape {
  int64_t rows;
  int64_t hidden;
};

inline RowShape row_shape(const torch::stable::Tensor& t, const char* op) {
  const auto sizes = t.sizes();
  STD_TORCH_CHECK(!sizes.empty(), op, ": expected a tensor with at least 1 dimension, got a 0-dim tensor");
  RowShape rs{1, sizes[sizes.size() - 1]};
  for (size_t d = 0; d + 1 < sizes.size(); ++d) {
    rs.rows *= sizes[d];
  }
  return rs;
}

// The dtype statistics and other float accumulators are stored in: float64
// for a float64 input, float32 otherwise.
inline ScalarType acc_scalar_type(ScalarType st) {
  return st == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

// t.shape[:-1], for per-row outputs (t.dim() >= 1).
inline std::vector<int64_t> leading_sizes(const torch::stable::Tensor& t) {
  const auto sizes = t.sizes();
  return std::vector<int64_t>(sizes.begin(), sizes.end() - (sizes.empty() ? 0 : 1));
}

inline bool same_sizes(const torch::stable::Tensor& a, const torch::stable::Tensor& b) {
  const auto sa = a.sizes();
  const auto sb = b.sizes();
  return sa.size() == sb.size() && std::equal(sa.begin(), sa.end(), sb.begin());
}

// Checks the weight of a norm op: 1-D of size `hidden`, same device as input.
inline void check_norm_weight(const torch::stable::Tensor& input, const torch::stable::Tensor& weight,
                              int64_t hidden, const char* op) {
  STD_TORCH_CHECK(weight.dim() == 1, op, ": expected a 1-D weight of shape [", hidden, "], got a ", weight.dim(),
                  "-D weight");
  STD_TORCH_CHECK(weight.size(0) == hidden, op, ": expected weight of shape [", hidden,
                  "] (the input's last dimension), got [", weight.size(0), "]");
  STD_TORCH_CHECK(weight.get_device_index() == input.get_device_index() &&
                      weight.is_cuda() == input.is_cuda(),
                  op, ": weight must be on the same device as input");
}

// True when the elements of `t` occupy exactly [data_ptr, data_ptr + numel)
// (some permutation of a contiguous layout). Order-independent elementwise
// in-place ops can then run on the raw buffer. Mirrors
// c10::TensorImpl::compute_non_overlapping_and_dense.
inline bool is_non_overlapping_and_dense(const torch::stable::Tensor& t) {
  if (t.is_contiguous()) {
    return true;
  }
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  const size_t n = sizes.size();
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), size_t{0});
  // Size-0/1 dims last, the rest by increasing stride.
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    const bool a_small = sizes[a] < 2;
    const bool b_small = sizes[b] < 2;
    if (a_small != b_small) {
      return b_small;
    }
    return !a_small && strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t d = perm[i];
    if (sizes[d] < 2) {
      return true;
    }
    if (strides[d] != expected) {
      return false;
    }
    expected *= sizes[d];
  }
  return true;
}

// Returns `t` itself when contiguous, else a contiguous copy.
inline torch::stable::Tensor contiguous_or_self(const torch::stable::Tensor& t) {
  return t.is_contiguous() ? t : torch::stable::contiguous(t);
}

// Working buffer for an in-place op on a tensor whose layout the kernel cannot
// handle directly: `work()` is the tensor itself when `usable` is true, else a
// contiguous copy that `commit()` copies back (stream-ordered on CUDA).
class InplaceBuffer {
 public:
  InplaceBuffer(const torch::stable::Tensor& t, bool usable)
      : orig_(t), work_(usable ? t : torch::stable::contiguous(t)), copy_back_(!usable) {}

  torch::stable::Tensor& work() { return work_; }

  void commit() {
    if (copy_back_) {
      torch::stable::copy_(orig_, work_);
    }
  }

 private:
  torch::stable::Tensor orig_;
  torch::stable::Tensor work_;
  bool copy_back_;
};

// Output with the layout of torch.empty_like(like) (what a `like(x)` fake rule
// promises: x's strides when x is dense, else contiguous). Kernels write a
// contiguous buffer, `work()`: the output itself when that layout is
// contiguous (always when x is), else a temporary that `finish()` copies in.
class OutputBuffer {
 public:
  explicit OutputBuffer(const torch::stable::Tensor& like)
      : out_(torch::stable::empty_like(like)),
        work_(out_.is_contiguous() ? out_ : torch::stable::new_empty(out_, out_.sizes())),
        copy_back_(!out_.is_contiguous()) {}

  torch::stable::Tensor& work() { return work_; }

  torch::stable::Tensor finish() {
    if (copy_back_) {
      torch::stable::copy_(out_, work_);
    }
    return out_;
  }

 private:
  torch::stable::Tensor out_;
  torch::stable::Tensor work_;
  bool copy_back_;
};

HIDDEN_NAMESPACE_END(opgen, kernels, common)
