// Evaluates a checked rule on concrete values: the shapes of a sample's
// tensors and its argument values. The generated test suite compares what
// FlopCounterMode counts through the registered (Python) formula with the
// count computed here, so the two renderings of a `flops` rule are checked
// against each other rather than against themselves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/expr.h"

namespace opgen::model {

struct EvalTensor {
  std::vector<int64_t> shape;  // contiguous: strides follow from it
  std::string dtype;           // a dtype name (model/types.h)
};
struct EvalDType {
  std::string name;
};
struct EvalShape {
  std::vector<int64_t> sizes;
};
struct EvalNone {};

// A value as the rule language sees it (ValueKind): None, Int, Bool, Float,
// String, Shape, DType, Tensor, Tensor[].
using EvalValue = std::variant<EvalNone, int64_t, bool, double, std::string, EvalShape, EvalDType, EvalTensor,
                               std::vector<EvalTensor>>;

// The value of each argument the expression may read, by name.
using EvalBindings = std::map<std::string, EvalValue>;

// The value of an expression that passed check_expr, or nullopt where it
// has none here: int64 overflow, division by zero, an index out of range, a
// name without a binding, or what only exists at run time (dynamic(),
// memory formats, output constructors). Python's semantics: floor division
// and modulo, negative indexes, short-circuit `and`/`or`.
std::optional<EvalValue> evaluate(const Expr& expr, const EvalBindings& bindings);

// evaluate() for an Int expression.
std::optional<int64_t> evaluate_int(const Expr& expr, const EvalBindings& bindings);

}  // namespace opgen::model
