// @generated from specs/scale_rows_backward.yaml - DO NOT EDIT
//
// The kernels of testns::scale_rows_backward must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor testns::kernels::scale_rows_backward_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// testns::scale_rows_backward uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "testns::scale_rows_backward uses the stable ABI: include \"testns/kernels/scale_rows_backward.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "testns::scale_rows_backward targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace testns::kernels {

// scale_rows_backward(Tensor grad_0, Tensor x, Tensor? row_scale, float alpha) -> Tensor
torch::stable::Tensor scale_rows_backward_cpu(const torch::stable::Tensor& grad_0, const torch::stable::Tensor& x, const std::optional<torch::stable::Tensor>& row_scale, double alpha);

}  // namespace testns::kernels
