// @generated from schemas/quantize_fp8.yaml - DO NOT EDIT
//
// The kernels of opgen::quantize_fp8 must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<at::Tensor, at::Tensor> opgen::kernels::quantize_fp8_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// quantize_fp8(Tensor input, Tensor? scale=None) -> (Tensor, Tensor)
// Per-tensor float8_e4m3fn quantization. Returns the quantized tensor and its
// float32 scale: the given one, or amax(|input|) / 448 when none is given.
std::tuple<at::Tensor, at::Tensor> quantize_fp8_cpu(const at::Tensor& input, const std::optional<at::Tensor>& scale);
std::tuple<at::Tensor, at::Tensor> quantize_fp8_cuda(const at::Tensor& input, const std::optional<at::Tensor>& scale);

}  // namespace opgen::kernels
