#include <ATen/ATen.h>
#include <torch/library.h>
#include "pyg_lib/csrc/utils/types.h"

namespace pyg {
namespace sampler {

std::tuple<at::Tensor,
           at::Tensor,
           at::Tensor,
           c10::optional<at::Tensor>,
           std::vector<int64_t>,
           std::vector<int64_t>>
neighbor_sample_kernel(const at::Tensor& rowptr,
                       const at::Tensor& col,
                       const at::Tensor& seed,
                       const std::vector<int64_t>& num_neighbors,
                       const c10::optional<at::Tensor>& node_time,
                       const c10::optional<at::Tensor>& edge_time,
                       const c10::optional<at::Tensor>& seed_time,
                       const c10::optional<at::Tensor>& edge_weight,
                       bool csc,
                       bool replace,
                       bool directed,
                       bool disjoint,
                       std::string temporal_strategy,
                       bool return_edge_id);

std::tuple<c10::Dict<rel_type, at::Tensor>,
           c10::Dict<rel_type, at::Tensor>,
           c10::Dict<node_type, at::Tensor>,
           c10::optional<c10::Dict<rel_type, at::Tensor>>,
           c10::Dict<node_type, std::vector<int64_t>>,
           c10::Dict<rel_type, std::vector<int64_t>>>
hetero_neighbor_sample_kernel(
    const std::vector<node_type>& node_types,
    const std::vector<edge_type>& edge_types,
    const c10::Dict<rel_type, at::Tensor>& rowptr_dict,
    const c10::Dict<rel_type, at::Tensor>& col_dict,
    const c10::Dict<node_type, at::Tensor>& seed_dict,
    const c10::Dict<rel_type, std::vector<int64_t>>& num_neighbors_dict,
    const c10::optional<c10::Dict<node_type, at::Tensor>>& node_time_dict,
    const c10::optional<c10::Dict<rel_type, at::Tensor>>& edge_time_dict,
    const c10::optional<c10::Dict<node_type, at::Tensor>>& seed_time_dict,
    const c10::optional<c10::Dict<rel_type, at::Tensor>>& edge_weight_dict,
    bool csc,
    bool replace,
    bool directed,
    bool disjoint,
    std::string temporal_strategy,
    bool return_edge_id);

std::tuple<at::Tensor, at::Tensor, std::vector<int64_t>>
dist_neighbor_sample_kernel(const at::Tensor& rowptr,
                            const at::Tensor& col,
                            const at::Tensor& seed,
                            const int64_t num_neighbors,
                            const c10::optional<at::Tensor>& node_time,
                            const c10::optional<at::Tensor>& edge_time,
                            const c10::optional<at::Tensor>& seed_time,
                            const c10::optional<at::Tensor>& edge_weight,
                            bool csc,
                            bool replace,
                            bool directed,
                            bool disjoint,
                            std::string temporal_strategy);

}  // namespace sampler
}  // namespace pyg
