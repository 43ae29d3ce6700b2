// @generated from schemas/compact_rows.yaml - DO NOT EDIT
//
// The kernels of opgen::compact_rows must have exactly these signatures. Define each
// with its qualified name, e.g. `torch::stable::Tensor opgen::kernels::compact_rows_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::compact_rows uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::compact_rows uses the stable ABI: include \"opgen/kernels/compact_rows.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::compact_rows targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// compact_rows(Tensor input, Tensor mask) -> Tensor
// The rows of input (along dim 0) where mask is true, in order: input[mask]
// for a bool mask of shape [input.size(0)]. The number of rows is data
// dependent (an unbacked size under torch.compile); the CUDA kernel waits for
// it on the host, like torch.nonzero. Any dtype; the result is contiguous.
torch::stable::Tensor compact_rows_cpu(const torch::stable::Tensor& input, const torch::stable::Tensor& mask);
torch::stable::Tensor compact_rows_cuda(const torch::stable::Tensor& input, const torch::stable::Tensor& mask);

}  // namespace opgen::kernels
