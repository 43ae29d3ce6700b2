// Whether a `flops` formula is total and never negative on every input the
// op accepts. FlopCounterMode calls the formula after the op ran, so the
// formula may assume what the op's checks and `require:` rules guarantee,
// and nothing more: any size, numel, rank or list length may be 0 (an empty
// tensor or list), an int argument may be anything. Under those facts a
// division or modulo whose divisor can be 0 raises ZeroDivisionError, an
// index past what the rank or length guarantees raises IndexError, both
// inside the user's program, and a count whose lower bound is below 0 lies.
// An interval analysis over the checked expression proves or refutes each.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/expr.h"

namespace opgen::model {

// What the op's checks guarantee before the formula runs.
struct ShapeFacts {
  std::map<std::string, int64_t> min_rank;    // tensor argument -> at least this many dimensions
  // tensor argument -> exactly this many dimensions (`dim:` checks, `x.dim() == n`)
  std::map<std::string, int64_t> exact_rank;
  std::map<std::string, int64_t> min_length;  // Tensor[] / int[] argument -> at least this many elements
  std::map<std::string, int64_t> min_value;   // int argument -> at least this value
  using Table = std::map<std::string, int64_t> ShapeFacts::*;
  // Names of one table whose measures are equal (`a.dim() == b.dim()`).
  struct Same {
    Table table;
    std::string a, b;
  };
  std::vector<Same> same;

  // Adds what a `require:` relation that holds implies: `x.dim() == 3`,
  // `x.dim() >= 2`, `len(xs) > 0`, `k >= 1`, conjunctions, disjunctions
  // (what both sides imply), and `a.dim() == b.dim()`.
  void add_relation(const Expr& relation);
  // Raises each of a pair in `same` to the other's bound, to the fixpoint.
  void close();
};

struct OpSpec;

// What the op's `checks:` (exact ranks) and `require:` relations guarantee of
// every input it accepts: the facts every totality proof below starts from.
ShapeFacts accepted_shapes(const OpSpec& op);

// The problems of a checked Int `flops` expression under `facts`, each at
// its column: a divisor that can be 0, an index that can be out of range, a
// result that can be negative.
std::vector<ExprDiagnostic> check_total_count(const Expr& expr, const ExprEnv& env, ShapeFacts facts);

// The same proof of totality (divisors, indices; no sign) for another rule
// evaluated on every accepted input, as `code` problems that say `who`
// would raise: a `compile: unsupported` condition, which the package
// evaluates whenever torch.compile traces a call.
std::vector<ExprDiagnostic> check_cannot_raise(const Expr& expr, const ExprEnv& env, ShapeFacts facts,
                                               const std::string& who, Code code);

// What raises on every accepted input, for the rules the generated fake
// evaluates (`let`, `fake:`), which real fakes write freely over what the
// kernel checks: an index past a tensor's exact rank (`x.size(5)` where
// `dim: 2`), outside branches whose guards contradict what is known.
std::vector<ExprDiagnostic> check_always_raises(const Expr& expr, const ExprEnv& env, ShapeFacts facts,
                                                const std::string& who, Code code);

}  // namespace opgen::model
