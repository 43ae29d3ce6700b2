// Kernel variants chosen at run time. A new kernel lands behind a switch
// until a GPU run shows it correct and faster than the one it would replace
// (issue 36); then its default flips, and the switch stays as the way to time
// or fall back to the old kernel. Read on every call (a getenv beside a kernel
// launch), so a test or a benchmark can flip it in-process.
#pragma once

#include <cstdlib>
#include <cstring>

namespace opgen::kernels {

// The environment variable `name`: "0" selects the old kernel, any other
// non-empty value the variant; unset or empty, `default_on`.
inline bool kernel_switch(const char* name, bool default_on) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return default_on;
  }
  return std::strcmp(v, "0") != 0;
}

}  // namespace opgen::kernels
