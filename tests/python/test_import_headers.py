"""The headers a spec's `kernels: include` names, as `opgen import` chooses
them (issue 34, item 4: "imported with their kernels as they are" builds).

A layout vLLM has: two headers named ops.h (csrc/ops.h for one build,
csrc/libtorch_stable/ops.h for another), a bindings file that includes the
second as "ops.h" from beside it, and kernels registered in .cu files whose
own includes (CUTLASS's, which declare functions of the same names in their
namespace) declare none of them, while the ops.h the bindings file includes
does. The generated bindings include each header from the library's include
path, not from beside the registering file: the header is spelled so that
path reaches the one import read, and a header that names the function but
not its namespace is not taken for its declaration. The library is built
with the CMake lines the report prints and its ops called. Needs the built
tool: run through CTest.
"""

import re

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_opgen
from test_import_kept_impls import run_check

pytestmark = requires_opgen

FILES = {
    # The other build's ops.h: first on the project's include path, and not the one the bindings mean.
    "csrc/ops.h": """#pragma once
int legacy_ops_count();
""",
    "csrc/stable/ops.h": """#pragma once
#include <ATen/core/Tensor.h>
at::Tensor scale(const at::Tensor& x, double a);
namespace mylib_kernels {
at::Tensor shift(const at::Tensor& x, double b);
}
""",
    "csrc/stable/binding.cpp": """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(mylib, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
  m.def("shift(Tensor x, float b) -> Tensor");
}
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("scale", &scale);
}
""",
    "csrc/stable/scale.cpp": """#include "ops.h"
#include <ATen/ops/mul.h>
at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a); }
""",
    # A dependency's header, on the include path: a shift of its own.
    "vendor/dep/util.h": """#pragma once
namespace dep {
inline int shift(int value, int by) { return value << by; }
}
""",
    # Registered where it is defined; declared in the ops.h the bindings file includes.
    "csrc/stable/extra/shift.cpp": """#include <ATen/ops/add.h>
#include <torch/library.h>
#include "dep/util.h"
namespace mylib_kernels {
at::Tensor shift(const at::Tensor& x, double b) { return at::add(x, b); }
}  // namespace mylib_kernels
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("shift", &mylib_kernels::shift);
}
""",
}

CHECK = """
import torch, mylib
x = torch.arange(6, dtype=torch.float32)
assert torch.equal(torch.ops.mylib.scale(x, 2.0), x * 2)
assert torch.equal(torch.ops.mylib.shift(x, 1.5), x + 1.5)
print("ok")
"""


def test_each_kernel_header_is_the_one_import_read_and_the_report_s_cmake_builds_it(tmp_path):
    project = tmp_path / "project"
    for name, text in FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    proc = run_opgen("import", "-I", "csrc", "-I", "vendor", "csrc/stable", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported as schemas/<op>.yaml, 2 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert "csrc/stable/extra/shift.cpp: its kernels are declared in ops.h (as csrc/stable/binding.cpp includes it)" \
        in proc.stdout, proc.stdout
    for op, kernel in (("scale", "scale"), ("shift", "mylib_kernels::shift")):
        text = (project / "schemas" / f"{op}.yaml").read_text()
        # From csrc, the project's own include path, first: "ops.h" would be csrc/ops.h.
        assert f'  include: "stable/ops.h"\n  CPU: "{kernel}"\n' in text, text
    # The project's include path as given, in its order, then the directory the headers were read in.
    assert "    target_include_directories(mylib_ops PRIVATE csrc vendor csrc/stable)\n" in proc.stdout, proc.stdout

    # The person's steps the report names: the fakes, the kernels' sources; then its CMake lines, as printed.
    (project / "python" / "_fakes.py").write_text(
        "def scale(x, a):\n    return x.new_empty(x.shape)\n\n\ndef shift(x, b):\n    return x.new_empty(x.shape)\n")
    (project / "csrc" / "stable" / "binding.cpp").unlink()
    shift = project / "csrc" / "stable" / "extra" / "shift.cpp"
    shift.write_text(shift.read_text()[:shift.read_text().index("TORCH_LIBRARY_IMPL")])
    cmake = [line.strip() for line in proc.stdout.splitlines()
             if re.match(r"\s+(opgen_add_library|target_include_directories)\(", line)]
    assert len(cmake) == 2, proc.stdout
    cmake[0] = cmake[0].replace("<the kernels' sources>", "csrc/stable/scale.cpp")
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(mylib CXX)\n"
        f"include({SOURCE_DIR}/cmake/Opgen.cmake)\n" + "\n".join(cmake) + "\n")
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check(CHECK, env, tmp_path)
