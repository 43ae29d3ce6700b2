// @generated from schemas/rms_norm_backward.yaml - DO NOT EDIT
//
// The kernels of opgen::rms_norm_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rms_norm_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::rms_norm_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::rms_norm_backward uses the stable ABI: include \"opgen/kernels/rms_norm_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::rms_norm_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// rms_norm_backward(Tensor grad, Tensor input, Tensor weight, float eps) -> (Tensor, Tensor)
// Gradients of rms_norm with respect to its input and its weight.
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rms_norm_backward_cpu(const torch::stable::Tensor& grad, const torch::stable::Tensor& input, const torch::stable::Tensor& weight, double eps);
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rms_norm_backward_cuda(const torch::stable::Tensor& grad, const torch::stable::Tensor& input, const torch::stable::Tensor& weight, double eps);

}  // namespace opgen::kernels
