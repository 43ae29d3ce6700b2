// @generated from schemas/multi_tensor_scale_.yaml - DO NOT EDIT
//
// The kernels of opgen::multi_tensor_scale_ must have exactly these signatures. Define each
// with its qualified name, e.g. `void opgen::kernels::multi_tensor_scale__cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::multi_tensor_scale_ uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::multi_tensor_scale_ uses the stable ABI: include \"opgen/kernels/multi_tensor_scale_.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::multi_tensor_scale_ targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// multi_tensor_scale_(Tensor(a!)[] tensors, float scale) -> ()
// Multiplies every tensor of the list by scale, in place (apex amp_C style).
void multi_tensor_scale__cpu(const std::vector<torch::stable::Tensor>& tensors, double scale);
void multi_tensor_scale__cuda(const std::vector<torch::stable::Tensor>& tensors, double scale);

}  // namespace opgen::kernels
