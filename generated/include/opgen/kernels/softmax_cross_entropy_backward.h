// @generated from schemas/softmax_cross_entropy_backward.yaml - DO NOT EDIT
//
// The kernels of opgen::softmax_cross_entropy_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor opgen::kernels::softmax_cross_entropy_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::softmax_cross_entropy_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::softmax_cross_entropy_backward uses the stable ABI: include \"opgen/kernels/softmax_cross_entropy_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::softmax_cross_entropy_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// softmax_cross_entropy_backward(Tensor grad_losses, Tensor logits, Tensor max_log_sum_exp, Tensor labels, float smoothing, int ignore_index) -> Tensor
// Gradient of softmax_cross_entropy with respect to the logits:
// grad_losses[n] * (softmax(logits[n]) - (1 - smoothing) * onehot(labels[n]) - smoothing / C),
// 0 for ignored rows.
torch::stable::Tensor softmax_cross_entropy_backward_cpu(const torch::stable::Tensor& grad_losses, const torch::stable::Tensor& logits, const torch::stable::Tensor& max_log_sum_exp, const torch::stable::Tensor& labels, double smoothing, int64_t ignore_index);
torch::stable::Tensor softmax_cross_entropy_backward_cuda(const torch::stable::Tensor& grad_losses, const torch::stable::Tensor& logits, const torch::stable::Tensor& max_log_sum_exp, const torch::stable::Tensor& labels, double smoothing, int64_t ignore_index);

}  // namespace opgen::kernels
