// opgen_ext::maybe_halves (unstable ABI): an optional tensor result, and
// float[]?, Layout? and MemoryFormat? arguments.

#include "opgen_ext/kernels/maybe_halves.h"

#include <ATen/ATen.h>

std::tuple<at::Tensor, std::optional<at::Tensor>> opgen_ext::kernels::maybe_halves_cpu(
    const at::Tensor& x, bool both, const std::optional<std::vector<double>>& scales, std::optional<at::Layout> layout,
    std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!layout || *layout == at::kStrided, "opgen_ext::maybe_halves: 'layout' must be strided");
  TORCH_CHECK(!memory_format || *memory_format == at::MemoryFormat::Contiguous,
              "opgen_ext::maybe_halves: 'memory_format' must be contiguous_format");
  TORCH_CHECK(!scales || scales->size() == 2, "opgen_ext::maybe_halves: 'scales' must hold 2 values");
  const double first = scales ? (*scales)[0] : 1.0;
  const double second = scales ? (*scales)[1] : 1.0;
  if (!both) return {x * first, std::nullopt};
  return {x * first, x * (second / 2)};
}
