// `opgen import`: the headers a spec's `kernels: include` names. Of the
// quoted includes of the file that registers an op's kernels, those that
// import can read beside that file and that declare one of the op's kernel
// functions; headers that only serve the registration (kernel-builder's
// registration.h, which the build of an opgen library does not have) are
// left out. When no header it can read declares them, every include is kept:
// one it cannot find may be on the include path the build gives.
#pragma once

#include "import/registrations.h"
#include "import/source_scan.h"

namespace opgen::import {

// Rewrites each op's `includes`; adds a note per registering file that says
// which headers were kept and which directory the build must add.
void choose_kernel_headers(ImportResult& found, const Configuration* configuration);

}  // namespace opgen::import
