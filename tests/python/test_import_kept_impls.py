"""Adoption in steps (issue 34, item 2): an op whose project registers impls
whose kernels the generated bindings cannot call (declared in the source
alone, internal linkage) is not blocked on them. `opgen import` writes its
spec (the def, the keys it binds, the other impls named in comments),
reports the impls the project keeps, and those impls, still compiled in the
project's build, register against the def the spec now owns. Impls for any
key PyTorch has (Autograd, Autocast...) are bound in the spec when their
kernels are declared in a header.

Here the project's AutocastCPU impl of mylib::scale (cast to float32, then
redispatch) is declared in no header and stays in its source file; the
library built from the imported spec and that file runs it under
torch.autocast. Needs the built tool: run through CTest.
"""

import json
import re
import subprocess
import sys

import pytest

from cli_helpers import (SOURCE_DIR, build_projects_own_library, build_with_opgen, requires_opgen, run_check,
                         run_opgen)

pytestmark = requires_opgen


def write_project(tmp_path, ops_h, binding, kernels):
    """A project's sources as its maintainers keep them: csrc/ops.h, csrc/binding.cpp, csrc/kernels.cpp."""
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    for name, text in (("ops.h", ops_h), ("binding.cpp", binding), ("kernels.cpp", kernels)):
        (project / "csrc" / name).write_text(text)
    return project


def write_cmake(project, kernels, schemas="schemas/scale.yaml"):
    """The project's build of the specs with its kernel sources, as the report's CMake lines say."""
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(mylib CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(mylib_ops NAMESPACE mylib SCHEMAS {schemas} KERNELS {kernels})
target_include_directories(mylib_ops PRIVATE csrc)
""")



def apply_report_deletions(report_text, tree, tmp_path):
    """What the report says to delete, deleted in `tree` as a person would (scripts/apply_deletions.py)."""
    report = tmp_path / "report.txt"
    report.write_text(report_text)
    applied = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "apply_deletions.py", report, tree],
                             capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr


def write_reported_cmake(project, name, lines):
    """The project's CMakeLists.txt: opgen's module and the CMake lines the report printed."""
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project({name} CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
{lines}
""")


def with_like_fake(text):
    """A spec's text with the fake the report asks for written as a rule, `like(x)`: the person's step."""
    return text.replace(text[text.index("fake:"):].split("\n")[0], "fake:\n  - like(x)")


OPS_H = """#pragma once
#include <ATen/core/Tensor.h>
at::Tensor scale(const at::Tensor& x, double a);
"""

BINDING = """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(mylib, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
}
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("scale", &scale);
}
TORCH_LIBRARY_IMPL(mylib, AutocastCPU, m) {
  m.impl("scale", &scale_autocast);
}
"""

# The project's kernels: the CPU one opgen binds, and the Autocast impl that stays its own.
KERNELS = """#include "ops.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/mul.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a); }

namespace {
at::Tensor scale_autocast(const at::Tensor& x, double a) {
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastCPU);
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("mylib::scale", "")
                             .typed<at::Tensor(const at::Tensor&, double)>();
  return op.call(x.to(at::kFloat), a);
}
}  // namespace

TORCH_LIBRARY_IMPL(mylib, AutocastCPU, m) {
  m.impl("scale", &scale_autocast);
}
"""

CHECK = """
import torch, mylib
x = torch.arange(6, dtype=torch.bfloat16)
assert torch.ops.mylib.scale(x, 2.0).dtype == torch.bfloat16
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = torch.ops.mylib.scale(x, 2.0)
assert y.dtype == torch.float32 and torch.equal(y, x.float() * 2), y
print("ok")
"""


def test_an_impl_for_a_key_opgen_does_not_register_stays_and_runs(tmp_path):
    project = write_project(tmp_path, OPS_H, BINDING, KERNELS)
    proc = run_opgen("import", "csrc/binding.cpp", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported as schemas/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert "keep impls in the project's build, registered against the spec's def" in proc.stdout
    assert "scale: AutocastCPU (csrc/binding.cpp:10; its kernel scale_autocast is declared in no header" in proc.stdout, \
        proc.stdout
    spec = project / "schemas" / "scale.yaml"
    text = spec.read_text()
    assert "# kept in the project's build: the impl for AutocastCPU (csrc/binding.cpp:10;" in text, text
    assert "dispatch: [CPU]" in text, text
    # The person's step the report asks for: the fake (here a rule instead of python/_fakes.py).
    spec.write_text(with_like_fake(text))
    check = run_opgen("check", "--namespace", "mylib", project / "schemas")
    assert check.returncode == 0, check.stderr
    write_cmake(project, "csrc/kernels.cpp")
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check(CHECK, env, tmp_path)


IMPLS = KERNELS + """
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("scale", &scale);
}
"""


def test_a_library_whose_every_op_is_the_schema_alone_loads_the_projects_impls(tmp_path):
    """Every op `dispatch: []`, the project's impls (CPU and AutocastCPU) compiled into the library: the package
    defines the schemas (no C++ kernel of opgen's) and still loads the library the build made, whose
    registrations then run."""
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "schemas").mkdir()
    (project / "csrc" / "ops.h").write_text(OPS_H)
    (project / "csrc" / "impls.cpp").write_text(IMPLS)
    (project / "schemas" / "scale.yaml").write_text(
        'schema: "scale(Tensor x, float a) -> Tensor"\ndispatch: []\nfake:\n  - like(x)\nsamples: []\n')
    write_cmake(project, "csrc/impls.cpp")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    ops = next(build.rglob("mylib/_ops.py")).read_text()
    assert '_PYTHON_LIBRARY.define("scale(Tensor x, float a) -> Tensor")' in ops and "load_library(__file__, \"libmylib_ops.so\", optional=True)" in ops
    run_check(CHECK, env, tmp_path)


# Impls for Autograd and Autocast keys whose kernels the bindings can call (declared in a header, external
# linkage): `opgen import` binds them in the spec, as it binds CPU and CUDA ones.
BOUND_OPS_H = """#pragma once
#include <ATen/core/Tensor.h>
at::Tensor scale(const at::Tensor& x, double a);
at::Tensor scale_autograd(const at::Tensor& x, double a);
at::Tensor scale_autocast(const at::Tensor& x, double a);
"""

BOUND_BINDING = """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(mylib, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
}
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("scale", &scale);
}
TORCH_LIBRARY_IMPL(mylib, AutogradCPU, m) {
  m.impl("scale", &scale_autograd);
}
TORCH_LIBRARY_IMPL(mylib, AutocastCPU, m) {
  m.impl("scale", TORCH_FN(scale_autocast));
}
"""

# The project's kernels: the gradient is the project's own (a C++ autograd::Function that redispatches
# below Autograd), and its backward scales by 10 * a, not a, so the test sees which gradient ran.
BOUND_KERNELS = """#include "ops.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/mul.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/autograd.h>

at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a); }

static at::Tensor call_scale(const at::Tensor& x, double a) {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("mylib::scale", "")
                             .typed<at::Tensor(const at::Tensor&, double)>();
  return op.call(x, a);
}

namespace {
struct Scale : torch::autograd::Function<Scale> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, double a) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["a"] = a;
    return call_scale(x, a);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    return {at::mul(grads[0], 10 * ctx->saved_data["a"].toDouble()), at::Tensor()};
  }
};
}  // namespace

at::Tensor scale_autograd(const at::Tensor& x, double a) { return Scale::apply(x, a); }

at::Tensor scale_autocast(const at::Tensor& x, double a) {
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastCPU);
  return call_scale(x.to(at::kFloat), a);
}
"""

BOUND_CHECK = """
import torch, mylib
x = torch.arange(6, dtype=torch.float32, requires_grad=True)
y = torch.ops.mylib.scale(x, 2.0)
y.sum().backward()
assert torch.equal(y, x.detach() * 2) and torch.equal(x.grad, torch.full((6,), 20.0)), (y, x.grad)
# The spec's check (float32 only) runs where the kernel computes, after autocast cast the input:
h = torch.arange(6, dtype=torch.bfloat16)
with torch.autocast("cpu", dtype=torch.bfloat16):
    z = torch.ops.mylib.scale(h, 2.0)
assert z.dtype == torch.float32 and torch.equal(z, h.float() * 2), z
try:
    torch.ops.mylib.scale(h, 2.0)
    raise AssertionError("the check let a bfloat16 input through")
except RuntimeError as e:
    assert "float32" in str(e), e
print("ok")
"""


def test_impls_for_autograd_and_autocast_keys_are_bound_in_the_spec(tmp_path):
    project = write_project(tmp_path, BOUND_OPS_H, BOUND_BINDING, BOUND_KERNELS)
    proc = run_opgen("import", "-I", "csrc", "csrc/binding.cpp", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported as schemas/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert "keep impls in the project's build" not in proc.stdout, proc.stdout
    spec = project / "schemas" / "scale.yaml"
    text = spec.read_text()
    assert "dispatch: [CPU, AutogradCPU, AutocastCPU]" in text, text
    assert "AutogradCPU: \"scale_autograd\"" in text and "AutocastCPU: \"scale_autocast\"" in text, text
    # The person's steps: the fake the report asks for, and a check of their own.
    text = with_like_fake(text)
    spec.write_text(text + "checks:\n  x: {dtype: [float32]}\n")
    check = run_opgen("check", "--namespace", "mylib", project / "schemas")
    assert check.returncode == 0, check.stderr
    write_cmake(project, "csrc/kernels.cpp")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    # The checks run in front of the CPU kernel, not of the two that redispatch.
    source = next(build.rglob("scale.cpp")).read_text()
    assert source.count("scale_check_inputs(x);") == 1, source
    run_check(BOUND_CHECK, env, tmp_path)


# Kernels registered with no key (`m.def(schema, fn)`, an `Undefined` block, as DeepSpeed registers
# end_backward) land at CompositeImplicitAutograd: the op decomposes, so autograd records what the kernel
# calls. touch takes no tensor, so its CPU impl is never reached; the project registers it all the same.
CATCH_ALL_OPS_H = """#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
at::Tensor scale(const at::Tensor& x, double a);
void touch(const c10::IValue& deps, int64_t id);
void touch_cpu(const c10::IValue& deps, int64_t id);
int64_t touched();
"""

CATCH_ALL_BINDING = """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(mylib, m) {
  m.def("scale(Tensor x, float a) -> Tensor", &scale);
  m.def("touch(Any deps, int id) -> ()");
  m.def("touched() -> int", &touched);
}
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("touch", &touch_cpu);
}
TORCH_LIBRARY_IMPL(mylib, Undefined, m) {
  m.impl("touch", &touch);
}
"""

CATCH_ALL_KERNELS = """#include "ops.h"
#include <ATen/ops/mul.h>
static int64_t last = 0;
at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a); }
void touch(const c10::IValue& deps, int64_t id) { last = id + (deps.isList() ? 100 * deps.toList().size() : 0); }
void touch_cpu(const c10::IValue&, int64_t) { last = -1; }
int64_t touched() { return last; }
"""

# What the person keeps of the binding file, as the report says: the impl no call reaches.
CATCH_ALL_KEPT = """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("touch", &touch_cpu);
}
"""

# Values, gradients, compiled results and the keys each op has kernels at: printed by each build alike.
CATCH_ALL_CHECK = """
import json, sys, torch
if len(sys.argv) > 1:
    torch.ops.load_library(sys.argv[1])
else:
    import mylib
x = torch.arange(6, dtype=torch.float32, requires_grad=True)
y = torch.ops.mylib.scale(x, 3.0)
y.sum().backward()
compiled = torch.compile(lambda t: torch.ops.mylib.scale(t, 3.0), fullgraph=True, backend="aot_eager")
torch.ops.mylib.touch([x, x], 7)
keys = {}
for op in ("scale", "touch", "touched"):
    dump = torch._C._dispatch_dump(f"mylib::{op}")
    keys[op] = sorted(line.split(":")[0] for line in dump.splitlines()[4:] if ": registered at" in line)
print(json.dumps({"y": y.tolist(), "grad": x.grad.tolist(), "compiled": compiled(x.detach()).tolist(),
                  "touched": torch.ops.mylib.touched(), "keys": keys}))
"""


def test_catch_all_kernels_are_imported_where_pytorch_registers_them(tmp_path):
    project = write_project(tmp_path, CATCH_ALL_OPS_H, CATCH_ALL_BINDING, CATCH_ALL_KERNELS)
    own = build_projects_own_library(project, tmp_path / "own", "mylib_own",
                                     "add_library(mylib_own SHARED csrc/binding.cpp csrc/kernels.cpp)",
                                     include_dirs="csrc")
    proc = run_opgen("import", "csrc/binding.cpp", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 ops imported as schemas/<op>.yaml, 3 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert "need their fake written" not in proc.stdout, proc.stdout  # ops that decompose take none
    assert ("touch: CPU (csrc/binding.cpp:9; no call reaches it: the op takes no tensor, and PyTorch picks a CPU "
            "kernel by the device of a tensor argument)") in proc.stdout, proc.stdout
    assert "csrc/binding.cpp:8-10: in the block TORCH_LIBRARY_IMPL(mylib,CPU,m)" not in proc.stdout, proc.stdout
    for op in ("scale", "touch", "touched"):
        assert f'CompositeImplicitAutograd: "{op}"' in (project / "schemas" / f"{op}.yaml").read_text()
    check = run_opgen("check", "--namespace", "mylib", project / "schemas")
    assert check.returncode == 0 and "warning[W0803]" in check.stderr, check.stderr
    (project / "csrc" / "binding.cpp").write_text(CATCH_ALL_KEPT)
    write_cmake(project, "csrc/binding.cpp csrc/kernels.cpp", schemas="schemas")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    runs = []
    for argv in ([str(next(own.glob("libmylib_own.so")))], []):
        run = subprocess.run([sys.executable, "-c", CATCH_ALL_CHECK, *argv], env=env, capture_output=True, text=True,
                             cwd=tmp_path, timeout=300)
        assert run.returncode == 0, run.stderr[-4000:]
        runs.append(json.loads(run.stdout.splitlines()[-1]))
    assert runs[0] == runs[1], runs
    assert runs[0]["grad"] == [3.0] * 6 and runs[0]["touched"] == 207, runs[0]
    assert runs[0]["keys"]["touch"] == ["CPU", "CompositeImplicitAutograd[alias]"], runs[0]


def test_a_kernel_of_the_other_abi_than_its_ops_def_stays_in_the_projects_build(tmp_path):
    """torchao defines ops in Python (the unstable ABI) and registers their kernels from a stable-ABI
    extension (STABLE_TORCH_LIBRARY_IMPL, torch::stable::Tensor). A spec binds kernels of its own ABI:
    such an impl stays in the project's build, where it registers against the spec's def."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <torch/csrc/stable/tensor.h>\n"
                                             "torch::stable::Tensor quantize(const torch::stable::Tensor& x);\n")
    (tmp_path / "csrc" / "ext.cpp").write_text("""#include <torch/library.h>
#include <torch/csrc/stable/library.h>
#include "ops.h"
TORCH_LIBRARY(mixed, m) {
  m.def("quantize(Tensor x) -> Tensor");
}
STABLE_TORCH_LIBRARY_IMPL(mixed, CUDA, m) {
  m.impl("quantize", TORCH_BOX(&quantize));
}
""")
    proc = run_opgen("import", "csrc/ext.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported as schemas/<op>.yaml, 0 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert ("quantize: CUDA (csrc/ext.cpp:8; a stable-ABI kernel of an op the sources define on the unstable ABI "
            "(csrc/ext.cpp:5): the spec binds kernels of its own ABI)") in proc.stdout, proc.stdout
    assert "csrc/ext.cpp:4-6: delete the block TORCH_LIBRARY(mixed,m)" in proc.stdout, proc.stdout


def test_a_meta_kernel_is_the_ops_fake_bound_or_kept_in_the_projects_build(tmp_path):
    """A Meta kernel is the op's fake (E0828): bound, the spec takes no fake; kept in the project's build
    (internal linkage: FBGEMM's sparse_ops_meta.cpp, xformers' sparse24), the spec names it as its fake,
    `fake: {meta: ...}`, rather than write one that would register beside it (torch 2.11 refuses that)."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                             "at::Tensor bound_cpu(const at::Tensor& x);\n"
                                             "at::Tensor bound_meta(const at::Tensor& x);\n"
                                             "at::Tensor kept_cpu(const at::Tensor& x);\n")
    (tmp_path / "csrc" / "ext.cpp").write_text("""#include <torch/library.h>
#include "ops.h"
namespace {
at::Tensor kept_meta(const at::Tensor& x) { return x; }
}
TORCH_LIBRARY(metas, m) {
  m.def("bound(Tensor x) -> Tensor");
  m.def("kept(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(metas, CPU, m) {
  m.impl("bound", &bound_cpu);
  m.impl("kept", &kept_cpu);
}
TORCH_LIBRARY_IMPL(metas, Meta, m) {
  m.impl("bound", &bound_meta);
  m.impl("kept", &kept_meta);
}
""")
    proc = run_opgen("import", "csrc/ext.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported as schemas/<op>.yaml, 2 of them with their kernels as they are" in proc.stdout, proc.stdout
    bound = (tmp_path / "schemas" / "bound.yaml").read_text()
    assert '  Meta: "bound_meta"\n' in bound and "fake" not in bound, bound
    kept = (tmp_path / "schemas" / "kept.yaml").read_text()
    assert ('fake: {meta: "csrc/ext.cpp:16"}  # its Meta impl, kept in the project\'s build, is its fake\n') in kept, kept
    assert "need their fake written" not in proc.stdout, proc.stdout


CLASS_FILE = """#include <torch/custom_class.h>
#include <torch/library.h>
struct Counter : torch::CustomClassHolder {
  int64_t n = 0;
  int64_t next() { return n++; }
};
TORCH_LIBRARY_FRAGMENT(mylib, m) {
  m.class_<Counter>("Counter").def(torch::init<>()).def("next", &Counter::next);
}
"""


def test_a_block_that_registers_no_op_keeps_its_file_in_the_build(tmp_path):
    """A project's custom class (pyg-lib's HashMap) is registered in a block of the namespace with no op in it:
    the report names the block, and the CMake it prints keeps compiling its file, or the class would be lost."""
    project = write_project(tmp_path, OPS_H, BINDING, KERNELS)
    (project / "csrc" / "counter.cpp").write_text(CLASS_FILE)
    proc = run_opgen("import", "-I", "csrc", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("note: csrc/counter.cpp:7-9: the block TORCH_LIBRARY_FRAGMENT(mylib,m) registers no op (a custom class, "
            "or what import does not read): it stays the project's, and its file stays in the build") in proc.stdout
    cmake = next(line for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    assert "csrc/counter.cpp" in cmake.split(" KERNELS ")[1], cmake
    assert "next" not in {p.stem for p in (project / "schemas").glob("*.yaml")}


@pytest.mark.parametrize("runs", [7, 8])
def test_the_lines_of_the_registrations_that_go_are_listed_where_a_person_can_apply_them(tmp_path, runs):
    """In a block some of whose registrations stay (an impl whose kernel has internal linkage), the report lists
    the lines of those that go: at most 8 runs of lines (a /* */ comment between two sets them apart: a `//` one
    does not, below), and none where a line holds one that stays as well."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "b.cpp").write_text(
        '#include <torch/library.h>\nnamespace { at::Tensor hidden(const at::Tensor& x) { return x; } }\n'
        'TORCH_LIBRARY(runs, m) {\n  m.impl("kept", torch::kCPU, &hidden);\n  m.def("kept(Tensor x) -> Tensor");\n'
        + "".join(f'  /* op {i} */\n  m.def("op{i}(Tensor x) -> Tensor");\n' for i in range(runs)) + "}\n"
        'TORCH_LIBRARY(shared, m) {\n  m.def("a(Tensor x) -> Tensor"); m.impl("a", torch::kCPU, &hidden);\n'
        '  m.def("b(Tensor x) -> Tensor");\n}\n')
    proc = run_opgen("import", "csrc/b.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # kept's def (line 5) and each op's: 1 + runs runs of lines, listed up to 8.
    block = "in the block TORCH_LIBRARY(runs,m), delete every registration but those of the kept impls of kept"
    listed = ": lines 5, " + ", ".join(str(7 + 2 * i) for i in range(runs))
    assert f"{block}{listed if runs == 7 else ''} (the rest" in proc.stdout, proc.stdout
    # `a`'s def shares its line with its kept impl: no lines, the ops named alone.
    assert ("in the block TORCH_LIBRARY(shared,m), delete every registration but those of the kept impls of a (the "
            "rest") in proc.stdout, proc.stdout


def test_registrations_set_apart_by_blank_lines_and_line_comments_go_as_one_range(tmp_path):
    """deep-gemm's block: 51 defs and impls, each pair under a `//` comment and after a blank line, one impl kept.
    The lines that go are two ranges around the kept one, which scripts/apply_deletions.py (or a person) applies;
    a directive between two registrations still sets them apart (deleting it would change what the rest means)."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                             "at::Tensor shown(const at::Tensor& x);\n")
    body = "".join(f'\n  // op {i}\n  m.def("op{i}(Tensor x) -> Tensor");\n  m.impl("op{i}", &shown);\n'
                   for i in range(20))
    (tmp_path / "csrc" / "b.cpp").write_text(
        '#include <torch/library.h>\n#include "ops.h"\n'
        'namespace { at::Tensor hidden(const at::Tensor& x) { return x; } }\n'
        'TORCH_LIBRARY(many, m) {' + body.replace('m.impl("op7", &shown)', 'm.impl("op7", torch::kCPU, &hidden)')
        + '#ifdef EXTRA\n  m.def("extra(Tensor x) -> Tensor");\n#endif\n  m.def("last(Tensor x) -> Tensor");\n}\n')
    proc = run_opgen("import", "csrc/b.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = re.search(r"in the block TORCH_LIBRARY\(many,m\), delete every registration but those of [^:]*: lines "
                      r"([0-9, -]+) \(the rest", proc.stdout)
    assert lines, proc.stdout
    # Op i's comment, def and impl are lines 5 + 4i to 7 + 4i, after a blank line: they go together, but op7's
    # CPU impl (line 35) stays; `extra` (line 85, under #ifdef) and `last` (line 87, after #endif) go apart.
    assert lines[1] == "6-34, 38-83, 85, 87", lines[1]


# A stable-ABI library whose first op in its unity TU is the schema alone (xformers' `_nvcc_build_version`,
# its impl kept in the project's build) and whose next op has a kernel header: that header must find the
# target version defined, not a torch header already included without one.
STABLE_IMPLS = """#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

namespace {
torch::stable::Tensor twice(torch::stable::Tensor x) {
  torch::stable::Tensor out = torch::stable::empty_like(x);
  const float* in = static_cast<const float*>(x.data_ptr());
  float* result = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) result[i] = 2.0f * in[i];
  return out;
}
}  // namespace

STABLE_TORCH_LIBRARY_IMPL(stablefrag, CPU, m) {
  m.impl("a_def_alone", TORCH_BOX(&twice));
}
"""

STABLE_BOUND_KERNEL = """#include "stablefrag/kernels/b_bound.h"

#include <torch/csrc/stable/ops.h>

torch::stable::Tensor stablefrag::kernels::b_bound_cpu(const torch::stable::Tensor& x) {
  torch::stable::Tensor out = torch::stable::empty_like(x);
  const float* in = static_cast<const float*>(x.data_ptr());
  float* result = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) result[i] = in[i] + 1.0f;
  return out;
}
"""


def test_a_stable_schema_alone_op_first_in_its_unity_tu_lets_the_next_ops_compile(tmp_path):
    project = tmp_path / "project"
    proc = run_opgen("new", "stablefrag::b_bound", "--schema", "(Tensor x) -> Tensor", "--abi", "stable",
                     "--dispatch", "CPU", "--schemas-dir", project / "schemas", "--kernels-dir", project / "kernels")
    assert proc.returncode == 0, proc.stderr
    bound = project / "schemas" / "b_bound.yaml"
    bound.write_text(bound.read_text().split("doc:")[0] + "abi: stable\ndispatch: [CPU]\nchecks:\n  x: {dtype: [float32], contiguous: true}\n"
                     "fake:\n  - like(x)\nsamples: []\n")
    (project / "kernels" / "b_bound.cpp").write_text(STABLE_BOUND_KERNEL)
    (project / "kernels" / "impls.cpp").write_text(STABLE_IMPLS)
    (project / "schemas" / "a_def_alone.yaml").write_text(
        'schema: "a_def_alone(Tensor x) -> Tensor"\nabi: stable\ndispatch: []\nfake:\n  - like(x)\nsamples: []\n')
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(stablefrag CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
opgen_add_library(stablefrag_ops NAMESPACE stablefrag FRAGMENT SCHEMAS schemas KERNELS kernels/b_bound.cpp kernels/impls.cpp)
""")
    build = tmp_path / "build"
    _, env = build_with_opgen(project, build)
    shard = next(build.rglob("csrc/stablefrag-stable-shard0.cpp")).read_text()
    assert shard.index('"a_def_alone.cpp"') < shard.index('"b_bound.cpp"'), shard
    run_check("""
import torch, stablefrag
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.stablefrag.a_def_alone(x), 2 * x)
assert torch.equal(torch.ops.stablefrag.b_bound(x), x + 1)
print("ok")
""", env, tmp_path)


# FlashAttention 3's flash_api_stable.cpp: stable impls whose kernels are boxed by hand (`void f(StableIValue*
# stack, uint64_t, uint64_t)`), one declared in a header, one in the source alone. The generated bindings call a
# kernel with the schema's arguments, so neither is bound: both impls stay in the project's build, with why. The
# file also includes Python.h for a module init written out in an `extern "C"` block (deleted: the library gets
# Python's headers, PYTHON_HEADERS, and no Python), and its build defines the stable ABI's target version, which
# goes to the project's sources alone (opgen's bindings refuse another one than the library's).
BOXED_H = """#pragma once
#include <torch/csrc/stable/library.h>
void boxed_twice(StableIValue* stack, uint64_t num_args, uint64_t num_outputs);
"""

BOXED_BINDING = """#include <Python.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include "boxed.h"
using torch::stable::Tensor;
extern "C" {
PyObject* PyInit__C(void) {
  static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
  return PyModule_Create(&module);
}
}
static Tensor scaled(const Tensor& x, double by) {
  Tensor out = torch::stable::empty_like(x);
  const float* in = static_cast<const float*>(x.data_ptr());
  float* result = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) result[i] = static_cast<float>(by) * in[i];
  return out;
}
void boxed_twice(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  stack[0] = torch::stable::detail::from(scaled(torch::stable::detail::to<Tensor>(stack[0]), 2.0));
}
void boxed_thrice(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  stack[0] = torch::stable::detail::from(scaled(torch::stable::detail::to<Tensor>(stack[0]), 3.0));
}
STABLE_TORCH_LIBRARY(boxlib, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("thrice(Tensor x) -> Tensor");
}
STABLE_TORCH_LIBRARY_IMPL(boxlib, CPU, m) {
  m.impl("twice", &boxed_twice);
  m.impl("thrice", &boxed_thrice);
}
"""


def test_an_impl_whose_kernel_is_boxed_by_hand_stays_and_runs(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "boxed.h").write_text(BOXED_H)
    (project / "csrc" / "binding.cpp").write_text(BOXED_BINDING)
    proc = run_opgen("import", "-D", "TORCH_TARGET_VERSION=0x020a000000000000", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert "csrc/binding.cpp:8-11: delete PyObject* PyInit__C too, a Python module's init" in proc.stdout, proc.stdout
    assert "# PYTHON_HEADERS: csrc/binding.cpp includes Python.h" in proc.stdout, proc.stdout
    assert ("    set_source_files_properties(csrc/binding.cpp PROPERTIES COMPILE_DEFINITIONS "
            "TORCH_TARGET_VERSION=0x020a000000000000)\n") in proc.stdout, proc.stdout
    assert "target_compile_definitions" not in proc.stdout, proc.stdout
    for op, where in (("twice", "csrc/boxed.h:3"), ("thrice", "csrc/binding.cpp:23")):
        assert (f"its kernel boxed_{op} is boxed, it takes PyTorch's stack of values ({where}), and the generated "
                "bindings call a kernel with the schema's arguments: the impl registers it as it is") in proc.stdout, \
            proc.stdout
        spec = project / "schemas" / f"{op}.yaml"
        text = spec.read_text()
        assert "dispatch: []" in text and "kernels:" not in text, text
        spec.write_text(with_like_fake(text))
    apply_report_deletions(proc.stdout, project, tmp_path)
    cmake = "\n".join(line.strip() for line in proc.stdout.splitlines()
                      if re.match(r" *(opgen_add_library|target_include_directories|set_source_files_properties)\(", line))
    assert " PYTHON_HEADERS " in cmake, cmake
    write_reported_cmake(project, "boxlib", cmake)
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, boxlib
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.boxlib.twice(x), x * 2) and torch.equal(torch.ops.boxlib.thrice(x), x * 3)
print("ok")
""", env, tmp_path)


# causal-conv1d's, mamba's and FlashAttention forks' binding: each impl's kernel wrapped in a call,
# make_pytorch_shim(&fn), whose lambda converts PyTorch's int64_t and double to the kernel's int and float. The
# impl stays in the project's build as it is; a def whose kernel is such a call cannot be split from it: a need.
SHIM_H = """#pragma once
#include <ATen/core/Tensor.h>
#include <cstdint>
template <typename T> struct compatible { using type = T; };
template <> struct compatible<int> { using type = int64_t; };
template <typename Ret, typename... Args>
auto make_pytorch_shim(Ret (*fun)(Args...)) {
  return [fun](typename compatible<Args>::type... args) { return fun(static_cast<Args>(args)...); };
}
at::Tensor shifted(const at::Tensor& x, int by);
"""

SHIM_BINDING = """#include <torch/library.h>
#include <ATen/ops/add.h>
#include "shim.h"
at::Tensor shifted(const at::Tensor& x, int by) { return at::add(x, by); }
TORCH_LIBRARY(shimlib, m) {
  m.def("shifted(Tensor x, int by) -> Tensor");
  m.impl("shifted", c10::DispatchKey::CPU, make_pytorch_shim(&shifted));
  m.def("twice(Tensor x) -> Tensor", [](const at::Tensor& x) { return at::add(x, x); });
}
"""


def test_an_impl_whose_kernel_is_a_call_stays_and_a_def_with_one_is_a_need(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "shim.h").write_text(SHIM_H)
    (project / "csrc" / "binding.cpp").write_text(SHIM_BINDING)
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("shifted: CPU (csrc/binding.cpp:7; its kernel is 'make_pytorch_shim(&shifted)', not a plain function: "
            "the impl registers it as it is") in proc.stdout, proc.stdout
    # Before, the def's lambda was dropped without a word: the spec defined the op with no kernel, and the
    # report said to delete the def with it.
    assert ("csrc/binding.cpp:8: the def's kernel is '[](const at::Tensor&x){return at::add(x,x);}', not a plain "
            "function: a def cannot be split from its kernel") in proc.stdout, proc.stdout
    assert (project / "schemas" / "twice.yaml.todo").is_file()
    spec = project / "schemas" / "shifted.yaml"
    text = spec.read_text()
    assert "dispatch: []" in text, text
    spec.write_text(with_like_fake(text))
    apply_report_deletions(proc.stdout, project, tmp_path)
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    write_reported_cmake(project, "shimlib", cmake + "\ntarget_include_directories(shimlib_ops PRIVATE csrc)")
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, shimlib
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.shimlib.shifted(x, 3), x + 3)
assert torch.equal(torch.ops.shimlib.twice(x), x * 2)  # the project's own def, which stays
print("ok")
""", env, tmp_path)


# xformers' pt_stable_utils.cu: a source that registers nothing, whose function the kernels call. The project's
# build compiles it, so the library's must: the report's KERNELS lists every source given that registers nothing
# in the configuration read (a pybind11 module and a file that registers elsewhere are not among them).
HELPER_KERNELS = """#include "ops.h"
#include <ATen/ops/mul.h>
double factor();  // helper.cpp
at::Tensor scale(const at::Tensor& x, double a) { return at::mul(x, a * factor()); }
"""


def test_the_sources_that_register_nothing_are_built_with_the_kernels(tmp_path):
    project = write_project(tmp_path, OPS_H, BINDING.split("TORCH_LIBRARY_IMPL(mylib, AutocastCPU")[0],
                            HELPER_KERNELS)
    csrc = project / "csrc"
    (csrc / "helper.cpp").write_text("double factor() { return 3.0; }\n")
    (csrc / "module.cpp").write_text('#include <pybind11/pybind11.h>\nPYBIND11_MODULE(m, m) { m.def("f", &f); }\n')
    (csrc / "rocm.cpp").write_text('#ifdef USE_ROCM\n#include <torch/library.h>\nTORCH_LIBRARY_FRAGMENT(other, m) {\n'
                                   '  m.def("rocm_only(Tensor x) -> Tensor");\n}\n#endif\n')
    proc = run_opgen("import", "-D", "USE_CUDA", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "drop csrc/binding.cpp (nothing in it but those registrations)" in proc.stdout, proc.stdout
    assert "and the 3 sources given that register nothing (the kernels' helpers" in proc.stdout, proc.stdout
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    assert cmake.split(" KERNELS ")[1] == "csrc/helper.cpp csrc/kernels.cpp csrc/rocm.cpp)", cmake
    spec = project / "schemas" / "scale.yaml"
    text = spec.read_text()
    spec.write_text(with_like_fake(text))
    # The report's lines, as printed, build (the library is linked --no-undefined) and the op runs.
    write_reported_cmake(project, "mylib", cmake + "\ntarget_include_directories(mylib_ops PRIVATE csrc)")
    (csrc / "binding.cpp").unlink()  # the report: nothing in it but the registrations the spec now makes
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, mylib
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.mylib.scale(x, 2.0), x * 6)
print("ok")
""", env, tmp_path)


# xformers' nvcc_info.cu: a def and its catch-all impl (no key: CompositeImplicitAutograd) in one block, the
# kernel in an anonymous namespace. The impl stays in the project's build; the spec takes no fake (the op
# decomposes: PyTorch refuses a fake beside that kernel) and names the impl in its place.
VERSION_BINDING = """#include <torch/csrc/stable/library.h>
#include <tuple>

namespace {
std::tuple<int64_t, int64_t, int64_t> build_version() { return std::make_tuple(13, 0, 88); }
}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(verlib, m) {
  m.def("_build_version() -> (int, int, int)");
  m.impl("_build_version", TORCH_BOX(build_version));
}
"""


def test_a_kept_catch_all_impl_decomposes_the_op_in_place_of_a_fake(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "version.cpp").write_text(VERSION_BINDING)
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "need their fake written" not in proc.stdout and "need a person" not in proc.stdout, proc.stdout
    spec = (project / "schemas" / "_build_version.yaml").read_text()
    assert 'dispatch: []' in spec and 'fake: {decomposes: "csrc/version.cpp:10"}' in spec, spec
    line = re.search(r"csrc/version.cpp:\d+-\d+: in the block .*: line (\d+) \(the rest", proc.stdout)
    assert line, proc.stdout
    source = (project / "csrc" / "version.cpp").read_text().splitlines(keepends=True)
    del source[int(line[1]) - 1]  # the def, as the report says; the impl stays
    (project / "csrc" / "version.cpp").write_text("".join(source))
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    write_reported_cmake(project, "verlib", cmake)
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, verlib
assert torch.ops.verlib._build_version() == (13, 0, 88)
assert torch._C._dispatch_has_kernel_for_dispatch_key("verlib::_build_version", "CompositeImplicitAutograd")
print("ok")
""", env, tmp_path)


# deep-gemm's binding: one TORCH_LIBRARY block, which claims the namespace, holds every def and impl, and one impl
# stays (its kernel the bindings cannot call). The block stays for it, so the library must add to the namespace,
# not claim it a second time: that aborts the process that loads the library.
CLAIM_BINDING = """#include <torch/library.h>
#include <ATen/ops/mul.h>
#include "ops.h"
namespace {
at::Tensor hidden(const at::Tensor& x) { return at::mul(x, 3); }
}  // namespace
TORCH_LIBRARY(claimlib, m) {
  m.def("shown_op(Tensor x) -> Tensor");
  m.impl("shown_op", c10::DispatchKey::CPU, &shown);

  m.def("hidden_op(Tensor x) -> Tensor");
  m.impl("hidden_op", c10::DispatchKey::CPU, &hidden);
}
"""


def test_a_claiming_block_that_stays_makes_the_library_a_fragment(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                            "at::Tensor shown(const at::Tensor& x);\n")
    (project / "csrc" / "kernels.cpp").write_text('#include "ops.h"\n#include <ATen/ops/mul.h>\n'
                                                  "at::Tensor shown(const at::Tensor& x) { return at::mul(x, 2); }\n")
    (project / "csrc" / "binding.cpp").write_text(CLAIM_BINDING)
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("(FRAGMENT: csrc/binding.cpp:7-13: TORCH_LIBRARY(claimlib,m) claims the namespace and stays in the build, "
            "for the registrations it keeps)") in proc.stdout, proc.stdout
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    assert " FRAGMENT " in cmake and cmake.endswith("KERNELS csrc/binding.cpp csrc/kernels.cpp)"), cmake
    for op in ("shown_op", "hidden_op"):
        spec = project / "schemas" / f"{op}.yaml"
        text = spec.read_text()
        spec.write_text(with_like_fake(text))
    apply_report_deletions(proc.stdout, project, tmp_path)
    write_reported_cmake(project, "claimlib", cmake + "\ntarget_include_directories(claimlib_ops PRIVATE csrc)")
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, claimlib
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.claimlib.shown_op(x), x * 2) and torch.equal(torch.ops.claimlib.hidden_op(x), x * 3)
print("ok")
""", env, tmp_path)


def test_a_pybind11_module_in_a_file_that_stays_is_named_with_where_it_goes(tmp_path):
    """DeepSpeed's csrc/compile/init.cpp: its op blocks, impls that stay (kernels no call reaches), and a
    PYBIND11_MODULE of its own functions (`init`, `register_param`...), which its Python imports as a module. The
    module stays in the library (pybind11 hides what takes its types: no other library could call the kernels'
    functions), and the report says how Python imports it; nothing of it is deleted."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "init.cpp").write_text(
        '#include <torch/extension.h>\nnamespace { at::Tensor hidden(const at::Tensor& x) { return x; } }\n'
        'void set_persistent(int64_t id);\n'
        'TORCH_LIBRARY(dc, m) {\n  m.def("test_call(Tensor a) -> Tensor");\n}\n'
        'TORCH_LIBRARY_IMPL(dc, CPU, m) {\n  m.impl("test_call", &hidden);\n}\n'
        'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n'
        '    m.def("set_persistent", &set_persistent, "Set persistent flag for a parameter");\n}\n')
    proc = run_opgen("import", "csrc/init.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("next: csrc/init.cpp:10-13: PYBIND11_MODULE(TORCH_EXTENSION_NAME,m) stays in the library, the project's "
            "own Python module") in proc.stdout, proc.stdout
    assert "through a link to libdc_ops.so named as the module" in proc.stdout, proc.stdout
    assert "PYTHON_API" in proc.stdout and "delete PYBIND11_MODULE" not in proc.stdout, proc.stdout
    apply_report_deletions(proc.stdout, tmp_path, tmp_path)
    assert "PYBIND11_MODULE" in (tmp_path / "csrc" / "init.cpp").read_text()


# DeepSpeed's DeepCompile kernels include torch/extension.h and take pybind11 objects: a library built from them
# calls Python's C API. The report's line says PYTHON_API, and the library built with it loads and runs.
PYAPI_KERNELS = """#include <torch/extension.h>
#include "ops.h"
at::Tensor twice(const at::Tensor& x) {
  TORCH_CHECK(Py_IsInitialized(), "called outside Python");
  return x * 2;
}
"""


def test_kernels_that_call_python_are_built_with_the_python_api(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                            "at::Tensor twice(const at::Tensor& x);\n")
    (project / "csrc" / "kernels.cpp").write_text(PYAPI_KERNELS)
    (project / "csrc" / "binding.cpp").write_text(
        '#include <torch/library.h>\n#include "ops.h"\nTORCH_LIBRARY(pyapi, m) {\n'
        '  m.def("twice(Tensor x) -> Tensor");\n}\nTORCH_LIBRARY_IMPL(pyapi, CPU, m) {\n  m.impl("twice", &twice);\n}\n')
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# PYTHON_API: csrc/kernels.cpp brings pybind11 in (torch/extension.h)" in proc.stdout, proc.stdout
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    assert " PYTHON_API " in cmake and cmake.endswith("KERNELS csrc/kernels.cpp)"), cmake
    spec = project / "schemas" / "twice.yaml"
    text = spec.read_text()
    spec.write_text(with_like_fake(text))
    (project / "csrc" / "binding.cpp").unlink()  # the report: nothing in it but the registrations the spec makes
    write_reported_cmake(project, "pyapi", cmake + "\ntarget_include_directories(pyapi_ops PRIVATE csrc)")
    _, env = build_with_opgen(project, tmp_path / "build")
    run_check("""
import torch, pyapi
x = torch.arange(4, dtype=torch.float32)
assert torch.equal(torch.ops.pyapi.twice(x), x * 2)
print("ok")
""", env, tmp_path)
