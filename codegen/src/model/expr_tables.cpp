// The rule-expression language's tables and name resolution: the lookups
// into the tables of expr_internal.h (each of which has a section in
// docs/fake-rules.md), the name resolution the checker, the renderers and
// referenced_names share, and the public functions of model/expr.h that read
// those tables (to_string, value_kind_of, ExprEnv).
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input.
#include "model/expr.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/expr_internal.h"
#include "model/types.h"

namespace opgen::model::detail {

// ---------------------------------------------------------------------------
// Tables: lookups (the tables are in expr_internal.h)
// ---------------------------------------------------------------------------

const MemoryFormatInfo* find_memory_format(std::string_view name) {
  for (const MemoryFormatInfo& info : kMemoryFormats)
    if (info.name == name) return &info;
  return nullptr;
}

const TensorMember* find_member(std::string_view name) {
  for (const TensorMember& m : kTensorMembers)
    if (m.name == name) return &m;
  return nullptr;
}

const BinaryOp* find_binary_op(std::string_view text) {
  for (const BinaryOp& op : kBinaryOps)
    if (op.text == text) return &op;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Name resolution, shared by the checker, the renderers and referenced_names
// ---------------------------------------------------------------------------

Resolved resolve(const ExprEnv& env, const std::string& name) {
  using What = Resolved::What;
  if (auto it = env.lets.find(name); it != env.lets.end()) return {What::Let, it->second};
  if (env.schema) {
    for (const Argument& arg : env.schema->arguments) {
      if (arg.name != name) continue;
      return {What::Argument, arg.type ? value_kind_of(*arg.type) : std::nullopt, &arg};
    }
  }
  if (const DTypeInfo* dtype = find_dtype(name)) return {What::DType, ValueKind::DType, nullptr, dtype};
  if (const MemoryFormatInfo* format = find_memory_format(name))
    return {What::MemoryFormat, ValueKind::MemoryFormat, nullptr, nullptr, format};
  return {};
}

void collect_narrowed(const Expr& cond, bool when, std::vector<std::string>& out) {
  if (cond.kind == Kind::Unary && cond.text == "not" && !cond.operands.empty()) {
    collect_narrowed(*cond.operands[0], !when, out);
    return;
  }
  if (cond.kind != Kind::Binary || cond.operands.size() != 2) return;
  const Expr& left = *cond.operands[0];
  const Expr& right = *cond.operands[1];
  if ((cond.text == "is" || cond.text == "is not") && left.kind == Kind::Name &&
      right.kind == Kind::NoneLiteral) {
    if ((cond.text == "is not") == when) out.push_back(left.text);
  } else if ((cond.text == "and" && when) || (cond.text == "or" && !when)) {
    collect_narrowed(left, when, out);
    collect_narrowed(right, when, out);
  }
}

}  // namespace opgen::model::detail

namespace opgen::model {

using namespace detail;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

std::string_view to_string(ValueKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "?";
}

std::optional<ValueKind> value_kind_of(const Type& type) {
  const std::string key = type_key(type);
  for (const auto& [schema_type, kind] : kSchemaKinds)
    if (schema_type == key) return kind;
  return std::nullopt;
}

const Argument* ExprEnv::default_tensor_arg() const {
  if (!schema) return nullptr;
  for (ValueKind wanted : {ValueKind::Tensor, ValueKind::TensorList})
    for (const Argument& arg : schema->arguments)
      if (arg.type && value_kind_of(*arg.type) == wanted) return &arg;
  return nullptr;
}

std::string ExprEnv::default_tensor() const {
  const Argument* arg = default_tensor_arg();
  if (!arg) return "";
  return value_kind_of(*arg->type) == ValueKind::TensorList ? arg->name + "[0]" : arg->name;
}

}  // namespace opgen::model
