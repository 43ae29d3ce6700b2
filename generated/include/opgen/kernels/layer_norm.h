// @generated from schemas/layer_norm.yaml - DO NOT EDIT
//
// The kernels of opgen::layer_norm must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::layer_norm_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::layer_norm uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::layer_norm uses the stable ABI: include \"opgen/kernels/layer_norm.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::layer_norm targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// layer_norm(Tensor input, Tensor weight, Tensor? bias=None, float eps=1.0000000000000001e-05) -> (Tensor output, Tensor mean, Tensor rstd)
// Layer normalization over the last dimension (apex FusedLayerNorm):
// output = (input - mean) * rstd * weight + bias, rstd = 1 / sqrt(var + eps),
// var the biased variance. mean and rstd (shape input.shape[:-1], float32;
// float64 for a float64 input) are the statistics the backward reuses; they
// are not differentiable. A last dimension of size 0 gives mean 0 and
// rstd 1 / sqrt(eps).
std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> layer_norm_cpu(const torch::stable::Tensor& input, const torch::stable::Tensor& weight, const std::optional<torch::stable::Tensor>& bias, double eps);
std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> layer_norm_cuda(const torch::stable::Tensor& input, const torch::stable::Tensor& weight, const std::optional<torch::stable::Tensor>& bias, double eps);

}  // namespace opgen::kernels
