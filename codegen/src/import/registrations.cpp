#include "import/registrations.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "import/registration_collector.h"
#include "import/tokens.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/diagnostic_codes.h"
#include "support/file_io.h"

namespace opgen::import {

namespace detail {

// `torch::kCUDA`, `c10::DispatchKey::CUDA`, `kCUDA`, `"cuda"` -> the key's
// name (model/dispatch_keys.h); "" when it is none a kernel can be
// registered for (a typo, or a key no call reaches).
std::string dispatch_key(const std::string& written) {
  std::string name = written;
  if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1]))) name = name.substr(1);
  static const std::map<std::string, std::string> device_types = {
      {"cpu", "CPU"}, {"cuda", "CUDA"}, {"xpu", "XPU"}, {"mps", "MPS"}, {"meta", "Meta"}};
  if (auto it = device_types.find(name); it != device_types.end()) return it->second;
  if (const std::string_view key = model::cpp_enum_alias(name); !key.empty()) name = key;  // CatchAll, Autocast...
  const model::DispatchKey* key = model::find_dispatch_key(name);
  if (!key || key->kind == model::DispatchKeyKind::Unreached) return "";
  return std::string(model::registered_key(*key));  // Undefined: CompositeImplicitAutograd
}

std::string abi_text(model::Abi abi) { return abi == model::Abi::Stable ? "stable ABI" : "unstable ABI"; }

// "ns::name.overload" or "name.overload" -> (ns, name)
std::pair<std::string, std::string> split_qualified(const std::string& text) {
  std::string head = text.substr(0, text.find('('));
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.front()))) head.erase(head.begin());
  if (const size_t colon = head.find("::"); colon != std::string::npos)
    return {head.substr(0, colon), head.substr(colon + 2)};
  return {"", head};
}

}  // namespace detail

using detail::Collector;

std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags) {
  namespace fs = std::filesystem;
  static const std::set<std::string> kSuffixes = {".cpp", ".cc", ".cxx", ".cu", ".h", ".hpp", ".cuh", ".py"};
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !it->is_symlink(ec) && kSuffixes.count(it->path().extension().string()))
        found.push_back(it->path().generic_string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<SourceFile> sources;
  for (const std::string& file : files) {
    if (auto text = read_file(file))
      sources.push_back({file, std::move(*text)});
    else
      diags.error(Code::CannotReadSpec, {file, 0, 0}, "cannot read it (a regular file of at most 64 MiB)");
  }
  return sources;
}

namespace {

// A def read in this configuration with no impl in it, whose impls the same
// C++ sources read without a configuration do have (every branch read, each
// impl with its guard): they all stand in branches this configuration does
// not take, so here the sources register the schema alone.
void find_impls_in_other_configurations(ImportResult& configured, const ImportResult& every_branch) {
  std::multimap<std::string, const ImportedOp*> by_name;  // one lookup per op: linear in hostile sources too
  for (const ImportedOp& every : every_branch.ops) by_name.emplace(every.name, &every);
  for (ImportedOp& o : configured.ops) {
    if (!o.defined || !o.kernels.empty() || !o.kept_impls.empty() || o.kernel_refused) continue;
    for (auto [it, end] = by_name.equal_range(o.name); it != end; ++it) {
      const ImportedOp& every = *it->second;
      if (every.ns != o.ns && !every.ns.empty() && !o.ns.empty()) continue;
      for (const ImportedKernel& k : every.kernels)
        o.impls_in_other_configurations.push_back(
            fmt::format("{} ({}{})", k.dispatch_key, k.where, k.guard.empty() ? "" : ", under " + k.guard));
      for (const std::string& kept : every.kept_impls) o.impls_in_other_configurations.push_back(kept);
    }
  }
}

}  // namespace

ImportResult find_registrations(const std::vector<SourceFile>& sources, const Configuration* configuration) {
  Collector c;
  c.configuration = configuration;
  for (const SourceFile& source : sources)
    if (source.display.ends_with(".py") && !c.helper) c.find_registration_helper(source);
  for (const SourceFile& source : sources) {
    if (source.display.ends_with(".py"))
      c.python(source);
    else
      c.cpp(source);
  }
  if (configuration) {
    Collector all;  // every branch read, each registration with its guard
    for (const SourceFile& source : sources)
      if (!source.display.ends_with(".py")) all.cpp(source);
    find_impls_in_other_configurations(c.result, all.result);
    const bool none_defined = std::none_of(c.result.ops.begin(), c.result.ops.end(),
                                           [](const ImportedOp& o) { return o.defined; });
    if (none_defined)
      for (const ImportedOp& o : all.result.ops)
        if (o.defined)
          c.result.defs_in_other_configurations.push_back(
              fmt::format("{} ({}{})", o.name, o.where, o.guard.empty() ? "" : ", under " + o.guard));
  }
  return std::move(c.result);
}

void keep_unbound_impls(ImportResult& result) {
  std::set<std::pair<std::string, std::string>> kept;  // op, file:line of the impl
  for (ImportedOp& o : result.ops) {
    if (o.schema.empty()) continue;
    const auto parsed = model::parse_schema(o.schema);
    const bool tensorless = std::holds_alternative<model::FunctionSchema>(parsed) &&
                            !model::takes_dispatch_tensor(std::get<model::FunctionSchema>(parsed));
    std::erase_if(o.kernels, [&](const ImportedKernel& kernel) {
      // A custom_op's own function is the spec's to register once its decorator is gone: not the project's.
      if (kernel.python) return false;
      const model::DispatchKey* key = model::find_dispatch_key(kernel.dispatch_key);
      std::string why;
      if (tensorless && key && model::picked_by_tensor(key->kind))
        why = fmt::format("no call reaches it: the op takes no tensor, and PyTorch picks a {} kernel by the device of "
                          "a tensor argument",
                          kernel.dispatch_key);
      else if (kernel.stable != (o.abi == model::Abi::Stable))
        why = fmt::format("a {}-ABI kernel of an op the sources define on the {} ABI ({}): the spec binds kernels of "
                          "its own ABI",
                          kernel.stable ? "stable" : "unstable", kernel.stable ? "unstable" : "stable", o.where);
      else
        return false;
      o.kept_impls.push_back(fmt::format("{} ({}; {})", kernel.dispatch_key, kernel.where, why));
      kept.emplace(o.name, kernel.where);
      return true;
    });
  }
  if (kept.empty()) return;
  for (RegistrationBlock& block : result.blocks)
    for (RegistrationBlock::Registration& reg : block.registrations)
      if (kept.count({reg.op, reg.where})) reg.kept = true;
}

// `ns::fn<T, 2>` -> `fn`: the name a declaration spells.
std::string declared_name(const std::string& function) {
  std::string name = function.substr(0, function.find('<'));
  if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  return name;
}

}  // namespace opgen::import
