// The value of a Python expression, as far as the module's source fixes it:
// what a custom_op default written with a module constant, a conditional or
// one of PyTorch's enums (`int(F.ScalingType.TensorWise)`, torchao's) is,
// as torch.library.infer_schema writes it into the schema. Nothing is run:
// a value that only running the module would give stays unknown, with why.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "import/tokens.h"

namespace opgen::import {

struct PythonValue {
  std::string text;    // as infer_schema writes a default: 3, 1e-06, True, None, "s", float32; "" when unknown
  std::string reason;  // why it is unknown, for a person
};

class ModuleValues {
 public:
  // Reads the module's imports and its top-level `NAME = ...` assignments.
  ModuleValues(const Tokens& tokens, const std::vector<std::string_view>& lines);

  // The value of the expression in `range`.
  PythonValue value(TokenRange range) const;
  // The value of the module's constant `name`.
  PythonValue constant(const std::string& name) const;

 private:
  struct Evaluated {
    std::string text;                     // the value as a default; "" when unknown
    std::optional<long long> enum_value;  // a member of one of PyTorch's enums (text: its dotted name)
    std::string reason;
  };
  static PythonValue as_default(const Evaluated& e);  // an enum member is none: custom_op writes no such default
  Evaluated evaluate(TokenRange range, int depth) const;
  Evaluated name(const std::string& dotted, int depth) const;      // an imported name or a constant
  Evaluated assigned(const std::string& dotted, int depth) const;  // a constant of the module

  const Tokens& tokens_;
  mutable std::map<std::string, Evaluated> constants_;  // each name's value, once evaluated
  mutable std::set<std::string> evaluating_;            // the names being evaluated: a cycle stops there
  std::map<std::string, std::string> imported_;  // local name -> the dotted name it binds
  // Assignments: name -> the range of each value assigned to it at the top
  // level ({0, 0} for one inside a block or augmented; more than one
  // assignment: which holds is the run's choice).
  std::map<std::string, std::vector<TokenRange>> assigned_;
};

}  // namespace opgen::import
