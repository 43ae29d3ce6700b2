// The arguments of the collective ops (opgen::one_shot_all_reduce) read on the
// host: the `reduce_op` string, parsed once so the kernels switch on an enum,
// and errors about `group_name` that name the op and the argument.
#pragma once

#include <c10/util/Exception.h>

#include <string>
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

// Runs `resolve` (c10d's lookup of the group), turning its error into one
// that names the op and the argument.
template <class Resolve>
auto with_group(const char* op_name, std::string_view group_name, Resolve&& resolve) {
  try {
    return resolve(std::string(group_name));
  } catch (const c10::Error& e) {
    TORCH_CHECK(false, op_name, ": 'group_name' is \"", group_name, "\", which names no process group: ",
                e.what_without_backtrace());
  }
}

}  // namespace opgen::kernels
