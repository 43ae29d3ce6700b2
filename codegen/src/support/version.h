// The tool's version (CMake's project(opgen VERSION ...)): what `opgen
// --version` prints and what every @generated header and the stamp name.
#pragma once

#include <string_view>

namespace opgen {

std::string_view tool_version();

}  // namespace opgen
