// @generated from schemas/softmax_cross_entropy.yaml - DO NOT EDIT
//
// The kernels of opgen::softmax_cross_entropy must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::softmax_cross_entropy_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::softmax_cross_entropy uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::softmax_cross_entropy uses the stable ABI: include \"opgen/kernels/softmax_cross_entropy.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::softmax_cross_entropy targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// softmax_cross_entropy(Tensor logits, Tensor labels, float smoothing=0., int ignore_index=-100) -> (Tensor losses, Tensor max_log_sum_exp)
// Per-row softmax cross-entropy with label smoothing (apex xentropy), logits
// [N, C], labels [N] (int64):
//   losses[n] = lse[n] - (1 - smoothing) * logits[n, labels[n]] - smoothing * mean(logits[n])
// with lse the log-sum-exp of the row; 0 where labels[n] == ignore_index.
// Equals F.cross_entropy(logits, labels, label_smoothing=smoothing,
// ignore_index=ignore_index, reduction="none"). losses have the logits' dtype;
// max_log_sum_exp (lse, float32; float64 for float64 logits) is saved for the
// backward and is not differentiable. A label outside [0, C) (other than
// ignore_index) is an error on the CPU and gives a NaN loss on CUDA.
std::tuple<torch::stable::Tensor, torch::stable::Tensor> softmax_cross_entropy_cpu(const torch::stable::Tensor& logits, const torch::stable::Tensor& labels, double smoothing, int64_t ignore_index);
std::tuple<torch::stable::Tensor, torch::stable::Tensor> softmax_cross_entropy_cuda(const torch::stable::Tensor& logits, const torch::stable::Tensor& labels, double smoothing, int64_t ignore_index);

}  // namespace opgen::kernels
