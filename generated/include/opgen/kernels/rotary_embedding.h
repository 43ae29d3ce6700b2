// @generated from schemas/rotary_embedding.yaml - DO NOT EDIT
//
// The kernels of opgen::rotary_embedding must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::rotary_embedding uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::rotary_embedding uses the stable ABI: include \"opgen/kernels/rotary_embedding.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::rotary_embedding targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// rotary_embedding(Tensor q, Tensor k, Tensor cos, Tensor sin) -> (Tensor, Tensor)
// Rotary position embedding (RoPE), GPT-NeoX rotate-half layout, out of place.
// q: [S, Hq, D] or [B, S, Hq, D]; k: the same with Hk heads; cos, sin: [S, R/2]
// for a rotary dimension R = 2 * cos.size(1) <= D. For i < R/2, at position s:
//   out[i]       = x[i] * cos[s, i] - x[i + R/2] * sin[s, i]
//   out[i + R/2] = x[i + R/2] * cos[s, i] + x[i] * sin[s, i]
// and dims R..D-1 are copied. cos/sin have q's dtype, or float32 for a
// float16/bfloat16 q; math in float32 (float64 for float64). cos and sin get
// no gradient.
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rotary_embedding_cpu(const torch::stable::Tensor& q, const torch::stable::Tensor& k, const torch::stable::Tensor& cos, const torch::stable::Tensor& sin);
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rotary_embedding_cuda(const torch::stable::Tensor& q, const torch::stable::Tensor& k, const torch::stable::Tensor& cos, const torch::stable::Tensor& sin);

}  // namespace opgen::kernels
