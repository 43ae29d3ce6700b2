#include <torch/script.h>
#ifdef WITH_CUDA
#ifdef USE_ROCM
#include <hip/hip_version.h>
#else
#include <cuda.h>
#endif
#endif
#include "cluster.h"
typedef std::string rel_t;
typedef std::tuple<std::string, std::string, std::string> edge_t;
namespace scatter {
int64_t cuda_version() noexcept { return -1; }
}
at::Tensor scatter_sum(at::Tensor src, at::Tensor index, int64_t dim, std::optional<at::Tensor> out,
                       std::optional<int64_t> dim_size);
at::Tensor radius(at::Tensor x, at::Tensor y, double r, int64_t max_neighbors) { return x; }
c10::Dict<rel_t, at::Tensor> by_type(const std::vector<edge_t>& types, const c10::Dict<rel_t, at::Tensor>& x);
static at::Tensor hidden(at::Tensor x) { return x; }
static auto registry = torch::RegisterOperators()
                           .op("legacy::scatter_sum", &scatter_sum)
                           .op("legacy::shift(Tensor x, float by) -> Tensor", &radius)
                           .op("legacy::by_type", &by_type)
                           .op("legacy::hidden", &hidden)
                           .op("legacy::twice", [](const at::Tensor& x, int64_t n) { return radius(x, x, 1.0, n); })
                           .op("legacy::odd(Tensor x) -> Tensor", [](const at::Tensor& x) { return x * 3; });
static auto version = torch::RegisterOperators().op("legacy::cuda_version", [] { return scatter::cuda_version(); });
static auto keyed = c10::RegisterOperators().op(
    c10::RegisterOperators::options()
        .schema("legacy::keyed(Tensor x) -> Tensor")
        .kernel<decltype(radius), &radius>(c10::DispatchKey::CPU)
        .catchAllKernel(&hidden)
        .kernel<Functor>(c10::DispatchKey::CUDA));
static auto single = torch::RegisterOperators("legacy::single", &scatter_sum);
std::vector<torch::RegisterOperators> ops;
void more() { ops.push_back(torch::RegisterOperators().op("legacy::more", &radius)); }
