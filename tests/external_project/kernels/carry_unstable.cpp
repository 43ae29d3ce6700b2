// opgen_ext::carry_unstable: carry's summary through the unstable ABI, so the
// caller sees each value of each type arrive through c10's conversions.

#include "opgen_ext/kernels/carry_unstable.h"

#include <ATen/ATen.h>

#include <numeric>

at::Tensor opgen_ext::kernels::carry_unstable_compositeexplicitautograd(
    const at::Tensor& x, int64_t n, std::optional<int64_t> m, at::IntArrayRef sizes,
    at::OptionalIntArrayRef maybe_sizes, const c10::List<std::optional<at::Tensor>>& maybe_tensors,
    const std::optional<std::vector<at::Tensor>>& tensors, const c10::List<bool>& flags,
    const std::optional<std::vector<double>>& scales, const std::vector<std::string>& names,
    std::optional<at::Layout> layout, std::optional<at::MemoryFormat> memory_format) {
  int64_t given = 0, numel = 0;
  for (const std::optional<at::Tensor>& t : maybe_tensors) {
    if (!t) continue;
    ++given;
    numel += t->numel();
  }
  int64_t true_flags = 0;
  for (bool f : flags) true_flags += f;
  size_t name_chars = 0;
  for (const auto& name : names) name_chars += name.size();
  const std::vector<double> summary = {
      static_cast<double>(n),
      m ? static_cast<double>(*m) : -1.0,
      static_cast<double>(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})),
      maybe_sizes ? static_cast<double>(maybe_sizes->size()) : -1.0,
      static_cast<double>(given),
      static_cast<double>(numel),
      tensors ? static_cast<double>(tensors->size()) : -1.0,
      static_cast<double>(true_flags),
      scales ? std::accumulate(scales->begin(), scales->end(), 0.0) : -1.0,
      static_cast<double>(name_chars),
      layout ? 1.0 : 0.0,
      memory_format ? 1.0 : 0.0,
  };
  return at::tensor(summary, x.options().dtype(at::kDouble));
}
