// The `reduce_op` strings of the collective ops (opgen::one_shot_all_reduce),
// parsed once on the host so the kernels switch on an enum.
#pragma once

#include <c10/util/Exception.h>

#include <string_view>

namespace opgen::kernels {

enum class ReduceOp { kSum, kAvg, kMin, kMax };

inline ReduceOp parse_reduce_op(const char* op_name, std::string_view text) {
  if (text == "sum") return ReduceOp::kSum;
  if (text == "avg") return ReduceOp::kAvg;
  if (text == "min") return ReduceOp::kMin;
  if (text == "max") return ReduceOp::kMax;
  TORCH_CHECK(false, op_name, ": 'reduce_op' must be \"sum\", \"avg\", \"min\" or \"max\", got \"", text, "\"");
}

}  // namespace opgen::kernels
