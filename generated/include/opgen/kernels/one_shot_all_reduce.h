// @generated from schemas/one_shot_all_reduce.yaml - DO NOT EDIT
//
// The kernels of opgen::one_shot_all_reduce must have exactly these signatures. Define each
// with its qualified name, e.g. `at::Tensor opgen::kernels::one_shot_all_reduce_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// one_shot_all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor
// All-reduce of `input` over the process group `group_name` in one shot: a new
// tensor on every rank holding the element-wise reduction (`reduce_op`: "sum",
// "avg", "min" or "max"; math in float32) of all ranks' inputs. On CUDA every
// rank reads every peer's input straight from symmetric memory, so `input` must
// be allocated there (torch.distributed._symmetric_memory.empty, at the same
// offset on every rank); on the CPU the group's own allreduce (gloo) does it.
at::Tensor one_shot_all_reduce_cpu(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name);
at::Tensor one_shot_all_reduce_cuda(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name);

}  // namespace opgen::kernels
