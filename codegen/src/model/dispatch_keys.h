// The dispatch keys a kernel can be registered for, as data: every key
// PyTorch's parser accepts (c10::parseDispatchKey, the same 91 names in
// 2.11 and 2.14), each with what a kernel registered there does. The
// checker, the emitters and `opgen import` read this one table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opgen::model {

enum class DispatchKeyKind {
  Backend,       // CPU, CUDA, Meta, XPU...: computes the results for tensors on its device
  Layout,        // QuantizedCPU, SparseCUDA, NestedTensorCPU...: the same, for one layout
  Composite,     // CompositeExplicitAutograd...: one kernel for every backend
  // CompositeImplicitAutograd...: one kernel for every backend, run above
  // autograd, so the op decomposes into what the kernel calls: autograd
  // records those calls, and fake tensors and torch.compile run the kernel
  // itself (PyTorch refuses a fake for such an op).
  Decomposing,
  Autograd,      // Autograd, AutogradCPU...: records the gradient, then redispatches below
  Autocast,      // AutocastCUDA...: casts the inputs, then redispatches below
  Redispatching, // ADInplaceOrView, Functionalize, FuncTorchBatched, Python...: wraps the call below
  Unreached,     // Dense, Sparse, Quantized...: a functionality with no backend
  // Undefined (c10's CatchAll): PyTorch registers a kernel there, as it does
  // one registered with no key, as its CompositeImplicitAutograd kernel.
  CatchAll,
};

struct DispatchKey {
  std::string_view name;
  DispatchKeyKind kind;
  // For Unreached keys: what to register instead; for CatchAll, the key
  // PyTorch registers the kernel at.
  std::string_view instead = {};
};

// nullptr for a name PyTorch does not parse.
const DispatchKey* find_dispatch_key(std::string_view name);
// The key a c10::DispatchKey enum alias stands for, which C++ registrations
// may name and c10's parser does not take (`CatchAll`: Undefined, `Autocast`:
// AutocastCUDA, as torchvision writes it, `CPUTensorId`...); "" for another name.
std::string_view cpp_enum_alias(std::string_view name);
// Every key a spec can name (not the Unreached ones, nor Undefined: a spec
// names the key PyTorch registers it as), in table order.
std::vector<std::string> registrable_dispatch_keys();

// Whether a kernel at a key of this kind computes the op's results, so the
// spec's checks run in front of it. A kernel at a key that redispatches
// (Autograd, Autocast...) sees inputs the call below may still change
// (autocast casts them): the kernel it reaches runs the checks.
bool computes_results(DispatchKeyKind kind);
// Whether the stable ABI can serve a kernel of this kind: it has no
// redispatch (its C shim calls an op only from the dispatcher's top).
bool stable_abi_serves(DispatchKeyKind kind);
// The key a kernel registered at `key` lands at: CompositeImplicitAutograd
// for Undefined, the key itself otherwise.
std::string_view registered_key(const DispatchKey& key);
// Whether a kernel at the key is CUDA code: it computes on CUDA tensors
// (CUDA, SparseCUDA, QuantizedCUDA...), so its source is a .cu and a build
// without nvcc leaves it out.
bool is_cuda_code(std::string_view key);
// Whether PyTorch reaches the key through the device or layout of a tensor
// argument (an op with no tensor never reaches it).
bool picked_by_tensor(DispatchKeyKind kind);
// The device type torch.library.custom_op registers a kernel at `key` for
// (`device_types="cuda"`: CUDA), as torch._C._dispatch_key_for_device maps
// it; "" where custom_op registers no kernel: Meta (custom_op's fake is its
// Meta kernel), the PrivateUse keys (named as the backend names itself) and
// every key not a backend's.
std::string custom_op_device_type(std::string_view key);

}  // namespace opgen::model
