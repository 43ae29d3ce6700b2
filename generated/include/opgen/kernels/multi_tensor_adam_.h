// @generated from schemas/multi_tensor_adam_.yaml - DO NOT EDIT
//
// The kernels of opgen::multi_tensor_adam_ must have exactly these signatures. Define each
// with its qualified name, e.g. `void opgen::kernels::multi_tensor_adam__cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

// opgen::multi_tensor_adam_ uses the LibTorch stable ABI of PyTorch 2.10: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "opgen::multi_tensor_adam_ uses the stable ABI: include \"opgen/kernels/multi_tensor_adam_.h\" before any torch header"
#endif
#define TORCH_TARGET_VERSION 0x020a000000000000ULL
#elif TORCH_TARGET_VERSION != 0x020a000000000000ULL
#error "opgen::multi_tensor_adam_ targets the stable ABI of PyTorch 2.10, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>

namespace opgen::kernels {

// multi_tensor_adam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, float lr, float beta1, float beta2, float eps, float weight_decay, int step, bool adamw=True) -> ()
// One Adam step over lists of tensors, in place (apex FusedAdam /
// torch.optim.Adam(W) with foreach semantics), step counted from 1:
//   adamw:      p -= lr * weight_decay * p          (decoupled decay)
//   otherwise:  g += weight_decay * p               (L2)
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
//   p -= lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
// params[i] and grads[i] share a dtype (float32, float16, bfloat16, float64)
// and a shape; exp_avgs[i] and exp_avg_sqs[i] have that dtype or float32.
// Math in float32 (float64 for float64 params).
void multi_tensor_adam__cpu(const std::vector<torch::stable::Tensor>& params, const std::vector<torch::stable::Tensor>& grads, const std::vector<torch::stable::Tensor>& exp_avgs, const std::vector<torch::stable::Tensor>& exp_avg_sqs, double lr, double beta1, double beta2, double eps, double weight_decay, int64_t step, bool adamw);
void multi_tensor_adam__cuda(const std::vector<torch::stable::Tensor>& params, const std::vector<torch::stable::Tensor>& grads, const std::vector<torch::stable::Tensor>& exp_avgs, const std::vector<torch::stable::Tensor>& exp_avg_sqs, double lr, double beta1, double beta2, double eps, double weight_decay, int64_t step, bool adamw);

}  // namespace opgen::kernels
