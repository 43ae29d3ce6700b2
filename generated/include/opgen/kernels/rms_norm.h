// @generated from schemas/rms_norm.yaml - DO NOT EDIT
//
// The kernels of opgen::rms_norm must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor opgen::kernels::rms_norm_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::rms_norm uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::rms_norm uses the stable ABI: include \"opgen/kernels/rms_norm.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::rms_norm targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// rms_norm(Tensor input, Tensor weight, float eps=9.9999999999999995e-07) -> Tensor
// Root-mean-square normalization over the last dimension:
// input * rsqrt(mean(input^2, -1) + eps) * weight.
torch::stable::Tensor rms_norm_cpu(const torch::stable::Tensor& input, const torch::stable::Tensor& weight, double eps);
torch::stable::Tensor rms_norm_cuda(const torch::stable::Tensor& input, const torch::stable::Tensor& weight, double eps);

}  // namespace opgen::kernels
