// `dispatch:` and `autocast:`, for one op: known keys PyTorch can reach, and
// kernels that redispatch beside the spec's own rules (E0803, E0804,
// E0813, E0823-E0827, W0803); autocast rules for devices the op has kernels for,
// casting to dtypes its checks allow (E0806-E0811).
#pragma once

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

void check_dispatch(const model::OpSpec& op, Diagnostics& diags);
// An op with a CompositeImplicitAutograd kernel takes no fake (E0827), and
// its generated suite calls it eagerly only (W0803).
void check_decomposing(model::OpSpec& op, Diagnostics& diags);
// `define:` (E0829), and an op custom_op cannot define (E0830).
void check_definition(const model::OpSpec& op, Diagnostics& diags);
void check_autocast(const model::OpSpec& op, Diagnostics& diags);

}  // namespace opgen::check
