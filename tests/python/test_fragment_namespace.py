"""A library that adds its ops to a namespace it shares (issue 34, item 1):
`opgen_add_library(... FRAGMENT)` / `--fragment`. FBGEMM's libraries all add
to `fbgemm` with TORCH_LIBRARY_FRAGMENT, and PyTorch lets any library add
ops to a namespace it defines itself. Without FRAGMENT opgen claims the
namespace with TORCH_LIBRARY, which fails to load beside another claim, so
a namespace PyTorch defines is refused (E0905, whose note names FRAGMENT).

Built here into `quantized`, which PyTorch itself defines: the library
loads beside PyTorch's own quantized ops, its op computes, and its
generated suite passes. Needs the built tool and this machine's torch: run
through CTest.
"""

import subprocess
import sys

from cli_helpers import SOURCE_DIR, build_with_opgen, check_built_library, requires_opgen, run_opgen

pytestmark = requires_opgen

SPEC = """\
abi: unstable
dispatch: [CPU]
fake: like(x)
samples:
  - args:
      x: {shape: [3, 5]}
      alpha: 2.5
"""

KERNEL = """\
#include "quantized/kernels/opgen_scale.h"

#include <ATen/ops/mul.h>

at::Tensor quantized::kernels::opgen_scale_cpu(const at::Tensor& x, double alpha) { return at::mul(x, alpha); }
"""

CHECK = """
import torch
try:
    torch.library.Library("quantized", "DEF")  # PyTorch defines it: a second claim is refused
except RuntimeError:
    pass
else:
    raise AssertionError("'quantized' is not defined by PyTorch here: the test proves nothing")
import quantized_extra
x = torch.randn(3, 5)
torch.testing.assert_close(quantized_extra.opgen_scale(x, 2.5), x * 2.5)
torch.testing.assert_close(torch.ops.quantized.opgen_scale(x, -1.0), -x)
assert torch.ops.quantized.linear_prepack.default is not None  # PyTorch's own ops there, untouched
print("ok")
"""


def test_a_library_adds_its_ops_to_a_namespace_pytorch_defines(tmp_path):
    project = tmp_path / "project"
    new = run_opgen("new", "quantized::opgen_scale", "--schema", "(Tensor x, float alpha) -> Tensor", "--abi",
                    "unstable", "--dispatch", "CPU", "--schemas-dir", project / "schemas", "--kernels-dir",
                    project / "kernels")
    assert new.returncode == 0, new.stderr
    spec = project / "schemas" / "opgen_scale.yaml"
    spec.write_text(spec.read_text().split("abi:")[0] + SPEC)
    (project / "kernels" / "opgen_scale.cpp").write_text(KERNEL)

    refused = run_opgen("check", "--namespace", "quantized", project / "schemas")
    assert refused.returncode == 1 and "error[E0905]" in refused.stderr and "--fragment" in refused.stderr, \
        refused.stderr
    assert run_opgen("check", "--namespace", "quantized", "--fragment", project / "schemas").returncode == 0

    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(fragment CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(quantized_extra_ops NAMESPACE quantized FRAGMENT PYTHON_PACKAGE quantized_extra
                  SCHEMAS schemas/opgen_scale.yaml KERNELS kernels/opgen_scale.cpp)
""")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    library_tu = next(build.rglob("quantized-library.cpp")).read_text()
    assert "TORCH_LIBRARY(" not in library_tu and "shared with other libraries" in library_tu
    check_built_library(build, "quantized_extra", CHECK, env, tmp_path)
