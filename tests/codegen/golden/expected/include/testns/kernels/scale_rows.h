// @generated from specs/scale_rows.yaml - DO NOT EDIT
//
// The kernels of testns::scale_rows must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<torch::stable::Tensor, torch::stable::Tensor> testns::kernels::scale_rows_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// testns::scale_rows uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "testns::scale_rows uses the stable ABI: include \"testns/kernels/scale_rows.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "testns::scale_rows targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace testns::kernels {

// scale_rows(Tensor x, Tensor? row_scale, Tensor[] extras, float alpha=1., ScalarType? out_dtype=None) -> (Tensor, Tensor)
// A stable-ABI op with an optional tensor, a tensor list and two outputs.
std::tuple<torch::stable::Tensor, torch::stable::Tensor> scale_rows_cpu(const torch::stable::Tensor& x, const std::optional<torch::stable::Tensor>& row_scale, const std::vector<torch::stable::Tensor>& extras, double alpha, std::optional<torch::headeronly::ScalarType> out_dtype);
std::tuple<torch::stable::Tensor, torch::stable::Tensor> scale_rows_cuda(const torch::stable::Tensor& x, const std::optional<torch::stable::Tensor>& row_scale, const std::vector<torch::stable::Tensor>& extras, double alpha, std::optional<torch::headeronly::ScalarType> out_dtype);

}  // namespace testns::kernels
