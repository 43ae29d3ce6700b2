#include "model/dispatch_keys.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <array>
#include <utility>

namespace opgen::model {

namespace {

using enum DispatchKeyKind;

// c10/core/DispatchKey.h. A per-backend key exists only where c10 parses
// it (AutogradHIP and QuantizedMeta, for two, do not).
constexpr std::array kDispatchKeys = {
    DispatchKey{"CPU", Backend}, DispatchKey{"CUDA", Backend}, DispatchKey{"HIP", Backend},
    DispatchKey{"XLA", Backend}, DispatchKey{"MPS", Backend}, DispatchKey{"IPU", Backend},
    DispatchKey{"XPU", Backend}, DispatchKey{"HPU", Backend}, DispatchKey{"VE", Backend},
    DispatchKey{"Lazy", Backend}, DispatchKey{"MTIA", Backend}, DispatchKey{"MAIA", Backend},
    DispatchKey{"PrivateUse1", Backend}, DispatchKey{"PrivateUse2", Backend}, DispatchKey{"PrivateUse3", Backend},
    DispatchKey{"Meta", Backend},

    DispatchKey{"QuantizedCPU", Layout}, DispatchKey{"QuantizedCUDA", Layout}, DispatchKey{"QuantizedXPU", Layout},
    DispatchKey{"QuantizedPrivateUse1", Layout},
    DispatchKey{"SparseCPU", Layout}, DispatchKey{"SparseCUDA", Layout}, DispatchKey{"SparseHIP", Layout},
    DispatchKey{"SparseMPS", Layout}, DispatchKey{"SparseXPU", Layout}, DispatchKey{"SparseVE", Layout},
    DispatchKey{"SparseMeta", Layout}, DispatchKey{"SparsePrivateUse1", Layout},
    DispatchKey{"SparseCsrCPU", Layout}, DispatchKey{"SparseCsrCUDA", Layout}, DispatchKey{"SparseCsrHIP", Layout},
    DispatchKey{"SparseCsrMPS", Layout}, DispatchKey{"SparseCsrXPU", Layout}, DispatchKey{"SparseCsrVE", Layout},
    DispatchKey{"SparseCsrMeta", Layout}, DispatchKey{"SparseCsrPrivateUse1", Layout},
    DispatchKey{"NestedTensorCPU", Layout}, DispatchKey{"NestedTensorCUDA", Layout},
    DispatchKey{"NestedTensorXPU", Layout}, DispatchKey{"NestedTensorHPU", Layout},
    DispatchKey{"NestedTensorMeta", Layout}, DispatchKey{"NestedTensorPrivateUse1", Layout},

    DispatchKey{"CompositeExplicitAutograd", Composite},
    DispatchKey{"CompositeExplicitAutogradNonFunctional", Composite},
    DispatchKey{"CompositeImplicitAutograd", Decomposing},
    DispatchKey{"CompositeImplicitAutogradNestedTensor", Decomposing},

    DispatchKey{"Autograd", Autograd}, DispatchKey{"AutogradCPU", Autograd}, DispatchKey{"AutogradCUDA", Autograd},
    DispatchKey{"AutogradXLA", Autograd}, DispatchKey{"AutogradMPS", Autograd}, DispatchKey{"AutogradIPU", Autograd},
    DispatchKey{"AutogradXPU", Autograd}, DispatchKey{"AutogradHPU", Autograd}, DispatchKey{"AutogradLazy", Autograd},
    DispatchKey{"AutogradMeta", Autograd}, DispatchKey{"AutogradNestedTensor", Autograd},
    DispatchKey{"AutogradOther", Autograd}, DispatchKey{"AutogradPrivateUse1", Autograd},
    DispatchKey{"AutogradPrivateUse2", Autograd}, DispatchKey{"AutogradPrivateUse3", Autograd},

    DispatchKey{"AutocastCPU", Autocast}, DispatchKey{"AutocastCUDA", Autocast}, DispatchKey{"AutocastXPU", Autocast},
    DispatchKey{"AutocastMPS", Autocast}, DispatchKey{"AutocastIPU", Autocast}, DispatchKey{"AutocastHPU", Autocast},
    DispatchKey{"AutocastPrivateUse1", Autocast},

    DispatchKey{"ADInplaceOrView", Redispatching}, DispatchKey{"BackendSelect", Redispatching},
    DispatchKey{"Python", Redispatching}, DispatchKey{"PythonDispatcher", Redispatching},
    DispatchKey{"PythonTLSSnapshot", Redispatching}, DispatchKey{"PreDispatch", Redispatching},
    DispatchKey{"Functionalize", Redispatching}, DispatchKey{"Conjugate", Redispatching},
    DispatchKey{"Negative", Redispatching}, DispatchKey{"ZeroTensor", Redispatching},
    DispatchKey{"FuncTorchBatched", Redispatching}, DispatchKey{"FuncTorchBatchedDecomposition", Redispatching},
    DispatchKey{"FuncTorchVmapMode", Redispatching}, DispatchKey{"FuncTorchGradWrapper", Redispatching},
    DispatchKey{"FuncTorchDynamicLayerFrontMode", Redispatching},
    DispatchKey{"FuncTorchDynamicLayerBackMode", Redispatching},

    // PyTorch registers these without complaint, and no call runs them: the
    // functionality keys stand for no backend.
    DispatchKey{"Dense", Unreached, "a backend key: CPU, CUDA, ..."},
    DispatchKey{"Quantized", Unreached, "QuantizedCPU or QuantizedCUDA"},
    DispatchKey{"Sparse", Unreached, "SparseCPU or SparseCUDA"},
    DispatchKey{"SparseCsr", Unreached, "SparseCsrCPU or SparseCsrCUDA"},
    DispatchKey{"NestedTensor", Unreached, "NestedTensorCPU or NestedTensorCUDA"},
    DispatchKey{"AutogradFunctionality", Unreached, "Autograd"},
    // c10::DispatchKey::CatchAll: torch::Library registers a kernel there with
    // no key, which OperatorEntry files under CompositeImplicitAutograd.
    DispatchKey{"Undefined", CatchAll, "CompositeImplicitAutograd"},
};

// c10/core/DispatchKey.h's aliases: CatchAll, and the "BC aliases".
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kCppEnumAliases = {{
    {"CatchAll", "Undefined"},
    {"CPUTensorId", "CPU"},
    {"CUDATensorId", "CUDA"},
    {"DefaultBackend", "CompositeExplicitAutograd"},
    {"PrivateUse1_PreAutograd", "AutogradPrivateUse1"},
    {"PrivateUse2_PreAutograd", "AutogradPrivateUse2"},
    {"PrivateUse3_PreAutograd", "AutogradPrivateUse3"},
    {"Autocast", "AutocastCUDA"},
}};

}  // namespace

std::string_view cpp_enum_alias(std::string_view name) {
  for (const auto& [alias, key] : kCppEnumAliases)
    if (alias == name) return key;
  return {};
}

const DispatchKey* find_dispatch_key(std::string_view name) {
  auto it = std::find_if(kDispatchKeys.begin(), kDispatchKeys.end(), [&](const DispatchKey& k) { return k.name == name; });
  return it == kDispatchKeys.end() ? nullptr : &*it;
}

std::vector<std::string> registrable_dispatch_keys() {
  std::vector<std::string> names;
  for (const DispatchKey& key : kDispatchKeys)
    if (key.kind != Unreached && key.kind != CatchAll) names.emplace_back(key.name);
  return names;
}

bool computes_results(DispatchKeyKind kind) {
  return kind == Backend || kind == Layout || kind == Composite || kind == Decomposing;
}

bool stable_abi_serves(DispatchKeyKind kind) { return computes_results(kind); }

std::string_view registered_key(const DispatchKey& key) { return key.kind == CatchAll ? key.instead : key.name; }

bool is_cuda_code(std::string_view key) {
  const DispatchKey* known = find_dispatch_key(key);
  return known && computes_results(known->kind) && key.ends_with("CUDA");
}

bool picked_by_tensor(DispatchKeyKind kind) {
  return kind == Backend || kind == Layout || kind == Autograd || kind == Autocast;
}

std::string custom_op_device_type(std::string_view key) {
  const DispatchKey* known = find_dispatch_key(key);
  if (!known || known->kind != Backend || key == "Meta" || key.starts_with("PrivateUse")) return "";
  std::string device(key);
  std::transform(device.begin(), device.end(), device.begin(), [](unsigned char c) { return std::tolower(c); });
  return device;
}

}  // namespace opgen::model
