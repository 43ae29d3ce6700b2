"""Stable-ABI tags that load (issue 35, class 11): PyTorch's stable tag
conversion has no case for `out` or `inplace` (2.12-2.15), and a library
whose stable def carried one aborted the process that loaded it. A stable
op with such a tag (an out= op, tagged `out` by opgen) is defined by the
package, with every tag, and its C++ registers the kernels only; an op
with tags the conversion has keeps its C++ def. Built at a target that
takes tags (2.13), loaded in a fresh process: the out= op has its `out` tag,
computes, compiles with Inductor, and passes its generated suite (opcheck).

Needs the built tool and this machine's torch: run through CTest.
"""

from cli_helpers import SOURCE_DIR, build_with_opgen, check_built_library, requires_opgen, run_opgen

pytestmark = requires_opgen

SCALE_OUT = """\
doc: out = 2 * x, float32, contiguous.
abi: stable
dispatch: [CPU]
checks:
  x: {dtype: [float32], contiguous: true}
  out: {dtype: [float32], contiguous: true, same_device: x}
require:
  - out.numel() == x.numel()
samples:
  - args:
      x: {shape: [3, 4]}
      out: {shape: [3, 4]}
"""

SCALE_OUT_KERNEL = """\
#include "stabletags/kernels/scale.out.h"

void stabletags::kernels::scale_out_cpu(const torch::stable::Tensor& x, torch::stable::Tensor& out) {
  const float* in = static_cast<const float*>(x.data_ptr());
  float* result = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) result[i] = 2.0f * in[i];
}
"""

CHECK = """
import torch, stabletags
out_op = torch.ops.stabletags.scale.out
point = torch.ops.stabletags.shift.default
assert torch.Tag.out in out_op.tags, out_op.tags  # from the package's def
assert torch.Tag.pointwise in point.tags, point.tags  # from the C++ def
# A 2.13 target names the fakes' module on the stable ABI too.
assert torch._C._dispatch_pystub("stabletags::shift", "") == ("stabletags._ops", ""), torch._C._dispatch_pystub("stabletags::shift", "")
x = torch.randn(3, 4)
out = torch.empty(3, 4)
assert torch.ops.stabletags.scale.out(x, out=out) is out
torch.testing.assert_close(out, 2 * x)
compiled = torch.compile(lambda x: torch.ops.stabletags.scale.out(x, out=torch.empty_like(x)) + 1, fullgraph=True)
torch.testing.assert_close(compiled(x), 2 * x + 1)
print("ok")
"""


def test_a_stable_library_with_an_out_op_loads_and_compiles(tmp_path):
    project = tmp_path / "project"
    for op, schema in [("scale.out", "(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"), ("shift", "(Tensor x) -> Tensor")]:
        proc = run_opgen("new", f"stabletags::{op}", "--schema", schema, "--abi", "stable", "--dispatch", "CPU",
                         "--schemas-dir", project / "schemas", "--kernels-dir", project / "kernels")
        assert proc.returncode == 0, proc.stderr
    scale = project / "schemas" / "scale.out.yaml"
    scale.write_text(scale.read_text().split("doc:")[0] + SCALE_OUT)
    (project / "kernels" / "scale.out.cpp").write_text(SCALE_OUT_KERNEL)
    shift = project / "schemas" / "shift.yaml"
    shift.write_text(shift.read_text() + "tags: [pointwise]\nsamples: []\n")
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(stabletags CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
file(GLOB kernels kernels/*.cpp)
opgen_add_library(stabletags_ops NAMESPACE stabletags SCHEMAS schemas KERNELS ${{kernels}} TORCH_TARGET_VERSION 2.13)
""")
    build = tmp_path / "build"
    output, env = build_with_opgen(project, build)
    assert "W0401" not in output, output[-3000:]
    tu = next(build.rglob("csrc/scale.out.cpp")).read_text()
    assert "STABLE_TORCH_LIBRARY_FRAGMENT" not in tu and "STABLE_TORCH_LIBRARY_IMPL(stabletags, CPU, m)" in tu, tu
    ops = next(build.rglob("stabletags/_ops.py")).read_text()
    assert '.define("scale.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)", tags=(torch.Tag.out,))' in ops
    # Loaded in a fresh process. Before: SIGABRT ("Not yet supported Tag") while the library loaded.
    check_built_library(build, "stabletags", CHECK, env, tmp_path)
