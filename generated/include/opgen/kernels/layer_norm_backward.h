// @generated from schemas/layer_norm_backward.yaml - DO NOT EDIT
//
// The kernels of opgen::layer_norm_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::layer_norm_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::layer_norm_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::layer_norm_backward uses the stable ABI: include \"opgen/kernels/layer_norm_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::layer_norm_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// layer_norm_backward(Tensor grad_output, Tensor input, Tensor mean, Tensor rstd, Tensor weight) -> (Tensor, Tensor, Tensor)
// Gradients of layer_norm with respect to input, weight and bias, from the
// forward's saved mean and rstd. The bias gradient (the sum of grad_output
// over the rows) has weight's dtype.
std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> layer_norm_backward_cpu(const torch::stable::Tensor& grad_output, const torch::stable::Tensor& input, const torch::stable::Tensor& mean, const torch::stable::Tensor& rstd, const torch::stable::Tensor& weight);
std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> layer_norm_backward_cuda(const torch::stable::Tensor& grad_output, const torch::stable::Tensor& input, const torch::stable::Tensor& mean, const torch::stable::Tensor& rstd, const torch::stable::Tensor& weight);

}  // namespace opgen::kernels
