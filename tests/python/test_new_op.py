"""Adding an op takes a YAML file and a kernel, and no other edit: copy the
project, add both (and a second op scaffolded by `opgen new`), build once,
call the ops from Python."""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

SOURCE_DIR = os.environ.get("OPGEN_SOURCE_DIR")
OPGEN_BIN = os.environ.get("OPGEN_BIN")

SPEC = """\
schema: "axpby(Tensor x, Tensor y, float a=1., float b=1.) -> Tensor"
doc: a * x + b * y, elementwise.
dispatch: [CPU]
checks:
  x: {dtype: [float32], contiguous: true}
  y: {same_dtype: x, same_device: x, contiguous: true}
require:
  - x.numel() == y.numel()
fake:
  - like(x)
"""

KERNEL = """\
#include "opgen/kernels/axpby.h"

#include <torch/csrc/stable/ops.h>

torch::stable::Tensor opgen::kernels::axpby_cpu(const torch::stable::Tensor& x, const torch::stable::Tensor& y,
                                                double a, double b) {
  torch::stable::Tensor out = torch::stable::empty_like(x);
  const float* px = x.const_data_ptr<float>();
  const float* py = y.const_data_ptr<float>();
  float* po = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) po[i] = static_cast<float>(a * px[i] + b * py[i]);
  return out;
}
"""

CALLER = textwrap.dedent(
    """
    import torch
    import opgen_ops

    x, y = torch.randn(5, 3), torch.randn(5, 3)
    torch.testing.assert_close(opgen_ops.axpby(x, y, 2.0, 3.0), 2 * x + 3 * y)
    torch.testing.assert_close(torch.ops.opgen.axpby(x, y), x + y)
    torch.library.opcheck(torch.ops.opgen.axpby.default, (x, y, 2.0, 0.5))
    compiled = torch.compile(lambda a, b: opgen_ops.axpby(a, b, 0.5, 0.25), fullgraph=True, dynamic=True,
                             backend="aot_eager")
    torch.testing.assert_close(compiled(x, y), 0.5 * x + 0.25 * y)
    try:
        opgen_ops.axpby(x, torch.randn(4))
    except RuntimeError as e:
        assert "opgen::axpby" in str(e) and "x.numel() == y.numel()" in str(e), e
    else:
        raise AssertionError("a size mismatch was not rejected")
    try:
        opgen_ops.scaffolded(x)
    except RuntimeError as e:
        assert "opgen::scaffolded: the CPU kernel is not implemented yet" in str(e), e
    else:
        raise AssertionError("a scaffolded kernel did not say it is not implemented")
    assert opgen_ops.scaffolded(torch.empty(0, device="meta")).shape == (0,)  # its fake works already
    print("axpby ok")
    """
)


@pytest.mark.skipif(not (SOURCE_DIR and OPGEN_BIN), reason="needs OPGEN_SOURCE_DIR and OPGEN_BIN (run through CTest)")
def test_new_op_in_a_copy_of_the_project(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(
        SOURCE_DIR,
        project,
        ignore=shutil.ignore_patterns("build*", ".git", "__pycache__"),
    )
    # The project with one op of its own (and its backward) beside the new ones: every op
    # of it is built in the project's own build, and twenty more TUs here would only add minutes.
    kept = {"rms_norm", "rms_norm_backward"}
    for path in [*(project / "schemas").glob("*.yaml"), *(project / "kernels").glob("*.c*")]:
        if path.stem not in kept:
            path.unlink()
    (project / "schemas" / "axpby.yaml").write_text(SPEC)
    (project / "kernels" / "axpby.cpp").write_text(KERNEL)
    # A second op from `opgen new`: it builds at once and says it is not implemented.
    subprocess.run(
        [OPGEN_BIN, "new", "opgen::scaffolded", "--schema", "(Tensor x, float alpha=1.) -> Tensor",
         "--schemas-dir", str(project / "schemas"), "--kernels-dir", str(project / "kernels")],
        check=True, capture_output=True, text=True,
    )

    build = project / "build"
    # The tool under test is the one already built; CUDA is left out to keep
    # the copy's build short (its CPU kernels still cover every op).
    subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         f"-DOPGEN_EXECUTABLE={OPGEN_BIN}", "-DOPGEN_ENABLE_CUDA=OFF", "-DOPGEN_BUILD_TESTS=OFF"],
        check=True, capture_output=True, text=True,
    )
    result = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "warning:" not in result.stdout, result.stdout

    env = dict(os.environ, PYTHONPATH=str(build / "python"))
    run = subprocess.run([sys.executable, "-c", CALLER], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "axpby ok" in run.stdout

    # Editing one spec recompiles exactly one TU, the unity shard that includes
    # the op's (opgen rewrites only changed files; Ninja's restat and the
    # compiler's dependency file skip the rest), then relinks.
    spec = project / "schemas" / "axpby.yaml"
    spec.write_text(spec.read_text().replace("x.numel() == y.numel()", "y.numel() == x.numel()"))
    result = subprocess.run(["cmake", "--build", str(build), "--", "-v"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:]
    compiled = [line for line in result.stdout.splitlines() if " -c " in line]
    assert len(compiled) == 1, "\n".join(compiled)
    shard = compiled[0].split(" -c ", 1)[1].split()[0]
    assert re.search(r"/csrc/opgen-(un)?stable-shard\d+\.cpp$", shard), compiled[0]
    assert '#include "axpby.cpp"' in (build / shard).read_text().splitlines(), compiled[0]  # `build / p` is p when p is absolute
    assert any("libopgen_ops.so" in line for line in result.stdout.splitlines())
