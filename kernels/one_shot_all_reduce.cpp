// CPU kernel for opgen::one_shot_all_reduce (unstable ABI / ATen + c10d).
//
// There is no symmetric memory on the CPU: the group's own allreduce (gloo)
// reduces a float32 copy of the input, so the numerics match the CUDA kernel's
// (float32 accumulation for every dtype). "avg" is a sum divided by the group
// size, as gloo has no average.

#include "opgen/kernels/one_shot_all_reduce.h"

#include "common/reduce_op.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/GroupRegistry.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <string>
#include <vector>

at::Tensor opgen::kernels::one_shot_all_reduce_cpu(const at::Tensor& input, std::string_view reduce_op,
                                                   std::string_view group_name) {
  constexpr const char* kOp = "opgen::one_shot_all_reduce";
  TORCH_CHECK(input.device().is_cpu(), kOp, ": CPU kernel called with a non-CPU input");
  const ReduceOp op = parse_reduce_op(kOp, reduce_op);
  const auto group =
      with_group(kOp, group_name, [](const std::string& name) { return c10d::resolve_process_group(name); });

  // A fresh float32 buffer (never `input` itself): the collective writes it in place.
  at::Tensor acc = input.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true, at::MemoryFormat::Contiguous);
  std::vector<at::Tensor> tensors{acc};
  c10d::AllreduceOptions options;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg: options.reduceOp = c10d::ReduceOp::SUM; break;
    case ReduceOp::kMin: options.reduceOp = c10d::ReduceOp::MIN; break;
    case ReduceOp::kMax: options.reduceOp = c10d::ReduceOp::MAX; break;
  }
  group->allreduce(tensors, options)->wait();
  if (op == ReduceOp::kAvg) acc.div_(group->getSize());
  return acc.scalar_type() == input.scalar_type() ? acc : acc.to(input.scalar_type());
}
