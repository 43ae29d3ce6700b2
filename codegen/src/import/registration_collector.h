// `opgen import`'s reader of registrations, split by language: a Collector
// gathers what each source registers into one ImportResult. registrations.cpp
// holds what both readers share and the entry points (registrations.h),
// registrations_cpp.cpp the C++ reader, registrations_python.cpp the Python
// one. Internal to import/.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "import/python_values.h"
#include "import/registrations.h"
#include "import/source_scan.h"
#include "import/tokens.h"
#include "model/spec.h"

namespace opgen::import::detail {

// `torch::kCUDA`, `c10::DispatchKey::CUDA`, `kCUDA`, `"cuda"` -> the key's name; "" when it is none a kernel can
// be registered for.
std::string dispatch_key(const std::string& written);
std::string abi_text(model::Abi abi);
// "ns::name.overload" or "name.overload" -> (ns, name)
std::pair<std::string, std::string> split_qualified(const std::string& text);

class Collector {
 public:
  ImportResult result;
  std::map<std::string, std::vector<size_t>> ops_by_name;

  ImportedOp& op(const std::string& ns, const std::string& name, const std::string& where) {
    auto& same_name = ops_by_name[name];  // indices into result.ops: one lookup, however many ops
    for (size_t index : same_name) {
      ImportedOp& existing = result.ops[index];
      if (existing.ns == ns || existing.ns.empty() || ns.empty()) {
        if (existing.ns.empty()) existing.ns = ns;
        return existing;
      }
    }
    same_name.push_back(result.ops.size());
    result.ops.push_back({});
    result.ops.back().ns = ns;
    result.ops.back().name = name;
    result.ops.back().where = where;
    return result.ops.back();
  }

  const Configuration* configuration = nullptr;


  // The namespace a macro spells, in a configuration (registrations_cpp.cpp).
  std::optional<std::string> expanded_namespace(const Tokens& tokens, TokenRange range, int depth = 0) const;
  // What a C++ source registers: its TORCH_LIBRARY blocks, their defs and impls (registrations_cpp.cpp).
  void cpp(const SourceFile& file);
  // What a Python source registers: torch.library calls, Library objects, custom_op functions, fakes
  // (registrations_python.cpp).
  void python(const SourceFile& file);
  // vLLM's and SGLang's own registration helper, `direct_register_custom_op(op_name, op_func, mutates_args,
  // fake_impl, target_lib, dispatch_key, tags)`, where a source defines it (read before any source's calls of it):
  // the namespace of the Library it defaults to (`my_lib = target_lib or vllm_lib`), and its define and
  // _register_fake statements ("file:first-last"), which the package's defs and fakes replace.
  struct RegistrationHelper {
    std::string library;  // the default Library's variable
    std::string ns;
    std::string define_at, fake_at, def_at;
  };
  std::optional<RegistrationHelper> helper;
  void find_registration_helper(const SourceFile& file);

 private:
  void helper_call(const Tokens& tokens, const std::vector<TokenRange>& args, const std::string& module,
                   const std::string& where, const std::map<std::string, size_t>& module_functions,
                   const ModuleValues& values, const std::map<std::string, std::string>& library_ns,
                   const std::function<std::string(size_t)>& returned_argument);
  // `def_at`: the token of the function's `def`, where import can read it.
  void custom_op(ImportedOp& o, const Tokens& tokens, const std::vector<TokenRange>& args,
                 std::optional<size_t> def_at, const std::string& function, const std::string& module,
                 const std::string& where, const ModuleValues& values, const std::string& definer);
};

}  // namespace opgen::import::detail
