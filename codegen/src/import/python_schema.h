// The schema torch.library.custom_op infers from a Python function's type
// hints (torch/_library/infer_schema.py), read from the tokens of its `def`:
// the same types, the same aliases for mutated arguments (`Tensor(a3!)`, by
// parameter index), the same defaults.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "import/python_values.h"
#include "import/tokens.h"

namespace opgen::import {

struct InferredPythonSchema {
  std::string schema;   // "(Tensor x, SymInt n=2) -> Tensor"; "" when not inferred
  std::string problem;  // why not, for a person
};

// `def` is the index of the `def` token. `mutates`: the names custom_op's
// mutates_args lists; nullopt for "unknown" (every tensor argument).
// `values`: the module's, which defaults are read with.
InferredPythonSchema infer_python_schema(const Tokens& tokens, size_t def,
                                         const std::optional<std::vector<std::string>>& mutates,
                                         const ModuleValues& values);

}  // namespace opgen::import
