// opgen_ext::carry: sums up each argument it received, so the caller can
// see every value of every type arrive through the stable ABI's boxing.

#include "opgen_ext/kernels/carry.h"

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <numeric>

torch::stable::Tensor opgen_ext::kernels::carry_compositeexplicitautograd(
    const torch::stable::Tensor& x, int64_t n, std::optional<int64_t> m, const std::vector<int64_t>& sizes,
    const std::optional<std::vector<int64_t>>& maybe_sizes,
    const std::vector<std::optional<torch::stable::Tensor>>& maybe_tensors,
    const std::optional<std::vector<torch::stable::Tensor>>& tensors, const std::vector<bool>& flags,
    const std::optional<std::vector<double>>& scales, const std::vector<std::string>& names,
    std::optional<torch::headeronly::Layout> layout, std::optional<torch::headeronly::MemoryFormat> memory_format) {
  int64_t given = 0, numel = 0;
  for (const auto& t : maybe_tensors) {
    if (!t) continue;
    ++given;
    numel += t->numel();
  }
  size_t name_chars = 0;
  for (const auto& name : names) name_chars += name.size();
  const double summary[] = {
      static_cast<double>(n),
      m ? static_cast<double>(*m) : -1.0,
      static_cast<double>(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})),
      maybe_sizes ? static_cast<double>(maybe_sizes->size()) : -1.0,
      static_cast<double>(given),
      static_cast<double>(numel),
      tensors ? static_cast<double>(tensors->size()) : -1.0,
      static_cast<double>(std::count(flags.begin(), flags.end(), true)),
      scales ? std::accumulate(scales->begin(), scales->end(), 0.0) : -1.0,
      static_cast<double>(name_chars),
      layout ? 1.0 : 0.0,
      memory_format ? 1.0 : 0.0,
  };
  torch::stable::Tensor out = torch::stable::new_empty(x, {12}, torch::headeronly::ScalarType::Double);
  std::copy(std::begin(summary), std::end(summary), out.mutable_data_ptr<double>());
  return out;
}
