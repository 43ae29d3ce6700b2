// @generated from schemas/fused_add_rms_norm_.yaml - DO NOT EDIT
//
// The kernels of opgen::fused_add_rms_norm_ must have exactly these signatures. Define each
// with its qualified name, e.g. `void opgen::kernels::fused_add_rms_norm__cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::fused_add_rms_norm_ uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::fused_add_rms_norm_ uses the stable ABI: include \"opgen/kernels/fused_add_rms_norm_.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::fused_add_rms_norm_ targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// fused_add_rms_norm_(Tensor! input, Tensor! residual, Tensor weight, float eps=9.9999999999999995e-07) -> ()
// In place, as in vLLM: residual += input; input = rms_norm(residual, weight, eps).
void fused_add_rms_norm__cpu(torch::stable::Tensor& input, torch::stable::Tensor& residual, const torch::stable::Tensor& weight, double eps);
void fused_add_rms_norm__cuda(torch::stable::Tensor& input, torch::stable::Tensor& residual, const torch::stable::Tensor& weight, double eps);

}  // namespace opgen::kernels
