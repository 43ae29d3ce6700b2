// @generated from schemas/multi_tensor_adam_.yaml - DO NOT EDIT
//
// opgen::multi_tensor_adam_ on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/multi_tensor_adam_.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = void (*)(const std::vector<torch::stable::Tensor>&, const std::vector<torch::stable::Tensor>&, const std::vector<torch::stable::Tensor>&, const std::vector<torch::stable::Tensor>&, double, double, double, double, double, int64_t, bool);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 11 && num_outputs == 0,
                  "opgen::multi_tensor_adam_: expected 11 arguments and 0 outputs, got ", num_args, " and ",
                  num_outputs);
  auto params = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[0]);
  auto grads = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[1]);
  auto exp_avgs = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[2]);
  auto exp_avg_sqs = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[3]);
  auto lr = torch::stable::detail::to<double>(stack[4]);
  auto beta1 = torch::stable::detail::to<double>(stack[5]);
  auto beta2 = torch::stable::detail::to<double>(stack[6]);
  auto eps = torch::stable::detail::to<double>(stack[7]);
  auto weight_decay = torch::stable::detail::to<double>(stack[8]);
  auto step = torch::stable::detail::to<int64_t>(stack[9]);
  auto adamw = torch::stable::detail::to<bool>(stack[10]);
  for (size_t opgen_i = 0; opgen_i < params.size(); ++opgen_i) {
    const auto& opgen_t = params[opgen_i];
    STD_TORCH_CHECK(opgen_t.scalar_type() == torch::headeronly::ScalarType::Float || opgen_t.scalar_type() == torch::headeronly::ScalarType::Half || opgen_t.scalar_type() == torch::headeronly::ScalarType::BFloat16 || opgen_t.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::multi_tensor_adam_: expected 'params[", opgen_i, "]' to have dtype float32, float16, bfloat16 or float64, but got ", opgen_t.scalar_type());
  }
  for (size_t opgen_i = 0; opgen_i < params.size(); ++opgen_i) {
    const auto& opgen_t = params[opgen_i];
    STD_TORCH_CHECK(opgen_t.device() == params[0].device(), "opgen::multi_tensor_adam_: expected 'params[", opgen_i, "]' to be on the same device as 'params[0]'");
  }
  for (size_t opgen_i = 0; opgen_i < grads.size(); ++opgen_i) {
    const auto& opgen_t = grads[opgen_i];
    STD_TORCH_CHECK(params.empty() || opgen_t.device() == params[0].device(), "opgen::multi_tensor_adam_: expected 'grads[", opgen_i, "]' to be on the same device as 'params[0]'");
  }
  for (size_t opgen_i = 0; opgen_i < exp_avgs.size(); ++opgen_i) {
    const auto& opgen_t = exp_avgs[opgen_i];
    STD_TORCH_CHECK(params.empty() || opgen_t.device() == params[0].device(), "opgen::multi_tensor_adam_: expected 'exp_avgs[", opgen_i, "]' to be on the same device as 'params[0]'");
  }
  for (size_t opgen_i = 0; opgen_i < exp_avg_sqs.size(); ++opgen_i) {
    const auto& opgen_t = exp_avg_sqs[opgen_i];
    STD_TORCH_CHECK(params.empty() || opgen_t.device() == params[0].device(), "opgen::multi_tensor_adam_: expected 'exp_avg_sqs[", opgen_i, "]' to be on the same device as 'params[0]'");
  }
  STD_TORCH_CHECK(static_cast<int64_t>(grads.size()) == static_cast<int64_t>(params.size()), "opgen::multi_tensor_adam_: requires len(grads) == len(params)", ": ", static_cast<int64_t>(grads.size()), " vs ", static_cast<int64_t>(params.size()));
  STD_TORCH_CHECK(static_cast<int64_t>(exp_avgs.size()) == static_cast<int64_t>(params.size()), "opgen::multi_tensor_adam_: requires len(exp_avgs) == len(params)", ": ", static_cast<int64_t>(exp_avgs.size()), " vs ", static_cast<int64_t>(params.size()));
  STD_TORCH_CHECK(static_cast<int64_t>(exp_avg_sqs.size()) == static_cast<int64_t>(params.size()), "opgen::multi_tensor_adam_: requires len(exp_avg_sqs) == len(params)", ": ", static_cast<int64_t>(exp_avg_sqs.size()), " vs ", static_cast<int64_t>(params.size()));
  STD_TORCH_CHECK(step >= 1, "opgen::multi_tensor_adam_: requires step >= 1", ": ", step, " vs ", 1);
  kernel(params, grads, exp_avgs, exp_avg_sqs, lr, beta1, beta2, eps, weight_decay, step, adamw);
}

void multi_tensor_adam__cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::multi_tensor_adam__cpu, stack, num_args, num_outputs);
}

void multi_tensor_adam__cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::multi_tensor_adam__cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("multi_tensor_adam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, float lr, float beta1, float beta2, float eps, float weight_decay, int step, bool adamw=True) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("multi_tensor_adam_", &multi_tensor_adam__cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("multi_tensor_adam_", &multi_tensor_adam__cuda_boxed);
}
