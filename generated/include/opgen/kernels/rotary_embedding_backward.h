// @generated from schemas/rotary_embedding_backward.yaml - DO NOT EDIT
//
// The kernels of opgen::rotary_embedding_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::rotary_embedding_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::rotary_embedding_backward uses the stable ABI: include \"opgen/kernels/rotary_embedding_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::rotary_embedding_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// rotary_embedding_backward(Tensor grad_0, Tensor grad_1, Tensor cos, Tensor sin) -> (Tensor, Tensor)
// Gradients of rotary_embedding with respect to q and k: the inverse rotation
// (sin negated) of the output gradients.
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rotary_embedding_backward_cpu(const torch::stable::Tensor& grad_0, const torch::stable::Tensor& grad_1, const torch::stable::Tensor& cos, const torch::stable::Tensor& sin);
std::tuple<torch::stable::Tensor, torch::stable::Tensor> rotary_embedding_backward_cuda(const torch::stable::Tensor& grad_0, const torch::stable::Tensor& grad_1, const torch::stable::Tensor& cos, const torch::stable::Tensor& sin);

}  // namespace opgen::kernels
