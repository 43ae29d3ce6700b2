#include "check/autograd.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "check/arguments.h"
#include "model/types.h"
#include "support/diagnostic_codes.h"

namespace opgen::check {

using model::Argument;
using model::FunctionSchema;
using model::OpSpec;

std::set<std::string> names_bound_by_name(const model::Library& lib, const OpSpec& op) {
  const FunctionSchema& fwd = op.schema;
  std::set<std::string> bindable;
  if (fwd.returns.size() == 1) bindable.insert("grad");
  for (size_t i = 0; i < fwd.returns.size(); ++i) {
    bindable.insert(fmt::format("grad_{}", i));
    if (!fwd.returns[i].name.empty()) {
      bindable.insert("grad_" + fwd.returns[i].name);
      bindable.insert(fwd.returns[i].name);
    }
  }
  for (const Argument& a : fwd.arguments) bindable.insert(a.name);
  // A backward that takes a forward tensor-subclass result takes its metadata too.
  for (const auto& result : op.subclass_results)
    if (const model::HostClass* cls = lib.host_class(result.cls))
      for (const auto& field : cls->meta()) bindable.insert(model::flat_field_name(result.name, field.name.value));
  return bindable;
}

// The backward op's arguments are bound by name: `grad` (or `grad_<output>`)
// to the incoming gradient, a forward argument's name to that argument and a
// forward output's name to that output.
void check_autograd(const model::Library& lib, const OpSpec& op, Diagnostics& diags) {
  const model::Autograd& ag = *op.autograd;
  const FunctionSchema& fwd = op.schema;
  if (std::any_of(fwd.arguments.begin(), fwd.arguments.end(), [](auto& a) { return model::is_mutable(a); })) {
    diags.error(Code::AutogradOnMutatingOp, ag.loc, "an op that mutates its inputs cannot have autograd");
    return;  // whatever else is wrong with the binding follows from it
  }
  std::set<std::string> seen_grads;
  for (const auto& grad : ag.grads) {
    const Argument* arg = find_arg(fwd, grad.value);
    if (!seen_grads.insert(grad.value).second) {
      diags.error(Code::GradsRepeated, grad.loc, fmt::format("'grads' names '{}' twice", grad.value))
          .notes.push_back({"each forward input gets one gradient from the backward op"});
    } else if (!arg) {
      auto& d =
          diags.error(Code::UnknownArgument, grad.loc,
                      fmt::format("'grads' names '{}', which is not an argument of {}", grad.value, op.op_name()));
      if (auto guess = closest_match(grad.value, arg_names(fwd)); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    } else if (!is_tensor_or_optional(*arg->type)) {
      diags.error(Code::ArgumentNotATensor, grad.loc,
                  fmt::format("'grads' names '{}', which is a '{}': only Tensor arguments get gradients", grad.value,
                              model::type_key(*arg->type)));
    }
  }
  if (ag.backward.value.empty()) return;
  const OpSpec* bwd = lib.find(ag.backward.value);
  if (!bwd) {
    std::vector<std::string> names;
    for (const auto& other : lib.ops) names.push_back(other.op_name());
    auto& d = diags.error(Code::UnknownBackwardOp, ag.backward.loc,
                          fmt::format("backward op '{}' is not defined in this library", ag.backward.value));
    if (auto guess = closest_match(ag.backward.value, names); !guess.empty())
      d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    return;
  }
  if (bwd->schema.returns.size() != ag.grads.size()) {
    diags.error(Code::GradsCountMismatch, ag.backward.loc,
                fmt::format("backward op '{}' returns {} value{} but 'grads' names {} input{}", ag.backward.value,
                            bwd->schema.returns.size(), bwd->schema.returns.size() == 1 ? "" : "s", ag.grads.size(),
                            ag.grads.size() == 1 ? "" : "s"))
        .notes.push_back({"the backward op returns one gradient per name in 'grads', in that order"});
  }
  const std::set<std::string> bindable = names_bound_by_name(lib, op);
  // A backward taking an object whole gets it from the forward, which must
  // take it whole too (a forward taking fields cannot give the object).
  for (const auto& name : bwd->carry) {
    const auto host = std::find_if(bwd->host_args.begin(), bwd->host_args.end(),
                                   [&](const model::HostArgument& h) { return h.name == name.value; });
    if (host == bwd->host_args.end() || !host->carry) continue;  // reported with the backward op
    const auto given = std::find_if(op.host_args.begin(), op.host_args.end(),
                                    [&](const model::HostArgument& h) { return h.name == host->name; });
    if (given != op.host_args.end() && given->carry && given->cls == host->cls) continue;
    diags.error(Code::BadCarry, name.loc,
                fmt::format("backward op '{}' takes '{}' whole, but {} does not carry a {} named so", ag.backward.value,
                            name.value, op.op_name(), host->cls))
        .notes.push_back({fmt::format("carry it in {} too ('carry: [{}]' in {}), or take its fields in the backward",
                                      op.op_name(), name.value, op.display_path)});
  }
  // `bind:` names arguments of the backward op nothing else binds; their
  // rules are checked with the op's other rules (OpChecker).
  std::set<std::string> bound;
  for (const auto& binding : ag.bind) {
    const std::string& name = binding.name.value;
    if (bindable.count(name)) {
      diags.error(Code::BadAutogradBinding, binding.name.loc,
                  fmt::format("'bind' gives '{}', which is bound by name already (the forward's {} '{}')", name,
                              find_arg(fwd, name) ? "argument" : "output or its gradient", name))
          .notes.push_back({"remove it from 'bind': the backward op receives the forward's value"});
    } else if (!find_arg(bwd->schema, name)) {
      auto& d = diags.error(Code::UnknownArgument, binding.name.loc,
                            fmt::format("'bind' names '{}', which is not an argument of backward op '{}'", name,
                                        ag.backward.value));
      if (auto guess = closest_match(name, arg_names(bwd->schema)); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    }
    bound.insert(name);
  }
  for (const Argument& a : bwd->schema.arguments) {
    if (bindable.count(a.name) || bound.count(a.name)) continue;
    auto& d = diags.error(Code::UnbindableBackwardArgument, bwd->schema_at(a.column),
                          fmt::format("argument '{}' of backward op '{}' matches nothing of {}", a.name,
                                      ag.backward.value, op.op_name()));
    d.notes.push_back({fmt::format("backward arguments are bound by name to: {}",
                                   fmt::join(std::vector<std::string>(bindable.begin(), bindable.end()), ", "))});
    if (!a.type->is_tensor_like())
      d.notes.push_back({fmt::format("or computed from the forward's arguments: 'bind: {{{}: <rule>}}' under 'autograd'",
                                     a.name)});
  }
}


}  // namespace opgen::check
