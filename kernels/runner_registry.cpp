// Kernels of opgen::runner_create and opgen::runner_destroy (unstable ABI,
// CompositeExplicitAutograd: they take no tensors, so they run for every
// backend). See common/runner_registry.h.

#include "opgen/kernels/runner_create.h"
#include "opgen/kernels/runner_destroy.h"

#include "common/runner_registry.h"

#include <c10/util/Exception.h>

#include <cmath>
#include <cstdint>

int64_t opgen::kernels::runner_create_compositeexplicitautograd(double scale, double shift) {
  TORCH_CHECK(std::isfinite(scale) && std::isfinite(shift), "opgen::runner_create: 'scale' and 'shift' must be finite, got ",
              scale, " and ", shift);
  return runners::Registry::instance().add({scale, shift});
}

void opgen::kernels::runner_destroy_compositeexplicitautograd(int64_t runner) {
  TORCH_CHECK(runners::Registry::instance().remove(runner), "opgen::runner_destroy: 'runner' ", runner,
              " is not a live runner id");
}
