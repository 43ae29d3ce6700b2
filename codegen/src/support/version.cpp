#include "support/version.h"

namespace opgen {

// OPGEN_VERSION is defined for this file alone (codegen/CMakeLists.txt), so
// a version bump recompiles one TU.
std::string_view tool_version() { return OPGEN_VERSION; }

}  // namespace opgen
