// python/<pkg>/_opgen_runtime.py: the copy of opgen's Python runtime
// (python/opgen/runtime.py, embedded in the tool at build time) that a
// generated package carries, so that it needs nothing of opgen at run time.
#include "emit/common.h"
#include "emit/emit.h"
#include "opgen_runtime_py.inc"

namespace opgen::emit {

std::string runtime_module() {
  return generated_header("#", "opgen's runtime, python/opgen/runtime.py") + std::string(kOpgenRuntimePy);
}

}  // namespace opgen::emit
