"#include "registration.h"
#include "binding.h"
#define LOCAL_FLAG
#if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
STABLE_TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("act(Tensor! out, Tensor input) -> ()");
}
STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, ops) {
  ops.impl("act", TORCH_BOX(&act));
}
#else
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("act(Tensor! out, Tensor input) -> ()");
#if defined(METAL_KERNEL)
  ops.impl("act", torch::kMPS, &act);
#elif VERSION >= 2 && defined(LOCAL_FLAG)
  ops.impl("act", torch::kCPU, &act);
#endif
}
#endif
