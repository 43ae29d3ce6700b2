// `dispatch:` and `autocast:`: the keys an op has kernels for (every one
// PyTorch registers kernels for, model/dispatch_keys.h), whether a call can
// reach them, and what a kernel that redispatches may stand beside.
#include "check/dispatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "check/names.h"
#include "model/dispatch_keys.h"
#include "model/tags.h"
#include "model/types.h"
#include "support/diagnostic_codes.h"

namespace opgen::check {

namespace {

using model::Abi;
using model::Argument;

// Device types torch.library.register_autocast takes, with the dispatch
// key of their kernels; dtypes autocast may cast floating inputs to.
const std::map<std::string, std::string>& autocast_devices() {
  static const std::map<std::string, std::string> devices = {
      {"cpu", "CPU"}, {"cuda", "CUDA"}, {"mps", "MPS"}, {"xpu", "XPU"}};
  return devices;
}
bool castable(const std::string& dtype) { return dtype == "float16" || dtype == "bfloat16" || dtype == "float32"; }

// A kernel at a key that redispatches, against what the spec says itself.
void check_key_fits(const model::OpSpec& op, const model::Located<std::string>& key, model::DispatchKeyKind kind,
                    Diagnostics& diags) {
  const bool python = std::any_of(op.python_kernels.begin(), op.python_kernels.end(),
                                  [&](const model::PythonKernel& k) { return k.dispatch_key.value == key.value; });
  if (op.abi.value == Abi::Stable && !python && !model::stable_abi_serves(kind))
    diags
        .error(Code::DispatchKeyNotOnStableAbi, key.loc,
               fmt::format("a kernel at '{}' calls the kernels below its key, which the stable ABI cannot: its C shim "
                           "calls an op only from the dispatcher's top",
                           key.value))
        .notes.push_back({"use 'abi: unstable' for this op, or a Python kernel for this key"});
  if (kind == model::DispatchKeyKind::Autograd && op.autograd)
    diags
        .error(Code::AutogradKernelAndRule, key.loc,
               fmt::format("the op has a kernel at '{}' and an 'autograd' rule: two gradients for the same calls",
                           key.value))
        .notes.push_back(
            {fmt::format("the 'autograd' rule starts on line {}: keep the rule or the kernel", op.autograd->loc.line)});
  if (kind == model::DispatchKeyKind::Autocast)
    for (const model::AutocastRule& rule : op.autocast) {
      auto device = autocast_devices().find(rule.device.value);
      if (device == autocast_devices().end() || "Autocast" + device->second != key.value) continue;
      diags
          .error(
              Code::AutocastKernelAndRule, key.loc,
              fmt::format("the op has a kernel at '{}' and an 'autocast' rule for '{}', which registers one there too",
                          key.value, rule.device.value))
          .notes.push_back({fmt::format("the rule is on line {}: keep the rule or the kernel", rule.loc.line)});
    }
}

void check_keys(const model::OpSpec& op, Diagnostics& diags) {
  std::set<std::string> seen;
  for (const auto& key : op.dispatch) {
    const model::DispatchKey* known = model::find_dispatch_key(key.value);
    if (!known) {
      auto& d = diags.error(Code::UnknownDispatchKey, key.loc, fmt::format("unknown dispatch key '{}'", key.value));
      if (auto guess = closest_match(key.value, model::registrable_dispatch_keys()); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
      continue;
    }
    if (!seen.insert(key.value).second) {
      diags.error(Code::DuplicateDispatchKey, key.loc, fmt::format("dispatch key '{}' is listed twice", key.value));
      continue;
    }
    if (known->kind == model::DispatchKeyKind::CatchAll) {
      diags
          .error(Code::UnreachedDispatchKey, key.loc,
                 fmt::format("PyTorch registers a kernel at '{}' as its {} kernel: the spec names the key it lands at",
                             key.value, known->instead))
          .notes.push_back({fmt::format("use {}", known->instead)});
      continue;
    }
    if (known->kind == model::DispatchKeyKind::Unreached) {
      diags
          .error(Code::UnreachedDispatchKey, key.loc,
                 fmt::format("no call reaches a kernel at '{}': PyTorch looks kernels up per backend", key.value))
          .notes.push_back({fmt::format("use {}", known->instead)});
      continue;
    }
    check_key_fits(op, key, known->kind, diags);
  }
}

// PyTorch picks a backend's kernel by the devices of the op's tensor
// arguments: with none, a CPU or CUDA kernel is never reached ("There were
// no tensor arguments to this function ... but no fallback function is
// registered"), so only a backend-independent kernel can run.
void check_reachable(const model::OpSpec& op, Diagnostics& diags) {
  if (model::takes_dispatch_tensor(op.schema)) return;
  for (const auto& key : op.dispatch) {
    const model::DispatchKey* known = model::find_dispatch_key(key.value);
    if (!known || !model::picked_by_tensor(known->kind)) continue;
    // A default key (no `dispatch:`) stands nowhere in the file: point at the schema.
    auto& d = diags.error(Code::NoTensorToDispatchOn, key.loc.line ? key.loc : op.schema_text.loc,
                          fmt::format("dispatch key '{}' is never reached: the op takes no tensor, and PyTorch picks a "
                                      "{} kernel by the device of its tensor arguments",
                                      key.value, key.value));
    d.notes.push_back(
        {"give the op a tensor argument, or one kernel for every device: "
         "'dispatch: [CompositeExplicitAutograd]'"});
    if (std::any_of(op.schema.arguments.begin(), op.schema.arguments.end(),
                    [](auto& a) { return a.type && model::type_key(*a.type) == "Tensor[][]"; }))
      d.notes.push_back(
          {"PyTorch reads no device from a 'Tensor[][]' argument: apex's multi-tensor ops take a "
           "'Tensor noop_flag' first, which it does read"});
    return;
  }
}

}  // namespace

void check_dispatch(const model::OpSpec& op, Diagnostics& diags) {
  const size_t errors_before = diags.error_count();
  check_keys(op, diags);
  if (diags.error_count() == errors_before) check_reachable(op, diags);
}

void check_decomposing(model::OpSpec& op, Diagnostics& diags) {
  if (!op.decomposes()) return;
  // PyTorch refuses both when the package registers them: torch.library's
  // register_fake and its Meta impl check for a CompositeImplicitAutograd kernel.
  auto refuse = [&](const SourceLoc& at, const std::string& what) {
    diags
        .error(Code::FakeForDecomposingOp, at,
               fmt::format("{} for an op with a CompositeImplicitAutograd kernel, which PyTorch refuses: the op "
                           "decomposes, and fake tensors run that kernel",
                           what))
        .notes.push_back({"drop it, or give the kernel the key CompositeExplicitAutograd, which keeps the op whole "
                          "in compiled graphs and takes a fake"});
  };
  if (op.fake_python)
    refuse(op.fake_python->loc, "a fake");
  else if (!op.fake.empty())
    refuse(op.fake_loc.line ? op.fake_loc : op.fake.front().at(0), "a fake");
  for (const model::PythonKernel& kernel : op.python_kernels)
    if (kernel.dispatch_key.value == "Meta") refuse(kernel.dispatch_key.loc, "a Python Meta kernel");
  if (op.eager_only.empty())
    op.mark_eager_only("W0803", "it decomposes (W0803): fake tensors, torch.library.opcheck and torch.compile run "
                                "its CompositeImplicitAutograd kernel on fake tensors");
  diags
      .warning(Code::DecomposingOpEagerOnly, op.schema_text.loc,
               "the op has a CompositeImplicitAutograd kernel: it decomposes, so fake tensors and torch.compile run "
               "that kernel on fake tensors, which a kernel reading data pointers cannot take; the generated suite "
               "calls it eagerly only")
      .notes.push_back({"to keep the op whole in compiled graphs: the key CompositeExplicitAutograd, and a fake"});
}

void check_definition(const model::OpSpec& op, Diagnostics& diags) {
  if (!op.define) return;
  const model::Located<std::string>& define = *op.define;
  if (define.value != "library" && define.value != "custom_op" && define.value != "triton_op") {
    auto& d = diags.error(Code::BadDefine, define.loc,
                          fmt::format("'define' is 'library', 'custom_op' or 'triton_op', not '{}'", define.value));
    if (const std::string guess = closest_match(define.value, {"library", "custom_op", "triton_op"}); !guess.empty())
      d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    return;
  }
  if (!op.defined_by_custom_op()) return;
  auto refuse = [&](const SourceLoc& loc, std::string why, std::string note) {
    diags.error(Code::CustomOpCannotDefine, loc, fmt::format("'define: {}', but {}", define.value, why))
        .notes.push_back({std::move(note)});
  };
  if (op.defined_by_triton_op()) {
    // triton_op: one function for every device, which is the op's fake too, and custom_op's tags alone.
    if (op.python_kernels.size() != 1 || op.python_kernels.front().dispatch_key.value != "CompositeExplicitAutograd")
      refuse(op.python_kernels.empty() ? define.loc : op.python_kernels.front().dispatch_key.loc,
             "triton_op defines an op around one Python function, for every device",
             "one kernel, at CompositeExplicitAutograd: {python: \"module:function\"}; or 'define: custom_op', whose "
             "kernels may be per device");
    if (op.fake_meta || op.fake_decomposes)
      refuse(op.fake_loc.line ? op.fake_loc : define.loc,
             "its fake is a kernel registered outside the spec, where triton_op registers its kernel as the fake",
             "drop 'fake' (the kernel is the fake), or give one in the rule language or Python");
    for (const auto& tag : op.tags)
      if (tag.value != "pt2_compliant_tag")
        refuse(tag.loc, fmt::format("triton_op takes no tags, and '{}' is one", tag.value),
               "drop the tag, or 'define: custom_op', which takes tags");
  }
  if (op.python_kernels.empty())
    return refuse(define.loc, "the op has no Python kernel, which custom_op defines it around",
                  "name each kernel's function under 'kernels:' ({python: \"module:function\"}), or drop 'define'");
  for (const auto& key : op.dispatch)
    if (std::none_of(op.python_kernels.begin(), op.python_kernels.end(),
                     [&](const model::PythonKernel& k) { return k.dispatch_key.value == key.value; }))
      refuse(key.loc, fmt::format("the kernel at '{}' is C++, and custom_op defines an op around Python functions",
                                  key.value),
             "a Python kernel for the key, or 'define: library' (the package registers Python kernels beside C++ ones)");
  for (const model::PythonKernel& kernel : op.python_kernels)
    if (kernel.dispatch_key.value != "CompositeExplicitAutograd" &&
        model::custom_op_device_type(kernel.dispatch_key.value).empty())
      refuse(kernel.dispatch_key.loc,
             fmt::format("custom_op registers no kernel at '{}'{}", kernel.dispatch_key.value,
                         kernel.dispatch_key.value == "Meta" ? ": its fake is the op's Meta kernel" : ""),
             "custom_op's kernels are per device type (CPU, CUDA, XPU, MPS, HIP...) or for every device "
             "(CompositeExplicitAutograd); 'define: library' registers a Python kernel at any key");
  if (!op.schema.name.overload.empty())
    refuse(op.schema_at(0),
           fmt::format("the op has the overload name '{}': custom_op defines 'ns::op' alone", op.schema.name.overload),
           "drop the overload name, or 'define: library'");
  if (!op.host_args.empty())
    refuse(define.loc, fmt::format("the op takes the host object '{}'", op.host_args.front().name),
           "'define: library' carries host objects");
  if (!model::has_tag(op, "out"))
    for (const Argument& a : op.schema.arguments)
      if (a.kwarg_only && model::type_key(*a.type).starts_with("Tensor")) {
        refuse(define.loc, fmt::format("'{}' is a keyword-only tensor, which custom_op refuses but in an out op",
                                       a.name),
               fmt::format("make '{}' positional, or 'define: library'", a.name));
        break;
      }
}

void check_autocast(const model::OpSpec& op, Diagnostics& diags) {
  for (const model::AutocastRule& rule : op.autocast) {
    const std::string& device = rule.device.value;
    auto known = autocast_devices().find(device);
    if (known == autocast_devices().end()) {
      std::vector<std::string> names;
      for (const auto& [name, key] : autocast_devices()) names.push_back(name);
      std::string lower = device;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      auto& d = diags.error(Code::AutocastUnknownDevice, rule.device.loc,
                            fmt::format("'autocast' names the device type '{}', which has no autocast", device));
      if (const std::string guess = closest_match(lower, names); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'? device types are spelled as torch.device().type", guess)});
      d.notes.push_back({fmt::format("device types: {}", fmt::join(names, ", "))});
      continue;
    }
    // A composite kernel serves every device.
    const bool dispatched = std::any_of(op.dispatch.begin(), op.dispatch.end(), [&](const auto& key) {
      const model::DispatchKey* k = model::find_dispatch_key(key.value);
      return key.value == known->second || (k && (k->kind == model::DispatchKeyKind::Composite ||
                                                   k->kind == model::DispatchKeyKind::Decomposing));
    });
    if (!dispatched)
      diags
          .error(Code::AutocastDeviceNotDispatched, rule.device.loc,
                 fmt::format("'autocast' has a rule for '{}', but {} has no {} kernel", device, op.op_name(),
                             known->second))
          .notes.push_back({fmt::format("add {} to 'dispatch', or drop the rule", known->second)});
    const std::string& dtype = rule.cast_inputs.value;
    if (!check_known_dtype(rule.cast_inputs, diags)) continue;
    if (!castable(dtype) && dtype != "float64") {
      diags
          .error(Code::AutocastBadDtype, rule.cast_inputs.loc,
                 fmt::format("autocast casts floating-point inputs; it cannot cast them to '{}'", dtype))
          .notes.push_back({"cast_inputs takes float16, bfloat16, float32 or float64"});
      continue;
    }
    // Autocast casts every floating-point input but float64: an argument
    // whose checks allow a castable dtype must allow the target too.
    for (const model::TensorCheck& check : op.checks) {
      auto allows = [&](const std::string& d) {
        return std::any_of(check.dtypes.begin(), check.dtypes.end(), [&](const auto& x) { return x.value == d; });
      };
      const bool cast =
          std::any_of(check.dtypes.begin(), check.dtypes.end(), [](const auto& x) { return castable(x.value); });
      if (!cast || allows(dtype)) continue;
      std::vector<std::string> allowed;
      for (const auto& d : check.dtypes) allowed.push_back(d.value);
      diags
          .error(
              Code::AutocastDtypeNotAllowed, rule.cast_inputs.loc,
              fmt::format("'autocast: {}' casts '{}' to {}, which its checks refuse", device, check.arg.value, dtype))
          .notes.push_back({fmt::format("{}: '{}' allows {}", check.dtypes.front().loc.to_string(), check.arg.value,
                                        fmt::join(allowed, ", "))});
    }
  }
  if (op.autocast.empty()) return;
  // torch.library.register_autocast's kernel refuses keyword arguments, and the
  // dispatcher passes a keyword-only argument that differs from its default as one.
  for (const Argument& a : op.schema.arguments) {
    if (!a.kwarg_only) continue;
    diags
        .error(Code::AutocastKeywordOnly, op.autocast.front().device.loc,
               fmt::format("{} takes the keyword-only argument '{}': PyTorch's autocast registration refuses keyword "
                           "arguments, so a call passing it would fail under autocast",
                           op.op_name(), a.name))
        .notes.push_back(
            {fmt::format("make '{}' positional (before the '*' of the schema), or drop 'autocast'", a.name)});
    break;
  }
  // A cast copies: a kernel writing a cast input would write the copy.
  for (const Argument& a : op.schema.arguments) {
    if (!model::is_mutable(a)) continue;
    const model::TensorCheck* check = nullptr;
    for (const auto& c : op.checks)
      if (c.arg.value == a.name && !c.dtypes.empty()) check = &c;
    if (check &&
        std::none_of(check->dtypes.begin(), check->dtypes.end(), [](const auto& d) { return castable(d.value); }))
      continue;
    diags
        .error(Code::AutocastOnMutatingOp, op.autocast.front().device.loc,
               fmt::format("{} writes '{}', which autocast would cast to a copy: the write would be lost", op.op_name(),
                           a.name))
        .notes.push_back({fmt::format("cast the inputs before calling the op, or give '{}' a dtype check that "
                                      "autocast leaves alone (float64 or integer dtypes)",
                                      a.name)});
    break;
  }
}

}  // namespace opgen::check
