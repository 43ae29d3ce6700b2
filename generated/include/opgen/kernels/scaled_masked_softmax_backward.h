// @generated from schemas/scaled_masked_softmax_backward.yaml - DO NOT EDIT
//
// The kernels of opgen::scaled_masked_softmax_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor opgen::kernels::scaled_masked_softmax_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::scaled_masked_softmax_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::scaled_masked_softmax_backward uses the stable ABI: include \"opgen/kernels/scaled_masked_softmax_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::scaled_masked_softmax_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// scaled_masked_softmax_backward(Tensor grad, Tensor output, Tensor? mask, float scale) -> Tensor
// Gradient of scaled_masked_softmax from its output:
// scale * output * (grad - sum(grad * output, -1)), zero where masked.
torch::stable::Tensor scaled_masked_softmax_backward_cpu(const torch::stable::Tensor& grad, const torch::stable::Tensor& output, const std::optional<torch::stable::Tensor>& mask, double scale);
torch::stable::Tensor scaled_masked_softmax_backward_cuda(const torch::stable::Tensor& grad, const torch::stable::Tensor& output, const std::optional<torch::stable::Tensor>& mask, double scale);

}  // namespace opgen::kernels
