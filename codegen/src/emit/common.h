// Helpers shared by the emitters: names, headers, input-check rendering.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/generated_names.h"
#include "model/spec.h"

namespace opgen::emit {

// "// @generated from schemas/x.yaml - DO NOT EDIT" with the given comment leader.
std::string generated_header(const std::string& comment, const std::string& source);
std::string generated_header(const std::string& comment, const model::Library& lib);

// "opgen::rms_norm"
std::string qualified_name(const model::Library& lib, const model::OpSpec& op);

// The first stable ABI with StableLibrary::set_python_module (2.13).
inline constexpr uint64_t kStablePythonModuleSince = 0x020d000000000000ULL;
// `  m.set_python_module("<pkg>._ops");\n` for an op's def block, or "" where
// its ABI cannot name the module. PyTorch records the module per op, from
// the block that defines it: Dynamo and FakeTensor errors then say to import
// it, and register_fake checks that the fake comes from there.
std::string set_python_module_line(const model::Library& lib, const model::OpSpec& op);
// The schema as registered (no namespace; annotations filled in).
std::string def_schema(const model::OpSpec& op);
// The schema the C++ library registers (OpSpec::cpp_schema): def_schema's,
// or the flat op's when the op wraps one.
std::string cpp_def_schema(const model::OpSpec& op);

// Where each result of an op comes from: a result bound to an argument
// (`-> Tensor(a!)` of `Tensor(a!) out`) is that argument, which the kernel
// wrote into; the others are the kernel's own results, named `opgen_out<k>`
// (`opgen_` names cannot clash with arguments: the checker reserves them).
struct ResultSources {
  std::vector<std::string> results;  // per result: an argument name or an opgen_out<k>
  std::vector<std::string> outs;     // the kernel's own results, in order
};
ResultSources result_sources(const model::FunctionSchema& schema);

// Each result's fake rule (the spec's `fake:` list, in order, skipping the
// results bound to a mutated argument, which are that argument: nullptr).
std::vector<const model::RuleText*> fake_rule_of_each_result(const model::OpSpec& op);

// One input check, rendered for C++ or Python.
struct RenderedCheck {
  std::string condition;  // C++ or Python boolean expression
  std::string message;    // C++: comma-separated STD_TORCH_CHECK message parts; Python: f-string body
  // A check of every tensor of the list argument `each`: the condition and
  // message read the tensor as `opgen_t` and its index as `opgen_i`.
  std::string each;
};
// The lines of a check: `macro(condition, message);` (TORCH_CHECK or
// STD_TORCH_CHECK), in a loop over the list for a per-tensor check.
std::vector<std::string> cpp_check_lines(const RenderedCheck& check, const char* macro);
// The same for the fakes: `torch._check(condition, lambda: f"message")`.
std::vector<std::string> python_check_lines(const RenderedCheck& check);
std::vector<RenderedCheck> cpp_checks(const model::Library& lib, const model::OpSpec& op, bool stable);
std::vector<RenderedCheck> python_checks(const model::Library& lib, const model::OpSpec& op);

// The flat names the op's rules read (`require`, `let`, `fake`, `flops`,
// `compile: when`, `result_meta`).
std::set<std::string> names_read_by_rules(const model::OpSpec& op);
// The fields of a carried argument the op's rules read, in the class's
// order: fakes read them while torch.compile traces, so PyTorch must guard
// them (members and guard_fn, PyTorch >= 2.11).
std::vector<const model::HostField*> traced_fields(const model::Library& lib, const model::OpSpec& op,
                                                   const model::HostArgument& host);
// Arguments the checks read, in schema order.
std::vector<std::string> checked_args(const model::OpSpec& op);

// Which forward output a backward-op argument named `name` takes the gradient
// of (`grad` for a single output, `grad_<i>`, `grad_<output name>`), if any.
std::optional<size_t> gradient_of_output(const model::FunctionSchema& fwd, const std::string& name);

// The tensor that outputs are created on by default: the first Tensor argument.
std::string default_device_arg(const model::OpSpec& op);

// Whether argument `i` keeps its default in a Python signature: a schema may
// give a positional argument a default before one without (`int? n=None,
// Tensor y`), which Python refuses, so a positional default stays only where
// no positional argument without one follows. PyTorch leaves out arguments
// equal to their defaults, so where a default stays it must be there.
bool python_keeps_default(const model::FunctionSchema& s, size_t i);

}  // namespace opgen::emit
