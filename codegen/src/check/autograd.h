// `autograd:`: the forward op's gradients and the binding of its backward
// op's arguments, checked across the library.
#pragma once

#include <set>
#include <string>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// `op.autograd` is set. `grads` names distinct tensor arguments of the
// forward op; the backward op exists in `lib`, returns one gradient per name,
// and each of its arguments binds to something of the forward op.
void check_autograd(const model::Library& lib, const model::OpSpec& op, Diagnostics& diags);

// The backward arguments bound by name (`grad`, `grad_<i>`, the forward's
// arguments and outputs): what `autograd: bind:` may not give again.
std::set<std::string> names_bound_by_name(const model::Library& lib, const model::OpSpec& op);

}  // namespace opgen::check
