// CPU kernel for opgen::cast_to_fp8 (unstable ABI / ATen), and the c10d
// all-reduce the float8 ops share on every device.
#include "common/cast_to_fp8.h"

#include <torch/csrc/distributed/c10d/GroupRegistry.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <vector>

void opgen::kernels::detail::all_reduce(at::Tensor& tensor, const std::string& group_name, bool max, const char* op) {
  auto group = c10d::resolve_process_group(group_name);
  TORCH_CHECK(group, op, ": no process group named '", group_name, "'");
  std::vector<at::Tensor> tensors{tensor};
  c10d::AllreduceOptions options;
  options.reduceOp = max ? c10d::ReduceOp::MAX : c10d::ReduceOp::SUM;
  group->allreduce(tensors, options)->wait();
}

std::tuple<at::Tensor, at::Tensor> opgen::kernels::cast_to_fp8_cpu(const at::Tensor& input,
                                                                   const Float8Quantizer& quantizer,
                                                                   const std::optional<ProcessGroup>& amax_group) {
  TORCH_CHECK(input.device().is_cpu(), "opgen::cast_to_fp8: CPU kernel called with a non-CPU input");
  return detail::cast_to_fp8(input, quantizer, amax_group);
}
