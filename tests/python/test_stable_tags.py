"""Stable-ABI tags that load (issue 35, class 11): PyTorch's stable tag
conversion has no case for `out` or `inplace` (2.12-2.15), and a library
whose stable def carried one aborted the process that loaded it. An out=
op on the stable ABI at a target that takes tags (2.13) now loads, in a
fresh process, with the tags the conversion has and without `out`; the
build says why (W0401).

Needs the built tool and this machine's torch: run through CTest.
"""

import subprocess
import sys

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_opgen

pytestmark = requires_opgen

CHECK = """
import torch, stabletags
out_op = torch.ops.stabletags.scale.out
point = torch.ops.stabletags.shift.default
assert torch.Tag.out not in out_op.tags, out_op.tags
assert torch.Tag.pointwise in point.tags, point.tags
# A 2.13 target names the fakes' module on the stable ABI too.
assert torch._C._dispatch_pystub("stabletags::shift", "") == ("stabletags._ops", ""), torch._C._dispatch_pystub("stabletags::shift", "")
print("loaded", sorted(str(t) for t in point.tags))
"""


def test_a_stable_library_with_an_out_op_loads_in_a_fresh_process(tmp_path):
    project = tmp_path / "project"
    for op, schema, extra in [("scale.out", "(Tensor x, *, Tensor(a!) out) -> Tensor(a!)", []),
                              ("shift", "(Tensor x) -> Tensor", [])]:
        proc = run_opgen("new", f"stabletags::{op}", "--schema", schema, "--abi", "stable", "--dispatch", "CPU",
                         "--schemas-dir", project / "schemas", "--kernels-dir", project / "kernels", *extra)
        assert proc.returncode == 0, proc.stderr
    shift = project / "schemas" / "shift.yaml"
    shift.write_text(shift.read_text() + "tags: [pointwise]\nsamples: []\n")
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(stabletags CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
file(GLOB kernels kernels/*.cpp)
opgen_add_library(stabletags_ops NAMESPACE stabletags SCHEMAS schemas KERNELS ${{kernels}} TORCH_TARGET_VERSION 2.13)
""")
    output, env = build_with_opgen(project, tmp_path / "build")
    assert "warning[W0401]: the out= convention needs the 'out' tag, which no release of the stable ABI carries" \
        in output, output[-3000:]
    loaded = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, cwd=tmp_path,
                            timeout=300)
    # Before: SIGABRT ("Not yet supported Tag") while the library loaded.
    assert loaded.returncode == 0, (loaded.returncode, loaded.stdout[-2000:], loaded.stderr[-4000:])
    assert "loaded" in loaded.stdout
