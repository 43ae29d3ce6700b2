// python/<pkg>/_ops.py: loads the shared library, then registers what
// PyTorch's Python side needs: fakes, autograd, autocast, FLOP formulas,
// symm_mem arguments; and binds the typed shims straight to the op
// overloads (no call overhead).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "model/tags.h"
#include "emit/common.h"
#include "emit/emit.h"
#include "model/dispatch_keys.h"
#include "model/generated_names.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

constexpr const char* kPrologue = R"py(
"""Registrations for the torch.ops.$ns$ operators.

Importing this module loads $library$ (which registers the schemas and
kernels) and adds the fake implementations, autograd formulas, autocast
rules, FLOP formulas and symmetric-memory arguments of every op. Each op is
also bound here under its own name, straight to its torch.ops overload.
"""

from __future__ import annotations

)py";

std::string python_op(const model::Library& lib, const model::OpSpec& op) {
  return fmt::format("torch.ops.{}.{}.{}", lib.ns, op.schema.name.name,
                     op.schema.name.overload.empty() ? "default" : op.schema.name.overload);
}

std::string python_flat_op(const model::Library& lib, const model::OpSpec& op) {
  const model::FunctionSchema schema = op.cpp_schema();
  return fmt::format("torch.ops.{}.{}.{}", lib.ns, schema.name.name,
                     schema.name.overload.empty() ? "default" : schema.name.overload);
}

// "input, weight, eps=1e-06, *, out": the schema's parameters as a Python
// signature. PyTorch leaves out arguments equal to their defaults, so the
// defaults must be there; a positional default is kept only where no
// positional parameter without one follows (Python's rule).
std::string python_params(const model::FunctionSchema& s) {
  std::vector<std::string> params;
  bool star = false;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const auto& a = s.arguments[i];
    if (a.kwarg_only && !star) {
      params.push_back("*");
      star = true;
    }
    params.push_back(python_keeps_default(s, i) ? a.name + "=" + a.default_value->to_python() : a.name);
  }
  return fmt::format("{}", fmt::join(params, ", "));
}

// The lines that open every Python function taking the op's registered
// arguments (its fake, Python kernels, FLOP formula, result metadata): a
// carried object's flag and the fields the rules read, as the flat locals
// the rules are written over. Nothing else is read of the object: a fake
// sees a stand-in that has only the guarded fields.
std::vector<std::string> carried_unpack_lines(const model::Library& lib, const model::OpSpec& op) {
  std::vector<std::string> lines;
  for (const auto& host : op.host_args) {
    if (!host.carry) continue;
    if (host.optional) lines.push_back(fmt::format("{} = {} is not None", host.given_name(), host.name));
    for (const model::HostField* field : traced_fields(lib, op, host))
      lines.push_back(host.optional ? fmt::format("{} = {}{} if {} else None", host.field_name(*field), host.name,
                                                  field->read, host.given_name())
                                    : fmt::format("{} = {}{}", host.field_name(*field), host.name, field->read));
  }
  return lines;
}

// The op's fake, over its registered arguments; with `flat`, the fake of the
// flat C++ op an op carrying objects wraps (OpSpec::wraps_flat_op), over the
// fields, which the same rules are written over.
void emit_fake(Printer& p, const model::Library& lib, const model::OpSpec& op, bool flat = false) {
  const std::string qualified = flat ? lib.ns + "::" + op.cpp_op_name() : qualified_name(lib, op);
  if (op.fake_python) {
    // Imported when first called (its module may import this package).
    p.line(fmt::format("{} = _opgen.handwritten({}, {})", fake_function(op), python_string_literal(op.fake_python->value),
                       python_string_literal(fmt::format("{}'s fake ({}: fake: {{python: ...}})", qualified,
                                                         op.display_path))));
    p.line();
    p.line(fmt::format("torch.library.register_fake(\"{}\")({})", qualified, fake_function(op)));
    return;
  }
  model::ExprEnv env;
  env.schema = &op.schema;
  const std::string device = default_device_arg(op);
  p.line(fmt::format("@torch.library.register_fake(\"{}\")", qualified));
  p.line(fmt::format("def {}({}):", flat ? flat_fake_function(op) : fake_function(op),
                     python_params(flat ? op.schema : op.registered_schema())));
  auto indent = p.indent(4);
  if (!flat)
    for (const auto& line : carried_unpack_lines(lib, op)) p.line(line);
  for (const auto& check : python_checks(lib, op))
    for (const auto& line : python_check_lines(check)) p.line(line);
  for (const auto& let : op.lets) {
    p.line(fmt::format("{} = {}", let.name.value, model::render_python(*let.rule.expr, env, device)));
    env.lets[let.name.value] = model::ValueKind::Int;
  }
  std::vector<std::string> outs;
  const auto rules = fake_rule_of_each_result(op);
  for (size_t i = 0; i < op.schema.returns.size(); ++i) {
    // A result bound to an argument is the argument (out=, inplace); one
    // aliasing an optional argument is it when given, a new tensor otherwise.
    const auto& ret = op.schema.returns[i];
    if (const model::Argument* bound = model::bound_argument(op.schema, ret)) {
      outs.push_back(bound->name);
    } else if (const model::Argument* aliased = model::aliased_argument(op.schema, ret)) {
      outs.push_back(fmt::format("{} if {} is not None else {}", aliased->name, aliased->name,
                                 model::render_python(*rules[i]->expr, env, device)));
    } else if (const std::string key = model::type_key(*ret.type); key == "int[]" || key == "SymInt[]") {
      outs.push_back(fmt::format("list({})", model::render_python(*rules[i]->expr, env, device)));  // a list, as the kernel's
    } else {
      outs.push_back(model::render_python(*rules[i]->expr, env, device));
    }
  }
  if (outs.empty()) {
    p.line("return None");
  } else if (outs.size() == 1) {
    p.line("return " + outs[0]);
  } else {
    p.line(fmt::format("return ({})", fmt::join(outs, ", ")));
  }
}

// A backward argument named as a forward tensor-subclass result's metadata
// field (`<result>_<field>`, as a backward taking the result flattens it):
// the expression setup_context reads it with, from `opgen_meta`, the
// forward's result_meta function of its inputs.
std::optional<std::string> result_meta_source(const model::Library& lib, const model::OpSpec& op, const std::string& name) {
  for (size_t r = 0; r < op.subclass_results.size(); ++r) {
    const auto& result = op.subclass_results[r];
    for (const auto& field : lib.host_class(result.cls)->meta())
      if (model::flat_field_name(result.name, field.name.value) == name)
        return fmt::format("opgen_meta[{}][{}]", r, python_string_literal(field.name.value));
  }
  return std::nullopt;
}

// setup_context saves what the backward op's arguments name; backward calls
// the backward op and spreads its results over the forward inputs.
// An output whose gradient the backward op does not take (a saved statistic,
// an index) is marked non-differentiable: a gradient flowing into it would be
// dropped silently otherwise. A `Tensor?` input gets its gradient only when it
// was given (autograd rejects a gradient for a None input).
// A flat argument of the forward op that a carried object stands for (its
// flag or a field): the expression reading it from the object, which is
// inputs[<index>] of the registered op; nullopt for any other name.
std::optional<std::string> carried_field_source(const model::Library& lib, const model::OpSpec& op,
                                                const model::FunctionSchema& registered, const std::string& name) {
  for (const auto& host : op.host_args) {
    if (!host.carry) continue;
    size_t index = 0;
    while (registered.arguments[index].name != host.name) ++index;
    const std::string object = fmt::format("inputs[{}]", index);
    if (host.optional && name == host.given_name()) return object + " is not None";
    for (const auto& field : lib.host_class(host.cls)->fields)
      if (host.field_name(field) == name)
        return host.optional ? fmt::format("{}{} if {} is not None else None", object, field.read, object)
                             : object + field.read;
  }
  return std::nullopt;
}

// register_autograd calls setup_context and the backward with the registered
// op's arguments: a carried object is one input (kept on ctx whole, or read
// for the fields a backward taking them flat needs).
void emit_autograd(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  const auto& fwd = op.schema;
  const model::FunctionSchema inputs = op.registered_schema();
  const model::OpSpec* bwd = lib.find(op.autograd->backward.value);
  std::vector<std::string> saved;  // tensors, in save order
  std::vector<std::string> call_args;
  std::vector<std::pair<std::string, std::string>> ctx_attrs;  // ctx.<name> = <expr>
  auto input_index = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < inputs.arguments.size(); ++i)
      if (inputs.arguments[i].name == name) return i;
    return std::nullopt;
  };
  std::vector<bool> grad_bound(fwd.returns.size(), false);
  std::vector<std::string> bound_attrs;  // ctx attributes `bind:` computes, in its order
  for (const auto& binding : op.autograd->bind) bound_attrs.push_back(model::ctx_attribute(binding.name.value));
  for (const auto& a : bwd->registered_schema().arguments) {
    if (std::any_of(op.autograd->bind.begin(), op.autograd->bind.end(),
                    [&](const model::LetBinding& binding) { return binding.name.value == a.name; })) {
      call_args.push_back("ctx." + model::ctx_attribute(a.name));
      continue;
    }
    if (auto grad_of = gradient_of_output(fwd, a.name)) {
      grad_bound[*grad_of] = true;
      call_args.push_back(fmt::format("grads[{}]", *grad_of));
      continue;
    }
    std::string source;
    bool tensor = false;
    if (auto i = input_index(a.name)) {
      source = fmt::format("inputs[{}]", *i);
      auto key = model::type_key(*inputs.arguments[*i].type);
      tensor = key == "Tensor" || key == "Tensor?";
    } else if (auto field = carried_field_source(lib, op, inputs, a.name)) {
      source = *field;
      auto key = model::type_key(*a.type);
      tensor = key == "Tensor" || key == "Tensor?";
    } else if (auto meta = result_meta_source(lib, op, a.name)) {
      source = *meta;  // a tensor-subclass result's metadata field
    } else {
      for (size_t i = 0; i < fwd.returns.size(); ++i)
        if (fwd.returns[i].name == a.name) source = fwd.returns.size() == 1 ? "output" : fmt::format("output[{}]", i);
      tensor = true;
    }
    if (tensor) {
      call_args.push_back(fmt::format("saved[{}]", saved.size()));
      saved.push_back(source);
    } else {
      call_args.push_back("ctx." + model::ctx_attribute(a.name));
      ctx_attrs.emplace_back(model::ctx_attribute(a.name), source);
    }
  }
  std::vector<std::string> non_differentiable;
  for (size_t i = 0; i < fwd.returns.size(); ++i) {
    if (grad_bound[i]) continue;
    const auto key = model::type_key(*fwd.returns[i].type);
    const std::string out = fwd.returns.size() == 1 ? "output" : fmt::format("output[{}]", i);
    if (key == "Tensor") non_differentiable.push_back(out);
    if (key == "Tensor[]") non_differentiable.push_back("*" + out);
  }
  if (!op.autograd->bind.empty()) {
    // The bindings' rules over the forward's arguments, as the flops formula reads them.
    model::ExprEnv env;
    env.schema = &op.schema;
    p.line(fmt::format("def {}({}):", backward_bindings_function(op), python_params(inputs)));
    auto indent = p.indent(4);
    for (const auto& line : carried_unpack_lines(lib, op)) p.line(line);
    std::vector<std::string> values;
    for (const auto& binding : op.autograd->bind) values.push_back(model::render_python(*binding.rule.expr, env, ""));
    p.line(fmt::format("return ({}{})", fmt::join(values, ", "), values.size() == 1 ? "," : ""));
  }
  if (!op.autograd->bind.empty()) {
    p.line();
    p.line();
  }
  p.line(fmt::format("def {}(ctx, inputs, output):", setup_context_function(op)));
  {
    auto indent = p.indent(4);
    if (saved.empty() && ctx_attrs.empty() && non_differentiable.empty() && bound_attrs.empty()) p.line("pass");
    if (!non_differentiable.empty())
      p.line(fmt::format("ctx.mark_non_differentiable({})", fmt::join(non_differentiable, ", ")));
    if (!saved.empty()) p.line(fmt::format("ctx.save_for_backward({})", fmt::join(saved, ", ")));
    if (std::any_of(ctx_attrs.begin(), ctx_attrs.end(), [](const auto& attr) { return attr.second.starts_with("opgen_meta"); }))
      p.line(fmt::format("opgen_meta = {}(*inputs)", result_meta_function(op)));
    for (const auto& [name, source] : ctx_attrs) p.line(fmt::format("ctx.{} = {}", name, source));
    if (!bound_attrs.empty()) {
      std::vector<std::string> targets;
      for (const auto& attr : bound_attrs) targets.push_back("ctx." + attr);
      p.line(fmt::format("{}{} = {}(*inputs)", fmt::join(targets, ", "), targets.size() == 1 ? "," : "",
                         backward_bindings_function(op)));
    }
  }
  p.line();
  p.line();
  p.line(fmt::format("def {}(ctx, *grads):", backward_function(op)));
  {
    auto indent = p.indent(4);
    if (!saved.empty()) p.line("saved = ctx.saved_tensors");
    p.line(fmt::format("result = {}({})", python_op(lib, *bwd), fmt::join(call_args, ", ")));
    std::vector<std::string> per_input;
    for (size_t i = 0; i < inputs.arguments.size(); ++i) {
      const auto& a = inputs.arguments[i];
      std::string value = "None";
      for (size_t j = 0; j < op.autograd->grads.size(); ++j) {
        if (op.autograd->grads[j].value != a.name) continue;
        value = op.autograd->grads.size() == 1 ? "result" : fmt::format("result[{}]", j);
        if (model::type_key(*a.type) == "Tensor?")
          // needs_input_grad is short when the dispatcher dropped trailing
          // arguments equal to their defaults (a None bias=None).
          value = fmt::format("{} if len(ctx.needs_input_grad) > {} and ctx.needs_input_grad[{}] else None", value, i, i);
      }
      per_input.push_back(value);
    }
    p.line(fmt::format("return ({}{})", fmt::join(per_input, ", "), per_input.size() == 1 ? "," : ""));
  }
  p.line();
  p.line();
  p.line(fmt::format("torch.library.register_autograd(\"{}\", {}, setup_context={})", qualified_name(lib, op),
                     backward_function(op), setup_context_function(op)));
}

// Under torch.autocast on the device type, floating-point inputs (float64
// excepted) are cast, then the op runs with autocast off. Python's
// register_autocast serves both ABIs (the stable ABI has no autocast API);
// the runtime's register_autocast registers an op's rules together.
void emit_autocast(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  std::vector<std::string> rules;
  for (const auto& rule : op.autocast)
    rules.push_back(
        fmt::format("(\"{}\", {})", rule.device.value, model::find_dtype(rule.cast_inputs.value)->python));
  p.line(fmt::format("_opgen.register_autocast(\"{}\", [{}])", qualified_name(lib, op), fmt::join(rules, ", ")));
}

// FlopCounterMode calls the formula with the op's arguments as passed
// (get_raw: tensors, not their shapes) and the output as out_val=, which
// **opgen_counter takes (arguments cannot start with opgen_). Formulas are
// keyed by overload packet; the checker allows `flops` on an op only when
// it is the one overload of its name (E0522).
void emit_flops(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  model::ExprEnv env;
  env.schema = &op.schema;
  const std::string params = python_params(op.registered_schema());
  p.line(fmt::format("@torch.utils.flop_counter.register_flop_formula(torch.ops.{}.{}, get_raw=True)", lib.ns,
                     op.schema.name.name));
  p.line(fmt::format("def {}({}{}**opgen_counter):", flops_function(op), params, params.empty() ? "" : ", "));
  for (const auto& line : carried_unpack_lines(lib, op)) p.line("    " + line);
  p.line(fmt::format("    return {}", model::render_python(*op.flops->expr, env, "")));
}

void emit_symm_mem(Printer& p, const model::Library& lib) {
  std::vector<const model::OpSpec*> ops;
  for (const auto& op : lib.ops)
    if (!op.symm_mem.empty()) ops.push_back(&op);
  if (ops.empty()) return;
  p.line();
  p.line();
  p.line("# Arguments Inductor must allocate in symmetric memory (PyTorch >= 2.13).");
  p.line(fmt::format("_opgen.register_symm_mem_args({}, {{", python_string_literal(lib.ns)));
  for (const auto* op : ops) {
    std::vector<std::string> names;
    for (const auto& n : op->symm_mem) names.push_back(python_string_literal(n.value));
    p.line(fmt::format("    \"{}\": [{}],", op->op_name(), fmt::join(names, ", ")));
  }
  p.line("})");
}

// `cudagraph: unsafe` on a stable-ABI op whose target registers no tags
// (before 2.12): Inductor's partition list (2.10 on) has the same effect as
// the cudagraph_unsafe tag. Importing torch._inductor.config costs seconds,
// so the ops are added when something else imports it (Inductor does before
// it schedules anything), or at once when it already was. Assigned, not
// appended, so config.patch() scopes still see them.
void emit_cudagraph_partitions(Printer& p, const model::Library& lib) {
  std::vector<std::string> names;
  for (const auto& op : lib.ops)
    if (model::partitioned_from_python(op)) names.push_back(python_string_literal(lib.ns + "::" + op.op_name()));
  if (names.empty()) return;
  p.line();
  p.line();
  p.line("# Ops Inductor must run outside CUDA graphs ('cudagraph: unsafe'), on its");
  p.line("# partition list: the stable ABI of the library's target gives no tags to a def.");
  p.line(fmt::format("_opgen.partition_cudagraph_unsafe([{}])", fmt::join(names, ", ")));
}

std::string flat_call_args(const model::OpSpec& op);

// The lines that make a host argument's flat arguments locals: its flag when
// optional, then every field, read by _host_fields.
std::vector<std::string> host_field_lines(const model::Library& lib, const model::OpSpec& op,
                                          const model::HostArgument& host) {
  const model::HostClass& cls = *lib.host_class(host.cls);
  std::vector<std::string> names;
  for (const auto& f : cls.fields) names.push_back(host.field_name(f));
  const std::string targets = fmt::format("{}{}", fmt::join(names, ", "), names.size() == 1 ? "," : "");
  const std::string read = fmt::format("_opgen.host_fields(_HOST_CLASSES, {}, {}, {}, {})", python_string_literal(host.cls), host.name,
                                       python_string_literal(qualified_name(lib, op)), python_string_literal(host.name));
  if (!host.optional) return {fmt::format("{} = {}", targets, read)};
  std::vector<std::string> nones(names.size(), "None");
  return {fmt::format("{} = {} is not None", host.given_name(), host.name),
          fmt::format("{} = {} if {} else ({}{})", targets, read, host.given_name(), fmt::join(nones, ", "),
                      nones.size() == 1 ? "," : "")};
}

// A Python kernel's first lines: each carried object is of its class
// (PyTorch passes any object through an opaque argument).
std::vector<std::string> carried_type_checks(const model::Library& lib, const model::OpSpec& op) {
  std::vector<std::string> lines;
  for (const auto& host : op.host_args) {
    if (!host.carry) continue;
    // A plain raise, which Dynamo traces (a torch._check message closure it
    // cannot): under torch.compile the error it reports carries this text.
    const std::string isinstance =
        fmt::format("isinstance({}, _CARRIED_CLASSES[{}])", host.name, python_string_literal(host.carried_type));
    lines.push_back(fmt::format("if not ({}{}):", host.optional ? host.name + " is None or " : "", isinstance));
    lines.push_back(fmt::format("    raise TypeError(f\"{}: argument '{}' must be a {}{}, not {{type({}).__name__}}\")",
                                qualified_name(lib, op), host.name, host.carried_type,
                                host.optional ? " or None" : "", host.name));
  }
  return lines;
}

// The carried classes (`kind:` and an op that carries them), registered with
// PyTorch as opaque types before any op naming them is defined, each guarded
// on the fields some op's rules read.
void emit_carried_classes(Printer& p, const model::Library& lib) {
  std::map<std::string, std::set<std::string>> guarded;  // class -> fields
  for (const auto& op : lib.ops)
    for (const auto& host : op.host_args) {
      if (!host.carry) continue;
      auto& fields = guarded[host.cls];
      for (const model::HostField* field : traced_fields(lib, op, host)) fields.insert(field->name.value);
    }
  if (guarded.empty()) return;
  p.line();
  p.line();
  p.line("# Host classes ops take whole (the specs' `carry:`), registered before the ops that name them:");
  p.line("# module.Class -> the class.");
  p.line("_CARRIED_CLASSES = {");
  for (const auto& [name, fields] : guarded) {
    const model::HostClass& cls = *lib.host_class(name);
    std::vector<std::string> quoted;
    for (const auto& field : cls.fields)  // the class's order
      if (fields.count(field.name.value)) quoted.push_back(python_string_literal(field.name.value));
    const std::string path = python_string_literal(cls.python_class.value);
    p.line(fmt::format("    {}: _opgen.register_host_class({}, {}, [{}]),", path, path,
                       python_string_literal(cls.kind->value), fmt::join(quoted, ", ")));
  }
  p.line("}");
}

// The kernel of an op that carries objects to C++ kernels, on every device
// (CompositeExplicitAutograd): it reads each carried object's fields when the
// op runs, not when torch.compile traces it, and calls the flat C++ op.
void emit_flat_op_wrapper(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  const std::string name = flat_op_wrapper_function(op);
  p.line();
  p.line();
  p.line(fmt::format("def {}({}):", name, python_params(op.registered_schema())));
  {
    auto indent = p.indent(4);
    for (const auto& line : carried_type_checks(lib, op)) p.line(line);
    for (const auto& host : op.host_args)
      if (host.carry)
        for (const auto& line : host_field_lines(lib, op, host)) p.line(line);
    std::vector<std::string> passed;
    for (const auto& a : op.schema.arguments) passed.push_back(a.kwarg_only ? a.name + "=" + a.name : a.name);
    p.line(fmt::format("return {}({})", python_flat_op(lib, op), fmt::join(passed, ", ")));
  }
  p.line();
  p.line();
  p.line(fmt::format("_PYTHON_LIBRARY.impl({}, {}, \"CompositeExplicitAutograd\")", python_string_literal(op.op_name()),
                     name));
}

// `define: custom_op`: the op defined through torch.library.custom_op around
// its kernels' wrappers, the first kernel's key as the definition's device
// type (CompositeExplicitAutograd: every device), the others registered on
// the custom_op object. custom_op registers the Autograd kernel (which
// raises on backward until a formula is registered), the fake's Meta
// kernel and, for an op that writes an argument, ADInplaceOrView itself.
void emit_custom_op_definition(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  auto device_type = [](const std::string& key) {
    return key == "CompositeExplicitAutograd" ? std::string("None")
                                              : python_string_literal(model::custom_op_device_type(key));
  };
  std::vector<std::string> mutated, tags;
  for (const auto& a : op.registered_schema().arguments)
    if (model::is_mutable(a)) mutated.push_back(python_string_literal(a.name));
  for (const auto& tag : op.tags) tags.push_back("torch.Tag." + tag.value);
  const std::string schema = def_schema(op);
  const model::PythonKernel& first = op.python_kernels.front();
  p.line();
  p.line();
  if (op.defined_by_triton_op()) {
    // One kernel, for every device, which is its fake too; custom_op's tags (pt2_compliant_tag) alone.
    p.line(fmt::format("# {} through triton_op, as its project defined it (`define: triton_op`).", qualified_name(lib, op)));
    p.line(fmt::format("_custom_op = _opgen.triton_op({}, {}, mutates_args=({}{}), schema={})",
                       python_string_literal(qualified_name(lib, op)),
                       python_kernel_function(op, first.dispatch_key.value), fmt::join(mutated, ", "),
                       mutated.size() == 1 ? "," : "", python_string_literal(schema.substr(schema.find('(')))));
    return;
  }
  p.line(fmt::format("# {} through custom_op, as its project defined it (`define: custom_op`).", qualified_name(lib, op)));
  p.line(fmt::format("_custom_op = torch.library.custom_op({}, {}, mutates_args=({}{}), device_types={}, schema={}{})",
                     python_string_literal(qualified_name(lib, op)),
                     python_kernel_function(op, first.dispatch_key.value), fmt::join(mutated, ", "),
                     mutated.size() == 1 ? "," : "", device_type(first.dispatch_key.value),
                     python_string_literal(schema.substr(schema.find('('))),
                     tags.empty() ? "" : fmt::format(", tags=({}{})", fmt::join(tags, ", "), tags.size() == 1 ? "," : "")));
  for (size_t i = 1; i < op.python_kernels.size(); ++i)
    p.line(fmt::format("_custom_op.register_kernel({}, {})", device_type(op.python_kernels[i].dispatch_key.value),
                       python_kernel_function(op, op.python_kernels[i].dispatch_key.value)));
}

// Ops whose kernels are all Python are defined here (nothing of them is
// C++), as are the schema-alone ops of a library without C++ kernels, ops
// that carry objects to C++ kernels (around their flat
// C++ op) and stable-ABI ops with a tag no stable release carries (their C++
// registers the kernels); every Python kernel is registered for its dispatch key. Each
// kernel is imported when first called, so its module may import this package.
void emit_python_kernels(Printer& p, const model::Library& lib) {
  const bool any = std::any_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) {
    return !op.python_kernels.empty() || op.defined_in_python() || op.wraps_flat_op() ||
           model::defined_from_python_for_tags(op);
  });
  if (!any) return;
  p.line();
  p.line();
  p.line("# Python kernels (the specs' `kernels: {KEY: {python: ...}}`), and the ops defined here.");
  p.line(fmt::format("_PYTHON_LIBRARY = torch.library.Library(\"{}\", \"FRAGMENT\")", lib.ns));
  for (const auto& op : lib.ops) {
    if (op.defined_by_custom_op()) continue;  // with its kernels, below
    if (!op.defined_in_python() && !op.wraps_flat_op() && !model::defined_from_python_for_tags(op)) continue;
    std::vector<std::string> tags;
    for (const auto& tag : op.tags) tags.push_back("torch.Tag." + tag.value);
    p.line(fmt::format("_PYTHON_LIBRARY.define({}{})", python_string_literal(def_schema(op)),
                       tags.empty() ? "" : fmt::format(", tags=({}{})", fmt::join(tags, ", "), tags.size() == 1 ? "," : "")));
  }
  for (const auto& op : lib.ops) {
    for (const auto& kernel : op.python_kernels) {
      const std::string& target = kernel.function.value;
      const std::string name = python_kernel_function(op, kernel.dispatch_key.value);
      p.line();
      p.line();
      // The spec's checks run first, as a C++ kernel's wrapper runs them.
      p.line(fmt::format("def {}({}):", name, python_params(op.registered_schema())));
      {
        auto indent = p.indent(4);
        for (const auto& line : carried_type_checks(lib, op)) p.line(line);
        for (const auto& line : carried_unpack_lines(lib, op)) p.line(line);
        // A kernel that redispatches (Autograd, Autocast...) leaves the checks to the one it reaches.
        if (model::computes_results(model::find_dispatch_key(kernel.dispatch_key.value)->kind))
          for (const auto& check : python_checks(lib, op))
            for (const auto& line : python_check_lines(check)) p.line(line);
        p.line(fmt::format("return _opgen.python_kernel({}, {})({})", python_string_literal(target),
                           python_string_literal(qualified_name(lib, op)), flat_call_args(op)));
      }
      if (op.defined_by_custom_op()) continue;
      p.line();
      p.line();
      p.line(fmt::format("_PYTHON_LIBRARY.impl({}, {}, \"{}\")", python_string_literal(op.op_name()), name,
                         kernel.dispatch_key.value));
    }
    if (op.defined_by_custom_op()) emit_custom_op_definition(p, lib, op);
    if (op.wraps_flat_op()) emit_flat_op_wrapper(p, lib, op);
  }
}

// Host objects: the module's table of each class's fields and how Python
// reads them, and the helper a binding flattens an object with.
void emit_host_classes(Printer& p, const model::Library& lib) {
  std::vector<std::string> used;
  for (const auto& op : lib.ops)
    for (const auto& host : op.host_args)
      if ((!host.carry || op.wraps_flat_op()) && std::find(used.begin(), used.end(), host.cls) == used.end())
        used.push_back(host.cls);
  if (used.empty()) return;
  std::sort(used.begin(), used.end());
  p.line();
  p.line();
  p.line(fmt::format("# Host objects ({}): each class's Python class, its fields and how they are read, in the", lib.types_path.empty() ? "built in" : lib.types_path));
  p.line("# order the registered ops take them.");
  p.line("_HOST_CLASSES = {");
  for (const auto& name : used) {
    const model::HostClass& cls = *lib.host_class(name);
    std::vector<std::string> fields, reads;
    for (const auto& f : cls.fields) {
      fields.push_back(f.name.value);
      reads.push_back("obj" + f.read);
    }
    p.line(fmt::format("    {}: ({}, {}, lambda obj: ({}{})),", python_string_literal(name),
                       python_string_literal(cls.python_class.value), python_string_literal(fmt::format("{}", fmt::join(fields, ", "))),
                       fmt::join(reads, ", "), reads.size() == 1 ? "," : ""));
  }
  p.line("}");
}

// The lines that open a binding of an op taking host objects: each object
// becomes the locals named as the flat schema's arguments. A carried object
// is passed on whole; with `unpack_carried`, the fields the op's rules read
// become locals too (carried_unpack_lines).
std::vector<std::string> host_flatten_lines(const model::Library& lib, const model::OpSpec& op, bool unpack_carried) {
  // A carried object's class first: under torch.compile the binding is what
  // Dynamo traces, and another class's object (a lookalike with the fields
  // too) failed there naming neither the argument nor the class.
  std::vector<std::string> lines = carried_type_checks(lib, op);
  if (unpack_carried)
    for (auto& line : carried_unpack_lines(lib, op)) lines.push_back(std::move(line));
  for (const auto& host : op.host_args) {
    if (host.carry) continue;
    for (auto& line : host_field_lines(lib, op, host)) lines.push_back(std::move(line));
  }
  return lines;
}

// The registered (flat) op's arguments, passed from locals of the same names.
std::string flat_call_args(const model::OpSpec& op) {
  std::vector<std::string> passed;
  for (const auto& a : op.registered_schema().arguments) passed.push_back(a.kwarg_only ? a.name + "=" + a.name : a.name);
  return fmt::format("{}", fmt::join(passed, ", "));
}

// Tensor-subclass results: their metadata (`result_meta`) as a function of
// the registered op's arguments, which the binding calls and autograd's
// setup_context too (a backward may take a result's metadata).
void emit_result_meta(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  model::ExprEnv env;
  env.schema = &op.schema;
  p.line(fmt::format("def {}({}) -> tuple:", result_meta_function(op), python_params(op.registered_schema())));
  auto indent = p.indent(4);
  for (const auto& line : carried_unpack_lines(lib, op)) p.line(line);
  p.line(fmt::format("\"\"\"The metadata of {}'s tensor-subclass results, by field, from its arguments.\"\"\"",
                     qualified_name(lib, op)));
  std::vector<std::string> dicts;
  for (const auto& result : op.subclass_results) {
    const model::HostClass& cls = *lib.host_class(result.cls);
    std::vector<std::string> items;
    for (size_t i = 0; i < result.meta.size(); ++i)
      items.push_back(fmt::format("{}: {}", python_string_literal(cls.meta()[i].name.value),
                                  model::render_python(*result.meta[i].expr, env, "")));
    dicts.push_back(fmt::format("{{{}}}", fmt::join(items, ", ")));
  }
  p.line(fmt::format("return ({}{})", fmt::join(dicts, ", "), dicts.size() == 1 ? "," : ""));
}

// The lines that call the registered op from locals of its arguments' names
// and return what the spec declares: each tensor-subclass result rebuilt
// from its inner tensors (the class's `build`, or its __tensor_unflatten__
// with the metadata as context and the first inner tensor's size and
// strides). The classes are imported at the call: their module may import
// the package.
std::vector<std::string> flat_call_lines(const model::Library& lib, const model::OpSpec& op) {
  const std::string call = fmt::format("{}({})", python_op(lib, op), flat_call_args(op));
  if (op.subclass_results.empty()) return {"return " + call};
  std::vector<std::string> lines = {"opgen_flat = " + call,
                                    fmt::format("opgen_meta = {}({})", result_meta_function(op), flat_call_args(op))};
  const size_t flat_count = op.schema.returns.size();
  auto flat = [&](size_t i) { return flat_count == 1 ? std::string("opgen_flat") : fmt::format("opgen_flat[{}]", i); };
  std::set<std::string> imported;
  for (const auto& result : op.subclass_results) {
    const model::HostClass& cls = *lib.host_class(result.cls);
    if (!imported.insert(cls.name.value).second) continue;
    const std::string& target = cls.build ? cls.build->value : cls.python_class.value;
    const size_t split = cls.build ? target.find(':') : target.rfind('.');
    lines.push_back(fmt::format("from {} import {} as opgen_{}", target.substr(0, split), target.substr(split + 1),
                                cls.name.value));
  }
  std::vector<std::string> values;
  size_t next_flat = 0;
  for (size_t i = 0; i < op.declared_schema->returns.size(); ++i) {
    auto result = std::find_if(op.subclass_results.begin(), op.subclass_results.end(),
                               [&](const model::SubclassResult& r) { return r.declared_index == i; });
    if (result == op.subclass_results.end()) {
      values.push_back(flat(next_flat++));
      continue;
    }
    const model::HostClass& cls = *lib.host_class(result->cls);
    const size_t meta_index = static_cast<size_t>(result - op.subclass_results.begin());
    std::vector<std::string> inner;
    for (const auto& field : cls.inner())
      inner.push_back(fmt::format("{}{}{}", cls.build ? field.name.value : python_string_literal(field.name.value),
                                  cls.build ? "=" : ": ", flat(next_flat++)));
    const std::string first = flat(result->first_flat);
    if (cls.build)
      values.push_back(fmt::format("opgen_{}({}, **opgen_meta[{}])", cls.name.value, fmt::join(inner, ", "), meta_index));
    else
      values.push_back(fmt::format("opgen_{}.__tensor_unflatten__({{{}}}, opgen_meta[{}], {}.shape, {}.stride())",
                                   cls.name.value, fmt::join(inner, ", "), meta_index, first, first));
  }
  lines.push_back(values.size() == 1 ? "return " + values[0] : fmt::format("return ({})", fmt::join(values, ", ")));
  return lines;
}

// The binding of an op taking host objects or returning tensor subclasses
// (without `compile:`): flattens the objects, calls the registered op and
// rebuilds the subclass results.
void emit_host_binding(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  p.line(fmt::format("def {}({}):", op_identifier(op), python_params(*op.declared_schema)));
  auto indent = p.indent(4);
  for (const auto& line : host_flatten_lines(lib, op, false)) p.line(line);
  for (const auto& line : flat_call_lines(lib, op)) p.line(line);
}

// `compile:` (docs/spec.md): the public <op>_compile_unsupported_reason and
// a shim that, while torch.compile traces, routes a call it cannot take to
// an island outside the graph (torch.compiler.disable with the reason, so a
// fullgraph=True error names it) that warns (eager) or raises (error), or to
// a traceable replacement (python). Outside tracing it calls the op.
// Locals start with opgen_, which no argument may (the checker's rule).
void emit_compile(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  const model::CompilePolicy& policy = *op.compile;
  // The public functions take the op's arguments as the spec declares them;
  // host objects are flattened first, into the registered op's arguments.
  const model::FunctionSchema& declared = op.declared_schema ? *op.declared_schema : op.schema;
  const std::string declared_params = python_params(declared);
  const std::string call = flat_call_args(op);
  std::vector<std::string> declared_passed;
  for (const auto& a : declared.arguments) declared_passed.push_back(a.kwarg_only ? a.name + "=" + a.name : a.name);
  const std::string declared_call = fmt::format("{}", fmt::join(declared_passed, ", "));
  const std::vector<std::string> flatten = host_flatten_lines(lib, op, false);
  const std::string qualified = qualified_name(lib, op);
  model::ExprEnv env;
  env.schema = &op.schema;
  p.line(fmt::format("def {}({}) -> str | None:", compile_reason_function(op), declared_params));
  {
    auto indent = p.indent(4);
    p.line(fmt::format("\"\"\"Why torch.compile cannot take this call of {} (None: it can).\"\"\"", qualified));
    for (const auto& line : host_flatten_lines(lib, op, true)) p.line(line);
    for (const auto& condition : policy.unsupported) {
      p.line(fmt::format("if {}:", model::render_python(*condition.when.expr, env, "")));
      p.line(fmt::format("    return {}", python_string_literal(condition.reason.value)));
    }
    p.line("return None");
  }
  p.line();
  p.line();
  std::string route;
  if (op.compile->fallback_python) {
    p.line(fmt::format("{} = _opgen.import_handwritten({}, {})  # traceable: what torch.compile runs instead",
                       compile_replacement(op), python_string_literal(op.compile->fallback_python->value),
                       python_string_literal(fmt::format("{}'s compile fallback ({}: compile: fallback: {{python: ...}})",
                                                         qualified, op.display_path))));
    route = fmt::format("{}({})", compile_replacement(op), declared_call);
  } else {
    p.line(fmt::format("def {}(opgen_reason, {}):", compile_fallback_function(op), declared_params));
    {
      auto indent = p.indent(4);
      if (policy.fallback.value == "error") {
        p.line(fmt::format("raise RuntimeError(f\"{} cannot be compiled: {{opgen_reason}}\")", qualified));
      } else {
        p.line(fmt::format("warnings.warn(f\"{}: {{opgen_reason}}: torch.compile runs this call eagerly, outside the "
                           "graph\", stacklevel=3)", qualified));
        for (const auto& line : flatten) p.line(line);
        for (const auto& line : flat_call_lines(lib, op)) p.line(line);
      }
    }
    p.line();
    p.line();
    // One island per reason: torch.compiler.disable takes its reason once.
    std::vector<std::string> reasons;
    for (const auto& condition : policy.unsupported)
      if (std::find(reasons.begin(), reasons.end(), condition.reason.value) == reasons.end())
        reasons.push_back(condition.reason.value);
    p.line(fmt::format("{} = {{", compile_islands(op)));
    for (const auto& reason : reasons)
      p.line(fmt::format("    {}: torch.compiler.disable({}, reason={}),", python_string_literal(reason),
                         compile_fallback_function(op), python_string_literal(qualified + ": " + reason)));
    p.line("}");
    route = fmt::format("{}[opgen_reason](opgen_reason, {})", compile_islands(op), declared_call);
  }
  p.line();
  p.line();
  p.line(fmt::format("def {}({}):", op_identifier(op), declared_params));
  auto indent = p.indent(4);
  p.line("if torch.compiler.is_compiling():");
  p.line(fmt::format("    opgen_reason = {}({})", compile_reason_function(op), declared_call));
  p.line("    if opgen_reason is not None:");
  p.line(fmt::format("        return {}", route));
  for (const auto& line : flatten) p.line(line);
  for (const auto& line : flat_call_lines(lib, op)) p.line(line);
}

}  // namespace

std::string python_module(const model::Library& lib) {
  Printer p;
  p.emit(generated_header("#", lib));
  const std::string library_file = "lib" + lib.library_name + ".so";
  // A library whose kernels are all Python has nothing to load.
  const bool loads = std::any_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) { return !op.defined_in_python(); });
  const bool schemas_here =
      std::any_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) { return op.schema_defined_by_package; });
  p.emit(kPrologue, {{"ns", lib.ns},
                     {"library", loads          ? library_file
                                 : schemas_here ? library_file + " where a build made it (the project's own kernels)"
                                                : "nothing: every kernel is Python, and it defines the ops"}});
  // An eager compile fallback warns (emit_compile).
  if (std::any_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) {
        return op.compile && !op.compile->fallback_python && op.compile->fallback.value != "error";
      })) {
    p.line("import warnings");
    p.line();
  }
  p.line("import torch");
  // Imported only where needed: it costs ~0.15 s (it imports triton).
  if (std::any_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) { return op.flops.has_value(); }))
    p.line("import torch.utils.flop_counter");
  p.line();
  p.line("from . import _opgen_runtime as _opgen");
  // A library whose ops the package defines itself, some of them the schema
  // alone: a build that compiled a project's own kernels into the library
  // registers them (against these defs, which may come after); without one
  // there is nothing to load.
  if (loads || schemas_here) {
    p.line();
    p.line(fmt::format("_opgen.load_library(__file__, {}{})", python_string_literal(library_file),
                       loads ? "" : ", optional=True"));
  }
  p.line();
  p.line(python_all_assignment(lib));
  emit_carried_classes(p, lib);
  emit_python_kernels(p, lib);
  emit_symm_mem(p, lib);
  emit_cudagraph_partitions(p, lib);
  emit_host_classes(p, lib);
  for (const auto& op : lib.ops) {
    p.line();
    p.line();
    p.line(fmt::format("# {} ({})", qualified_name(lib, op), op.display_path));
    p.line();
    if (op.fake_decomposes) {
      p.line("# No fake: a CompositeImplicitAutograd kernel registered outside the spec decomposes the op");
      p.line("# (fake: {decomposes: ...}); it runs on fake tensors too.");
      p.line(fmt::format("_opgen.require_kernel({}, \"CompositeImplicitAutograd\", {})",
                         python_string_literal(qualified_name(lib, op)),
                         python_string_literal(fmt::format("{}: fake: {{decomposes: {}}}", op.display_path,
                                                           op.fake_decomposes->value))));
    } else if (op.defined_by_triton_op() && op.fake.empty() && !op.fake_python) {
      p.line("# No fake: triton_op registers its kernel as its fake (define: triton_op).");
    } else if (op.decomposes()) {
      // PyTorch refuses a fake beside a CompositeImplicitAutograd kernel: fake tensors run that kernel.
      p.line("# No fake: the op decomposes (its CompositeImplicitAutograd kernel runs on fake tensors too).");
    } else if (op.fake_meta && !op.wraps_flat_op()) {
      p.line("# No fake: a Meta kernel registered outside the spec is its fake (fake: {meta: ...}).");
      p.line(fmt::format("_opgen.require_meta_kernel({}, {})", python_string_literal(qualified_name(lib, op)),
                         python_string_literal(fmt::format("{}: fake: {{meta: {}}}", op.display_path,
                                                           op.fake_meta->value))));
    } else if (op.has_meta_kernel() && !op.wraps_flat_op()) {
      p.line("# No fake: its Meta kernel is its fake (fake tensors and torch.compile run it).");
    } else {
      emit_fake(p, lib, op);
      if (op.wraps_flat_op() && !op.has_meta_kernel()) {  // a Meta kernel of the flat op is its fake
        p.line();
        p.line();
        emit_fake(p, lib, op, /*flat=*/true);
      }
    }
    if (op.autograd) {
      p.line();
      p.line();
      emit_autograd(p, lib, op);
    }
    if (!op.autocast.empty()) {
      p.line();
      emit_autocast(p, lib, op);
    }
    if (op.flops) {
      p.line();
      p.line();
      emit_flops(p, lib, op);
    }
    if (!op.subclass_results.empty()) {
      p.line();
      p.line();
      emit_result_meta(p, lib, op);
    }
    p.line();
    p.line();
    if (op.compile)
      emit_compile(p, lib, op);
    else if (op.declared_schema)
      emit_host_binding(p, lib, op);
    else
      p.line(fmt::format("{} = {}", op_identifier(op), python_op(lib, op)));
  }
  return p.str();
}

}  // namespace opgen::emit
