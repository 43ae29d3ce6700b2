// @generated from schemas/scaled_masked_softmax.yaml - DO NOT EDIT
//
// The kernels of opgen::scaled_masked_softmax must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor opgen::kernels::scaled_masked_softmax_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::scaled_masked_softmax uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::scaled_masked_softmax uses the stable ABI: include \"opgen/kernels/scaled_masked_softmax.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::scaled_masked_softmax targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// scaled_masked_softmax(Tensor input, Tensor? mask, float scale) -> Tensor output
// Megatron/apex fused attention softmax over the last dimension:
// softmax(where(mask, -10000, input * scale), -1). mask (bool or uint8,
// nonzero = masked out) is [B or 1, H or 1, Sq, Sk] for an input
// [B, H, Sq, Sk]; without a mask the input may have any shape. Masked
// positions get -10000 (not -inf, as Megatron), so a fully masked row is
// uniform rather than NaN; they get a zero gradient. Math in float32
// (float64 for float64).
torch::stable::Tensor scaled_masked_softmax_cpu(const torch::stable::Tensor& input, const std::optional<torch::stable::Tensor>& mask, double scale);
torch::stable::Tensor scaled_masked_softmax_cuda(const torch::stable::Tensor& input, const std::optional<torch::stable::Tensor>& mask, double scale);

}  // namespace opgen::kernels
