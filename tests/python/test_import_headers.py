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

import json
import os
import re
import shutil
import subprocess
import sysconfig

import torch

from cli_helpers import SOURCE_DIR, build_with_opgen, requires_opgen, run_check, run_opgen

pytestmark = requires_opgen


def write_project(tmp_path, files):
    """The project's sources, {path: text}, under tmp_path/project."""
    project = tmp_path / "project"
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    return project


def build_from_report(project, report, kernels, tmp_path):
    """Builds the specs with the CMake lines the import report prints, as printed, the kernels' sources
    filled in; returns the environment in which Python imports the built package."""
    cmake = [line.strip() for line in report.splitlines()
             if re.match(r"\s+(opgen_add_library|target_include_directories)\(", line)]
    assert len(cmake) == 2, report
    cmake[0] = cmake[0].replace("<the kernels' sources>", kernels)
    (project / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.25)\nproject({project.name} CXX)\n"
        f"include({SOURCE_DIR}/cmake/Opgen.cmake)\n" + "\n".join(cmake) + "\n")
    _, env = build_with_opgen(project, tmp_path / "build")
    return env

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
    project = write_project(tmp_path, FILES)
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
    run_check(CHECK, build_from_report(project, proc.stdout, "csrc/stable/scale.cpp", tmp_path), tmp_path)


# vLLM's CPU bindings: kernels declared above the TORCH_LIBRARY block of the file that registers them, defined in
# another; an ops.h that names torch::Tensor without including what declares it (the bindings file's cache.h,
# included first, does); a registration.h that needs Python's C API, which an opgen library is built without.
DECLARED_HERE = {
    "csrc/cache.h": "#pragma once\n#include <torch/types.h>\n",
    "csrc/ops.h": """#pragma once
#include <torch/library.h>
void scale_into(torch::Tensor& out, const torch::Tensor& x, double a);
""",
    "csrc/registration.h": """#pragma once
#include <Python.h>
#define REGISTER_EXTENSION(NAME) PyMODINIT_FUNC PyInit_##NAME() { return nullptr; }
""",
    "csrc/binding.cpp": """#include "cache.h"
#include "ops.h"
#include "registration.h"
#include <torch/library.h>

torch::Tensor twice(const torch::Tensor& x);
namespace helpers {
int64_t count_positive(const torch::Tensor& x, int64_t above = 0);
}

TORCH_LIBRARY(cpulib, ops) {
  ops.def("scale_into(Tensor(a!) out, Tensor x, float a) -> ()");
  ops.impl("scale_into", torch::kCPU, &scale_into);
  ops.def("twice(Tensor x) -> Tensor", &twice);
  ops.def("count_positive(Tensor x, int above) -> int");
  ops.impl("count_positive", torch::kCPU, &helpers::count_positive);
}
""",
    "csrc/kernels.cpp": """#include "cache.h"
#include "ops.h"
void scale_into(torch::Tensor& out, const torch::Tensor& x, double a) { out.copy_(x * a); }
torch::Tensor twice(const torch::Tensor& x) { return x * 2; }
namespace helpers {
int64_t count_positive(const torch::Tensor& x, int64_t above) { return (x > above).sum().item<int64_t>(); }
}  // namespace helpers
""",
}

DECLARED_HERE_CHECK = """
import torch, cpulib
x = torch.tensor([-1.0, 0.5, 2.0, 3.0], requires_grad=True)
out = torch.empty(4)
torch.ops.cpulib.scale_into(out, x.detach(), 3.0)
assert torch.equal(out, x.detach() * 3), out
y = torch.ops.cpulib.twice(x)  # CompositeImplicitAutograd: autograd records the kernel's own ATen calls
y.sum().backward()
assert torch.equal(y, x * 2) and torch.equal(x.grad, torch.full((4,), 2.0)), (y, x.grad)
assert torch.ops.cpulib.count_positive(x.detach(), 1) == 2
print("ok")
"""


def test_kernels_the_bindings_file_declares_itself_are_bound_through_a_copy_of_their_declarations(tmp_path):
    project = write_project(tmp_path, DECLARED_HERE)
    proc = run_opgen("import", "-I", "csrc", "csrc/binding.cpp", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 ops imported as schemas/<op>.yaml, 3 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert ("note: csrc/binding.cpp: its kernels are declared in ops.h (after cache.h, which it includes first); "
            "left out: registration.h (declaring none of them)") in proc.stdout, proc.stdout
    assert "drop csrc/binding.cpp (nothing in it but those registrations)" in proc.stdout, proc.stdout
    assert '  include: ["cache.h", "ops.h"]\n' in (project / "schemas" / "scale_into.yaml").read_text()
    header = (project / "schemas" / "binding_kernels.h").read_text()
    # What the bindings file includes, but registration.h (Python's C API); the declarations without defaults.
    assert header.endswith('#include "cache.h"\n#include "ops.h"\n#include <torch/library.h>\n\n'
                           "torch::Tensor twice(const torch::Tensor& x);\n\nnamespace helpers {\n"
                           "int64_t count_positive(const torch::Tensor& x, int64_t above);\n"
                           "}  // namespace helpers\n"), header

    (project / "python" / "_fakes.py").write_text(
        "import torch\n\n\ndef count_positive(x, above):\n    return torch.library.get_ctx().new_dynamic_size()\n")
    (project / "csrc" / "binding.cpp").unlink()
    run_check(DECLARED_HERE_CHECK, build_from_report(project, proc.stdout, "csrc/kernels.cpp", tmp_path), tmp_path)


def test_a_kernel_declared_in_its_source_alone_is_copied_kept_or_named_as_a_need(tmp_path):
    """Every header the binding file includes is here and none declares the kernel (it is declared in the
    source alone): the generated bindings, another file, could not call it (issue 34, item 4: claims that
    hold). Its declaration is copied into a header beside the specs, which the spec includes; where it
    cannot be (it names a type of the source's own), its impl stays in the project's build, and a def that
    names it cannot be split and needs a person."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                             "namespace proj { at::Tensor declared(const at::Tensor& x); }\n")
    (tmp_path / "csrc" / "binding.cpp").write_text("""#include <torch/library.h>
#include "ops.h"
namespace proj {
namespace { const bool called_in_an_initializer = declared(at::Tensor()).defined(); }  // declares nothing
typedef at::Tensor Local;  // a `typedef` import does not read: a type of the source's own
at::Tensor declared(const at::Tensor& x) { return x; }
Local local_only(const at::Tensor& x) { return x; }
at::Tensor copied(const at::Tensor& x, int64_t n = 2);
TORCH_LIBRARY(nohdr, m) {
  m.def("declared(Tensor x) -> Tensor");
  m.def("local_only(Tensor x) -> Tensor");
  m.def("in_def(Tensor x) -> Tensor", &local_only);
  m.def("copied(Tensor x, int n) -> Tensor");
}
TORCH_LIBRARY_IMPL(nohdr, CPU, m) {
  m.impl("declared", &declared);
  m.impl("local_only", &local_only);
  m.impl("copied", &copied);
}
}
""")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 ops imported as schemas/<op>.yaml, 2 of them with their kernels as they are" in proc.stdout
    why = ("its kernel proj::local_only is declared in no header that csrc/binding.cpp includes (in the source alone) "
           "(its declaration names Local, which no header csrc/binding.cpp includes declares")
    assert f"local_only: CPU (csrc/binding.cpp:17; {why}" in proc.stdout, proc.stdout
    assert "dispatch: []  # its kernels are the impls kept" in (tmp_path / "schemas" / "local_only.yaml").read_text()
    assert 'CPU: "proj::declared"' in (tmp_path / "schemas" / "declared.yaml").read_text()
    assert f"csrc/binding.cpp:12: {why}" in (tmp_path / "schemas" / "in_def.yaml.todo").read_text()
    # copied: its declaration (the default argument dropped: the bindings pass every argument), in its namespace,
    # after what the source includes.
    assert '  include: "binding_kernels.h"\n  CPU: "proj::copied"\n' in (tmp_path / "schemas" / "copied.yaml").read_text()
    header = (tmp_path / "schemas" / "binding_kernels.h").read_text()
    assert header.endswith('#pragma once\n\n#include <torch/library.h>\n#include "ops.h"\n\n'
                           "namespace proj {\nat::Tensor copied(const at::Tensor& x, int64_t n);\n"
                           "}  // namespace proj\n"), header
    assert ("note: csrc/binding.cpp declares 1 of the kernels it registers itself, in no header: their declarations "
            "are copied into schemas/binding_kernels.h, which their specs include") in proc.stdout, proc.stdout
    assert "    target_include_directories(nohdr_ops PRIVATE csrc schemas)\n" in proc.stdout, proc.stdout
    # The impl block keeps local_only's impl: only declared's and copied's go, at the lines the report names.
    assert ("csrc/binding.cpp:15-19: in the block TORCH_LIBRARY_IMPL(nohdr,CPU,m), delete every registration but "
            "those of local_only: lines 16, 18 (the rest") in proc.stdout, proc.stdout


def test_a_meta_kernel_file_as_fbgemm_writes_it_has_its_declarations_copied(tmp_path):
    """FBGEMM's quantize_ops_meta.cpp: Meta kernels defined in the source alone, after `using Tensor =
    at::Tensor;`, one with a parameter `bool forward [[maybe_unused]]`, in a file that includes a header of
    PyTorch's in quotes ("c10/core/ScalarType.h"). That header, not beside it, declares none of the project's
    kernels: the declarations are copied (the alias spelled in full, the attribute left out), and bound."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                             "namespace proj { at::Tensor scale_cpu(const at::Tensor& x, bool f); }\n")
    (tmp_path / "csrc" / "ops.cpp").write_text("""#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(fbmeta, m) { m.def("scale(Tensor x, bool forward) -> Tensor"); }
TORCH_LIBRARY_IMPL(fbmeta, CPU, m) { m.impl("scale", TORCH_FN(proj::scale_cpu)); }
""")
    (tmp_path / "csrc" / "ops_meta.cpp").write_text("""#include <ATen/ATen.h>
#include <torch/library.h>

#include "c10/core/ScalarType.h"
#include "ops.h"

using Tensor = at::Tensor;

namespace proj {
Tensor scale_meta(
    const Tensor& x,
    bool forward [[maybe_unused]]) {
  return at::empty_like(x);
}
}  // namespace proj

TORCH_LIBRARY_IMPL(fbmeta, Meta, m) { m.impl("scale", TORCH_FN(proj::scale_meta)); }
""")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported as schemas/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout, proc.stdout
    spec = (tmp_path / "schemas" / "scale.yaml").read_text()
    assert 'dispatch: [CPU, Meta]' in spec and 'Meta: "proj::scale_meta"' in spec, spec
    assert '"ops_meta_kernels.h"' in spec, spec
    header = (tmp_path / "schemas" / "ops_meta_kernels.h").read_text()
    assert header.endswith("namespace proj {\nat::Tensor scale_meta(const at::Tensor& x, bool forward);\n"
                           "}  // namespace proj\n"), header


def test_a_binding_file_that_includes_no_header_of_its_own_gets_its_kernels_declarations_copied(tmp_path):
    """torchao's mxfp8_extension.cpp defines its kernels in the file and includes only <...> headers: no header
    of the project's declares them. Their declarations are copied into a header the specs include, after the
    file's own includes; one that names a type of the file's own cannot be copied: its impl stays in the
    project's build (the op is imported, not a need), and a def naming it is a need."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ext.cpp").write_text("""#include <torch/library.h>
using torch::stable::Tensor;  // a library's name, brought in: the copy spells it in full
namespace mx {
typedef at::Tensor Local;  // (`using Local = at::Tensor;` is spelled in full, as a library's name)
at::Tensor quantize(const at::Tensor& x) { return x; }
Local scale(const Local& x) { return x; }
Tensor pad(const Tensor& x, int64_t to);
}
TORCH_LIBRARY(noinc, m) {
  m.def("quantize(Tensor x) -> Tensor");
  m.def("scale(Tensor x) -> Tensor");
  m.def("in_def(Tensor x) -> Tensor", &mx::scale);
}
STABLE_TORCH_LIBRARY(noinc_stable, m) {
  m.def("pad(Tensor x, int to) -> Tensor");
}
TORCH_LIBRARY_IMPL(noinc, CUDA, m) {
  m.impl("quantize", &mx::quantize);
  m.impl("scale", &mx::scale);
}
STABLE_TORCH_LIBRARY_IMPL(noinc_stable, CUDA, m) {
  m.impl("pad", TORCH_BOX(&mx::pad));
}
""")
    proc = run_opgen("import", "csrc/ext.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported as schemas/noinc/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout, \
        proc.stdout
    assert "1 ops imported as schemas/noinc_stable/<op>.yaml, 1 of them with their kernels as they are" in \
        proc.stdout, proc.stdout
    assert ("scale: CUDA (csrc/ext.cpp:19; csrc/ext.cpp includes no header of its own (#include \"...\") that "
            "could declare its kernel mx::scale (its declaration names Local, which no header csrc/ext.cpp includes "
            "declares") in proc.stdout, proc.stdout
    schemas = tmp_path / "schemas" / "noinc"
    assert "dispatch: []  # its kernels are the impls kept in the project's build" in \
        (schemas / "scale.yaml").read_text()
    assert (schemas / "in_def.yaml.todo").is_file()
    assert '  include: "ext_kernels.h"\n  CUDA: "mx::quantize"\n' in (schemas / "quantize.yaml").read_text()
    assert (schemas / "ext_kernels.h").read_text().endswith(
        "#include <torch/library.h>\n\nnamespace mx {\nat::Tensor quantize(const at::Tensor& x);\n"
        "torch::stable::Tensor pad(const torch::stable::Tensor& x, int64_t to);\n}  // namespace mx\n")
    # One header per source, the declarations of its kernels of every namespace, beside each namespace's specs.
    assert (tmp_path / "schemas" / "noinc_stable" / "ext_kernels.h").read_text() == \
        (schemas / "ext_kernels.h").read_text()


VLLM_SOURCES = SOURCE_DIR / "tests" / "import" / "sources"
VLLM_CPU = ["csrc/cpu/torch_bindings.cpp", "csrc/ops.h", "csrc/cache.h", "csrc/core/registration.h",
            "csrc/core/scalar_type.hpp"]


def test_vllms_cpu_bindings_bind_every_kernel_and_the_bindings_compile_against_its_headers(tmp_path):
    """vLLM's CPU build (tests/import/sources/ZJY0516__vllm, verbatim): its bindings file declares 19 kernels
    itself, and its ops.h needs the cache.h the file includes first. Every op is imported with its kernels,
    and the generated bindings compile (syntax only) against vLLM's own headers, unchanged."""
    manifest = {(e["repo"], e["path"]): e for e in json.loads((VLLM_SOURCES / "MANIFEST.json").read_text())}
    project = tmp_path / "vllm"
    for path in VLLM_CPU:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(VLLM_SOURCES / manifest[("ZJY0516/vllm", path)]["file"], project / path)
    proc = run_opgen("import", "-I", "csrc", "-D", "TORCH_EXTENSION_NAME=_C", "csrc/cpu/torch_bindings.cpp",
                     cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "31 ops imported as schemas/<op>.yaml, 31 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert ("csrc/cpu/torch_bindings.cpp declares 19 of the kernels it registers itself, in no header: their "
            "declarations are copied into schemas/torch_bindings_kernels.h") in proc.stdout, proc.stdout
    assert "its kernels are declared in ops.h (after cache.h, which it includes first)" in proc.stdout, proc.stdout
    header = (project / "schemas" / "torch_bindings_kernels.h").read_text()
    assert "registration.h" not in header and '#include "cache.h"\n#include "ops.h"\n' in header, header
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", "_C", "--shards", "1", "-o", out,
                         *sorted((project / "schemas").glob("*.yaml")))
    assert generate.returncode == 0, generate.stderr
    (shard,) = (out / "csrc").glob("*-unstable-shard0.cpp")
    torch_dir = os.path.dirname(torch.__file__)
    result = subprocess.run(
        ["c++", "-std=c++20", "-fsyntax-only", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{out / 'include'}",
         f"-I{project / 'csrc'}", f"-I{project / 'schemas'}", "-isystem", f"{torch_dir}/include",
         "-isystem", f"{torch_dir}/include/torch/csrc/api/include", "-isystem", sysconfig.get_paths()["include"],
         str(shard)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


def test_a_header_of_copied_declarations_is_named_and_commented_as_cpp_can_hold_it(tmp_path):
    """Its name comes from the source's, which may hold what an #include line or a file name should not (a
    quote, a newline); the comment naming the source must not end early: a newline there would make the rest
    of the name code."""
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / 'q"u\nint injected;.cpp').write_text(
        '#include <torch/library.h>\nat::Tensor k(const at::Tensor& x);\n'
        'TORCH_LIBRARY(nm, m) {\n  m.def("o(Tensor x) -> Tensor", &k);\n}\n')
    proc = run_opgen("import", "y", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '  include: "q_u_int_injected__kernels.h"\n' in (tmp_path / "schemas" / "o.yaml").read_text()
    header = (tmp_path / "schemas" / "q_u_int_injected__kernels.h").read_text()
    assert header.startswith('// Written by `opgen import`: the declarations y/q"u?int injected;.cpp makes'), header
    assert "\nint injected" not in header, header
