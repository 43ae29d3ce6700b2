"""`opgen import` on real projects' binding files (tests/import/sources/,
verbatim, with their provenance in MANIFEST.json).

For each file: how many ops become specs and how many need a person (the
counts are pinned: a change in either direction is a change to look at);
every written spec passes `opgen check` together with the rest; the schema
each registers parses, in torch, to the very schema the project wrote. For
sglang's 95-op binding file, the generated bindings compile against the
project's own kernel declarations (sgl_kernel_ops.h), unchanged: every
kernel is bound as it is. And import writes only new files, inside its
directories.

Needs the built tool: run through CTest.
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import torch

from cli_helpers import SOURCE_DIR, requires_opgen, run_opgen

pytestmark = requires_opgen

SOURCES = SOURCE_DIR / "tests" / "import" / "sources"
MANIFEST = {entry["path"]: entry for entry in json.loads((SOURCES / "MANIFEST.json").read_text())}

# path in its project -> (--namespace or None, ops imported, ops needing a person)
EXPECTED = {
    "sgl-kernel/csrc/common_extension.cc": (None, 88, 7),
    # Into `fbgemm` as FBGEMM adds to it: as fragments (FRAGMENT).
    "fbgemm_gpu/src/quantize_ops/quantize_ops_cpu.cpp": (None, 28, 0),
    "deep-gemm/torch-ext/torch_binding.cpp": ("deep_gemm", 51, 0),
    "pyg_lib/csrc/ops/scatter.cpp": (None, 5, 0),
    "csrc/compile/init.cpp": (None, 14, 0),
    "hopper/flash_api_stable.cpp": (None, 4, 0),
    "torchao/csrc/cuda/rowwise_scaled_linear_sparse_cutlass/rowwise_scaled_linear_sparse_cutlass_f8f8.cu": (None, 1, 0),
    # Its fakes, all named `_`, move into python/_fakes.py; its kernels are in other files (one kept): the schema alone.
    "bitsandbytes/_ops.py": (None, 19, 0),
    "torchao/ops.py": (None, 9, 0),
    # custom_op: the schema inferred from the type hints, the function its kernel.
    "flash_attn/flash_attn_interface.py": (None, 4, 0),
    "transformer_engine/pytorch/attention/custom_ops.py": ("te_kv_cache", 3, 0),
}
DEF_CALL = re.compile(r'(?:m\.def|_PYTHON_LIBRARY\.define)\(("(?:[^"\\]|\\.)*")')
CUSTOM_OP_CALL = re.compile(r'torch\.library\.custom_op\("([^"]*)".*, schema=("(?:[^"\\]|\\.)*")')


def import_file(tmp_path, path, namespace):
    """Copies the source under its own path (Python fakes are named by it) and imports it."""
    entry = MANIFEST[path]
    source = tmp_path / "project" / path
    source.parent.mkdir(parents=True)
    shutil.copy(SOURCES / entry["file"], source)
    options = ["--namespace", namespace] if namespace else []
    proc = run_opgen("import", *options, path, cwd=tmp_path / "project")
    return proc, tmp_path / "project"


@pytest.mark.parametrize("path", EXPECTED)
def test_import_of_a_real_binding_file(tmp_path, path):
    namespace, imported, todo = EXPECTED[path]
    proc, project = import_file(tmp_path, path, namespace)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    specs = sorted((project / "schemas").glob("*.yaml"))
    todos = sorted((project / "schemas").glob("*.yaml.todo"))
    print(f"\n{path}: {len(specs)} imported, {len(todos)} need a person\n{proc.stdout}")
    assert (len(specs), len(todos)) == (imported, todo), proc.stdout
    assert f"{imported} ops imported" in proc.stdout
    for todo_file in todos:  # each says why
        assert todo_file.read_text().startswith("# opgen import: this op needs a person"), todo_file
    if not specs:
        return
    ns = namespace or re.search(r"namespace (\w+)", proc.stdout)[1]
    fragment = ["--fragment"] if f"NAMESPACE {ns} FRAGMENT" in proc.stdout else []
    check = run_opgen("check", "--namespace", ns, *fragment, *specs)
    assert check.returncode == 0, check.stderr
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", ns, *fragment, "-o", out, *specs)
    assert generate.returncode == 0, generate.stderr
    # The registered schema is the one the project wrote.
    for spec in specs:
        written = re.search(r'^schema: (".*")$', spec.read_text(), re.M)[1]
        written = json.loads(written)
        tu = (out / "csrc" / f"{spec.stem}.cpp").read_text()
        if "nothing of it is C++" in tu:  # every kernel Python: the package defines it
            package = next(p for p in (out / "python").iterdir() if p.is_dir())
            ops_py = (package / "_ops.py").read_text()
            defs = DEF_CALL.findall(ops_py) + [  # `define: custom_op`: custom_op's name and schema, as one
                repr(name.split("::")[-1] + ast.literal_eval(schema)) for name, schema in CUSTOM_OP_CALL.findall(ops_py)]
            (registered,) = [d for d in defs if ast.literal_eval(d).split("(")[0] == spec.stem]
        else:
            (registered,) = DEF_CALL.findall(tu)
        registered = ast.literal_eval(registered)
        qualified = written if "::" in written.split("(")[0] else f"{ns}::{written}"
        assert torch._C.parse_schema(f"{ns}::{registered}") == torch._C.parse_schema(qualified), spec
    if (project / "python" / "_fakes.py").exists():
        compile((project / "python" / "_fakes.py").read_text(), "_fakes.py", "exec")


def test_sglang_kernels_bind_as_they_are(tmp_path):
    """The generated bindings of sglang's imported ops, compiled against
    sgl_kernel_ops.h as the project ships it: each kernel's adapter and its
    static_asserts accept the project's own signatures, the schemas inferred
    from them (with the build's -I) among them, int[][] arguments too."""
    proc, project = import_file(tmp_path, "sgl-kernel/csrc/common_extension.cc", None)
    assert proc.returncode == 0, proc.stdout
    include = project / "sgl-kernel" / "include"
    include.mkdir()
    for header in ("sgl-kernel/include/sgl_kernel_ops.h", "sgl-kernel/include/scalar_type.hpp"):
        shutil.copy(SOURCES / MANIFEST[header]["file"], include / Path(header).name)
    shutil.rmtree(project / "schemas")
    shutil.rmtree(project / "python")
    # As sglang's CUDA build reads its header (USE_ROCM undefined: a Release build's NDEBUG as the configuration).
    proc = run_opgen("import", "-I", "sgl-kernel/include", "-D", "NDEBUG", "sgl-kernel/csrc/common_extension.cc",
                     cwd=project)
    assert proc.returncode == 0 and "95 ops imported" in proc.stdout, proc.stdout + proc.stderr
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", "sgl_kernel", "--shards", "1", "-o", out,
                         *sorted((project / "schemas").glob("*.yaml")))
    assert generate.returncode == 0, generate.stderr
    shard = (out / "csrc" / "sgl_kernel-unstable-shard0.cpp").read_text()
    assert shard.count('#include "') == 96  # the library block and the 95 ops
    assert '#include "register_graph_buffers.cpp"' in shard
    torch_dir = os.path.dirname(torch.__file__)
    result = subprocess.run(
        ["c++", "-std=c++20", "-fsyntax-only", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{out / 'include'}", f"-I{include}",
         "-isystem", f"{torch_dir}/include", "-isystem", f"{torch_dir}/include/torch/csrc/api/include",
         "-isystem", sysconfig.get_paths()["include"], str(out / "csrc" / "sgl_kernel-unstable-shard0.cpp")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


def test_a_namespace_the_sources_add_to_stays_shared(tmp_path):
    """FBGEMM adds to `fbgemm` with TORCH_LIBRARY_FRAGMENT only (its libraries share it): the ops keep the
    namespace, and the build the report prints adds them as fragments too."""
    proc, project = import_file(tmp_path, "fbgemm_gpu/src/quantize_ops/quantize_ops_cpu.cpp", None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "opgen_add_library(fbgemm_ops NAMESPACE fbgemm FRAGMENT PYTHON_SOURCES python/_fakes.py SCHEMAS schemas" \
        in proc.stdout, proc.stdout


def test_a_namespace_pytorch_defines_claimed_by_the_sources_is_refused_with_the_way_out(tmp_path):
    """Sources that claim a namespace PyTorch defines (TORCH_LIBRARY(quantized, m)) would not load beside
    PyTorch: refused, with the way out, and nothing written."""
    (tmp_path / "b.cpp").write_text('TORCH_LIBRARY(quantized, m) {\n  m.def("my_scale(Tensor x) -> Tensor");\n}\n')
    proc = run_opgen("import", "b.cpp", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout
    assert "error[E0905]" in proc.stdout + proc.stderr and "--fragment" in proc.stdout + proc.stderr, proc.stderr
    assert "--namespace <name>" in proc.stdout + proc.stderr
    assert not (tmp_path / "schemas").exists()


def test_import_writes_only_new_files_inside_its_directories(tmp_path):
    proc, project = import_file(tmp_path, "hopper/flash_api_stable.cpp", None)
    assert proc.returncode == 0
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    again = run_opgen("import", "hopper/flash_api_stable.cpp", cwd=project)
    assert again.returncode == 1 and "error[E0903]" in again.stderr, again.stderr
    assert "nothing was written" in again.stderr
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_op_names_that_are_not_paths_are_refused(tmp_path):
    source = tmp_path / "binding.cpp"
    source.write_text('#include "fine.h"\nTORCH_LIBRARY(evil, m) {\n  m.def("../../escape(Tensor x) -> Tensor");\n'
                      '  m.def("fine(Tensor x) -> ()");\n  m.impl("fine", torch::kCPU, &fine);\n}\n')
    proc = run_opgen("import", source, "--schemas-dir", tmp_path / "schemas", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "'../../escape' " in proc.stdout and "not an op name a file can carry" in proc.stdout
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["binding.cpp", "fine.yaml"]


def test_a_directory_stands_for_its_sources(tmp_path):
    """torchao's Python defines and its stable-ABI CUDA file, given as one
    directory: the op both register gets the C++ kernel, and links are not followed."""
    tree = tmp_path / "project" / "torchao"
    (tree / "csrc").mkdir(parents=True)
    shutil.copy(SOURCES / MANIFEST["torchao/ops.py"]["file"], tree / "ops.py")
    cu = "torchao/csrc/cuda/rowwise_scaled_linear_sparse_cutlass/rowwise_scaled_linear_sparse_cutlass_f8f8.cu"
    shutil.copy(SOURCES / MANIFEST[cu]["file"], tree / "csrc" / "f8f8.cu")
    (tree / "csrc" / "notes.txt").write_text('TORCH_LIBRARY(x, m) { m.def("ignored(Tensor x) -> ()"); }')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.cpp").write_text('TORCH_LIBRARY(torchao, m) { m.def("linked(Tensor x) -> ()"); }')
    (tree / "link").symlink_to(outside, target_is_directory=True)
    proc = run_opgen("import", "torchao", cwd=tmp_path / "project")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = sorted(p.name for p in (tmp_path / "project" / "schemas").glob("*.yaml"))
    assert len(written) == 9 and "rowwise_scaled_linear_sparse_cutlass_f8f8.yaml" in written, proc.stdout
    assert "CUDA: " in (tmp_path / "project" / "schemas" / "rowwise_scaled_linear_sparse_cutlass_f8f8.yaml").read_text()
    assert "8 of them with the schema alone (dispatch: []): the sources given register no impl" in proc.stdout
    assert "ignored" not in proc.stdout and "linked" not in proc.stdout


@pytest.mark.parametrize("kind", ["fifo", "sparse", "empty name", "missing"])
def test_unreadable_source_is_a_clean_error(tmp_path, kind):
    source = tmp_path / "binding.cpp"
    if kind == "fifo":
        os.mkfifo(source)
    elif kind == "sparse":  # a terabyte of nothing: refused by its size, not read
        with open(source, "wb") as f:
            f.truncate(1 << 40)
    arg = "" if kind == "empty name" else source
    proc = run_opgen("import", arg, "--schemas-dir", tmp_path / "schemas")
    assert proc.returncode == 1 and "error[E0901]" in proc.stderr, proc.stderr
    assert not (tmp_path / "schemas").exists()


@pytest.mark.parametrize("define", ["", "=1", "1ABC", "A B", "CUDA_KERNEL\n#define X"])
def test_a_define_that_is_not_a_macro_name_is_refused(tmp_path, define):
    source = tmp_path / "binding.cpp"
    source.write_text('TORCH_LIBRARY(ns, m) {\n  m.def("op(Tensor x) -> Tensor");\n}\n')
    proc = run_opgen("import", "--define", define, source, "--schemas-dir", tmp_path / "schemas")
    assert proc.returncode == 2 and "--define" in proc.stderr, proc.stdout + proc.stderr
    assert not (tmp_path / "schemas").exists()


def test_the_compilers_own_macros_are_read_but_not_printed_as_definitions(tmp_path):
    """vLLM's x86 CPU build registers its oneDNN ops under `#if defined(__AVX2__)`: `--define __AVX2__` reads
    that build, and the CMake the report prints leaves the macro to the flags that set it (defined by hand
    without -mavx2, the kernels' intrinsics would not compile)."""
    (tmp_path / "binding.cpp").write_text(
        '#include "ops.h"\nTORCH_LIBRARY(ns, m) {\n  m.def("op(Tensor x) -> Tensor");\n'
        '  m.impl("op", torch::kCPU, &op_cpu);\n#if defined(__AVX2__)\n  m.def("avx2_op(Tensor x) -> Tensor");\n'
        '  m.impl("avx2_op", torch::kCPU, &avx2_op_cpu);\n#endif\n}\n')
    proc = subprocess.run([os.environ["OPGEN_BIN"], "import", "-D", "__AVX2__", "-D", "NDEBUG", "-D", "__F16C__=1",
                           "binding.cpp"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported" in proc.stdout and (tmp_path / "schemas" / "avx2_op.yaml").exists(), proc.stdout
    assert "    target_compile_definitions(ns_ops PRIVATE NDEBUG)\n" in proc.stdout, proc.stdout
    assert "    # __AVX2__, __F16C__=1: the compiler defines them from its target flags" in proc.stdout, proc.stdout


def test_the_report_names_the_ops_that_are_eager_only_as_written(tmp_path):
    """DeepSpeed's views and vLLM's shared-memory ops import as written; opcheck and torch.compile refuse them, and
    the report says which, by the warning that says why."""
    (tmp_path / "binding.cpp").write_text(
        '#include "ops.h"\nTORCH_LIBRARY(ns, m) {\n  m.def("wait(Tensor(a) x, int id) -> Tensor(a)");\n'
        '  m.impl("wait", torch::kCPU, &wait_cpu);\n  m.def("send(int h, Tensor(a)[] ts, int dst) -> ()");\n'
        '  m.impl("send", torch::kCPU, &send_cpu);\n  m.def("plain(Tensor x) -> Tensor");\n'
        '  m.impl("plain", torch::kCPU, &plain_cpu);\n}\n')
    proc = subprocess.run([os.environ["OPGEN_BIN"], "import", "binding.cpp"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 ops imported" in proc.stdout, proc.stdout
    assert ("  2 of them eager-only, as their schemas and keys are written (torch.library.opcheck and torch.compile "
            "refuse them; opgen check says why): W0403: wait; W0405: send\n") in proc.stdout, proc.stdout


MODULE_INITS = {  # what the file defines beside its block -> the report's line for it, or None
    "REGISTER_EXTENSION(_C)\n": "binding.cpp:9: delete REGISTER_EXTENSION(_C) too, a Python module's init",
    "PyMODINIT_FUNC PyInit__C(void) {\n  return PyModule_Create(&module);\n}\n":
        "binding.cpp:9-11: delete PyMODINIT_FUNC PyInit__C too, a Python module's init",
    "PyMODINIT_FUNC PyInit__C(void);\n": None,  # a declaration defines no init
    # FlashAttention 3's: written out, in an `extern "C"` block.
    'extern "C" {\nPyObject* PyInit__C(void) {\n  return PyModule_Create(&module);\n}\n}\n':
        "binding.cpp:10-12: delete PyObject* PyInit__C too, a Python module's init",
    'extern "C" PyObject* PyInit__C(void);\n': None,
}


@pytest.mark.parametrize("init", list(MODULE_INITS))
def test_a_python_module_init_in_a_file_that_stays_is_named_for_deletion(tmp_path, init):
    """vLLM's CPU bindings end in REGISTER_EXTENSION(TORCH_EXTENSION_NAME), so that `import vllm._C` loads the
    library, and keep a function of theirs: the file stays in the build, where the init would call Python's C API,
    which the library opgen builds does not link (a link error under --no-undefined); the package loads it."""
    (tmp_path / "binding.cpp").write_text(
        '#include "ops.h"\nvoid placeholder() { TORCH_CHECK(false, "Unimplemented"); }\n'
        'TORCH_LIBRARY(_C, m) {\n  m.def("op(Tensor x) -> Tensor");\n  m.impl("op", torch::kCPU, &op_cpu);\n'
        '  m.def("stub() -> ()", &placeholder);\n}\n\n' + init)
    proc = subprocess.run([os.environ["OPGEN_BIN"], "import", "binding.cpp"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "binding.cpp:3-7: delete the block TORCH_LIBRARY(_C,m)" in proc.stdout, proc.stdout
    expected = MODULE_INITS[init]
    if expected:
        assert f"    {expected}: the generated package loads the library" in proc.stdout, proc.stdout
    else:
        assert "Python module's init" not in proc.stdout, proc.stdout


def test_each_namespace_of_python_ops_is_generated_into_a_directory_of_its_own(tmp_path):
    """TorchMD-Net's warp ops define three namespaces in Python: each package is generated by its own `opgen
    generate`, which owns what it writes in its -o (one directory for all, and each run took the others' packages
    out as its own stale files): the report names a directory each."""
    for ns in ("alpha", "beta"):
        (tmp_path / f"{ns}.py").write_text(
            f'import torch\n\n\n@torch.library.custom_op("{ns}::twice", mutates_args=())\n'
            "def twice(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n")
    proc = run_opgen("import", "alpha.py", "beta.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for ns in ("alpha", "beta"):
        assert f"opgen generate --namespace {ns} --fragment -o <dir>/{ns} schemas/{ns}" in proc.stdout, proc.stdout
    assert "drop the sources' own registrations" not in proc.stdout, proc.stdout


def test_where_the_projects_python_imported_a_deleted_inits_module_it_imports_the_package(tmp_path):
    """torch-harmonics' two extensions each write out a `PyInit__C`, and each package's `__init__.py` loads its own
    with `from . import _C`: the init goes (the generated package loads the library), so the report names the
    import nearest each init, for its namespace's package, and scripts/apply_python_deletions.py rewrites it; torch's
    own `_C` is not the project's."""
    for ns, pkg in (("alpha", "a"), ("beta", "b")):
        (tmp_path / "proj" / pkg / "csrc").mkdir(parents=True)
        (tmp_path / "proj" / pkg / "csrc" / "binding.cpp").write_text(
            f'#include <Python.h>\n#include "ops.h"\nTORCH_LIBRARY({ns}, m) {{\n  m.def("op(Tensor x) -> Tensor");\n'
            f'  m.impl("op", torch::kCPU, &op_cpu);\n}}\nPyMODINIT_FUNC PyInit__C(void) {{\n'
            '  return PyModule_Create(&module);\n}\n')
        (tmp_path / "proj" / pkg / "__init__.py").write_text(
            "import torch\nfrom torch import _C as torch_C\nif torch.cuda.is_available() or True:\n"
            "    from . import _C\nimport torch._C\n")
    proc = run_opgen("import", "proj", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for ns, pkg in (("alpha", "a"), ("beta", "b")):
        assert f"proj/{pkg}/csrc/binding.cpp:7-9: delete PyMODINIT_FUNC PyInit__C too, a Python module's init: the " \
               "generated package loads the library, which links no Python: the project's Python imports the " \
               "package where it imported _C" in proc.stdout, proc.stdout
        assert f"  next: import the package where the project's Python imported _C, the module the init deleted " \
               f"above made (`import {ns} as _C`): proj/{pkg}/__init__.py:4\n" in proc.stdout, proc.stdout
    (tmp_path / "report.txt").write_text(proc.stdout)
    changed = subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "apply_python_deletions.py",
                              tmp_path / "report.txt", tmp_path], capture_output=True, text=True)
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert (tmp_path / "proj" / "b" / "__init__.py").read_text().splitlines()[1:4] == [
        "from torch import _C as torch_C", "if torch.cuda.is_available() or True:", "    import beta as _C"]


MEGABLOCKS_LIKE = """#include <torch/library.h>
#if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
TORCH_LIBRARY(mb, m) {
  m.def("histogram(Tensor x, int num_bins) -> Tensor");
  m.impl("histogram", torch::kCUDA, &histogram_cuda);
}
#elif defined(CPU_KERNEL)
TORCH_LIBRARY(mb, m) {
  m.def("moe_sum(Tensor input, Tensor! output) -> ()");
}
#endif
"""


def test_a_configuration_that_leaves_out_every_op_says_so(tmp_path):
    """kernels-community's megablocks registers every op under `#if defined(CUDA_KERNEL) || ...`: a configuration
    that names none of those macros reads nothing, and the error says where the defs are, not that no namespace
    is named."""
    (tmp_path / "binding.cpp").write_text(MEGABLOCKS_LIKE)
    proc = run_opgen("import", "-D", "TORCH_EXTENSION_NAME=mb", "binding.cpp", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("error: the configuration given (--define) leaves out every op the sources define: their 2 defs stand "
            "in #if branches it does not take (histogram (binding.cpp:4, under #if defined(CUDA_KERNEL) || "
            "defined(ROCM_KERNEL)); moe_sum (binding.cpp:9, under #elif defined(CPU_KERNEL)") in proc.stderr, proc.stderr
    assert not (tmp_path / "schemas").exists()
    proc = run_opgen("import", "-D", "TORCH_EXTENSION_NAME=mb", "-D", "CPU_KERNEL", "binding.cpp", cwd=tmp_path)
    assert proc.returncode == 0 and "1 ops imported" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("value, target", [("0x0209000000000000", None), ("0x020c000000000000ULL", "2.12"),
                                           ("0x020b000000000000", "2.11"), ("zz", "error"), ("0x", "error")])
def test_the_projects_stable_target_version_goes_to_its_sources_and_raises_the_librarys(tmp_path, value, target):
    """FlashAttention 3 builds with -DTORCH_TARGET_VERSION=0x0209000000000000: its sources compile so, and the
    library targets no older PyTorch than they do, nor than opgen's bindings can (2.10)."""
    (tmp_path / "binding.cpp").write_text('#include "ops.h"\n#include <torch/csrc/stable/library.h>\n'
                                          'STABLE_TORCH_LIBRARY(tv, m) {\n  m.def("op(Tensor x) -> Tensor");\n}\n'
                                          'namespace {\nvoid keep() {}\n}\n')
    proc = run_opgen("import", "-D", f"TORCH_TARGET_VERSION={value}", "binding.cpp", cwd=tmp_path)
    if target == "error":
        assert proc.returncode == 2 and "is not a version PyTorch reads" in proc.stderr, proc.stdout + proc.stderr
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cmake = next(line for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    assert (f" TORCH_TARGET_VERSION {target} " in cmake) if target else "TORCH_TARGET_VERSION" not in cmake, cmake
    assert (f"    set_source_files_properties(binding.cpp PROPERTIES COMPILE_DEFINITIONS "
            f"TORCH_TARGET_VERSION={value})\n") in proc.stdout, proc.stdout
    assert "target_compile_definitions" not in proc.stdout, proc.stdout


def test_a_header_an_op_keeps_is_not_called_left_out(tmp_path):
    """megablocks' bindings include kernel-builder's registration.h (not in the tree) and ops.h: the kernel ops.h
    declares takes ops.h alone, the one defined in the file itself keeps every include (registration.h might
    declare it), and the file's note said registration.h was left out, which held for one op only."""
    (tmp_path / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\nat::Tensor k1(const at::Tensor& x);\n")
    (tmp_path / "b.cpp").write_text(
        '#include <torch/library.h>\n#include "registration.h"\n#include "ops.h"\n'
        "at::Tensor k2(const at::Tensor& x) { return x; }\n"
        'TORCH_LIBRARY(keptinc, m) {\n  m.def("a(Tensor x) -> Tensor");\n  m.impl("a", c10::DispatchKey::CPU, &k1);\n'
        '  m.def("b(Tensor x) -> Tensor");\n  m.impl("b", c10::DispatchKey::CPU, &k2);\n}\n')
    proc = run_opgen("import", "b.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "  note: b.cpp: its kernels are declared in ops.h\n" in proc.stdout, proc.stdout
    assert 'include: "ops.h"' in (tmp_path / "schemas" / "a.yaml").read_text()
    assert 'include: ["registration.h", "ops.h"]' in (tmp_path / "schemas" / "b.yaml").read_text()


def test_a_python_module_init_goes_with_a_file_dropped_whole(tmp_path):
    (tmp_path / "binding.cpp").write_text('#include "ops.h"\nTORCH_LIBRARY(_C, m) {\n  m.def("op(Tensor x) -> Tensor");\n'
                                          '  m.impl("op", torch::kCPU, &op_cpu);\n}\nREGISTER_EXTENSION(_C)\n')
    proc = subprocess.run([os.environ["OPGEN_BIN"], "import", "binding.cpp"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "drop binding.cpp (nothing in it but those registrations)" in proc.stdout, proc.stdout
    assert "Python module's init" not in proc.stdout, proc.stdout


def test_headers_that_are_not_files_are_not_read(tmp_path):
    """A kernel header beside the binding that is a FIFO (reading it would
    hang) or a link to a device is passed over: the include is kept as written."""
    (tmp_path / "binding.cpp").write_text('#include "fifo.h"\n#include "zero.h"\nTORCH_LIBRARY(ns, m) {\n'
                                          '  m.def("op(Tensor x) -> Tensor");\n  m.impl("op", torch::kCPU, &op_cpu);\n}\n')
    os.mkfifo(tmp_path / "fifo.h")
    (tmp_path / "zero.h").symlink_to("/dev/zero")
    proc = subprocess.run([os.environ["OPGEN_BIN"], "import", "binding.cpp"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'include: ["fifo.h", "zero.h"]' in (tmp_path / "schemas" / "op.yaml").read_text()


SEVERAL_NAMESPACES = """#include <torch/library.h>
#include "ops.h"
TORCH_LIBRARY(_C, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
  m.impl("scale", torch::kCPU, &scale);
}
TORCH_LIBRARY(_C_cache_ops, m) {
  m.def("copy_blocks(Tensor x) -> Tensor");
  m.impl("copy_blocks", torch::kCPU, &copy_blocks);
}
#define DEFINE_OP(n) TORCH_LIBRARY_FRAGMENT(_C, m) { m.def("op" #n "(Tensor x) -> Tensor"); }
"""


def test_several_namespaces_import_in_one_run_each_into_its_directory(tmp_path):
    """vLLM's torch_bindings.cpp registers _C, _C_cache_ops, ... in one file (issue 34, item 3):
    one run imports each namespace as it is written, into schemas/<ns>/; --namespace picks one.
    A note on the sources (the macro) is said once, after the namespaces, not in each."""
    csrc = tmp_path / "csrc"
    csrc.mkdir()
    (csrc / "bindings.cpp").write_text(SEVERAL_NAMESPACES)
    (csrc / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                "at::Tensor scale(const at::Tensor& x, double a);\n"
                                "at::Tensor copy_blocks(const at::Tensor& x);\n")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the sources register 2 namespaces (_C, _C_cache_ops)" in proc.stdout, proc.stdout
    assert "another namespace" not in proc.stdout, proc.stdout
    assert proc.stdout.count("the macro DEFINE_OP registers ops") == 1, proc.stdout
    assert "opgen import: notes on the sources (every namespace):\n  note: csrc/bindings.cpp:11: the macro DEFINE_OP" \
        in proc.stdout, proc.stdout
    for ns, op in [("_C", "scale"), ("_C_cache_ops", "copy_blocks")]:
        spec = tmp_path / "schemas" / ns / f"{op}.yaml"
        assert spec.is_file(), proc.stdout
        assert f"# to write: python/{ns}/_fakes.py" in spec.read_text()
        assert (tmp_path / "python" / ns / "_fakes.py").is_file()
        assert f"opgen_add_library({ns}_ops NAMESPACE {ns} PYTHON_SOURCES python/{ns}/_fakes.py SCHEMAS schemas/{ns} " \
            in proc.stdout, proc.stdout
        check = run_opgen("check", "--namespace", ns, tmp_path / "schemas" / ns)
        assert check.returncode == 0, check.stderr
    picked = run_opgen("import", "--namespace", "_C", "--schemas-dir", "picked", "csrc", cwd=tmp_path)
    assert picked.returncode == 0, picked.stdout + picked.stderr
    assert sorted(p.name for p in (tmp_path / "picked").iterdir()) == ["scale.yaml"]
    assert "_C_cache_ops::copy_blocks (csrc/bindings.cpp:8): another namespace" in picked.stdout, picked.stdout


def test_each_namespace_of_one_run_is_a_library_with_its_own_package_and_include_path(tmp_path):
    """torch-harmonics' two extensions, disco_kernels and attention_kernels, each with its kernels' headers in its
    own directory: one run imports both. A package name given for both would be one package two libraries
    overwrite: refused, nothing written, each named instead (NS=PACKAGE); each library's include path is its own
    kernels' directories."""
    for ns in ("alpha", "beta"):
        (tmp_path / "csrc" / ns).mkdir(parents=True)
        (tmp_path / "csrc" / ns / "bind.cpp").write_text(
            f'#include <torch/library.h>\n#include "{ns}_ops.h"\nTORCH_LIBRARY({ns}, m) {{\n'
            f'  m.def("forward(Tensor x) -> Tensor");\n  m.impl("forward", torch::kCPU, &{ns}_forward);\n}}\n')
        (tmp_path / "csrc" / ns / f"{ns}_ops.h").write_text(
            f"#pragma once\n#include <ATen/core/Tensor.h>\nat::Tensor {ns}_forward(const at::Tensor& x);\n")
        (tmp_path / "csrc" / ns / f"{ns}_helper.cpp").write_text(f"int {ns}_helper() {{ return 1; }}\n")
    (tmp_path / "csrc" / "common.cpp").write_text("int common() { return 2; }\n")  # as near to both
    one = run_opgen("import", "--python-package", "proj_ops", "csrc", cwd=tmp_path)
    assert one.returncode == 1, one.stdout + one.stderr
    assert "error: --python-package proj_ops names one package for the 2 namespaces the sources register (alpha, " \
           "beta)" in one.stderr, one.stderr
    assert "note: name each, NS=PACKAGE: --python-package alpha=proj_ops_alpha --python-package beta=proj_ops_beta" \
        in one.stderr, one.stderr
    assert not (tmp_path / "schemas").exists()
    for args, error in [(["alpha=proj", "beta=proj"], "names proj for two namespaces, alpha and beta"),
                        (["gamma=proj"], "--python-package gamma=proj: this run imports no namespace 'gamma'"),
                        (["alpha=a", "alpha=b"], "--python-package names namespace 'alpha' twice"),
                        (["alpha="], "--python-package 'alpha=' names no package"),
                        ([""], "--python-package '' names no package")]:
        refused = run_opgen("import", *[a for p in args for a in ("--python-package", p)], "csrc", cwd=tmp_path)
        assert refused.returncode != 0 and error in refused.stderr, refused.stdout + refused.stderr
        assert not (tmp_path / "schemas").exists()
    named = run_opgen("import", "--python-package", "alpha=proj_alpha", "--python-package", "beta=proj_beta", "csrc",
                      cwd=tmp_path)
    assert named.returncode == 0, named.stdout + named.stderr
    for ns in ("alpha", "beta"):
        # The helper beside a library's own sources is built with it; the one as near to both is named in a note.
        assert f"opgen_add_library({ns}_ops NAMESPACE {ns} PYTHON_PACKAGE proj_{ns} PYTHON_SOURCES " \
               f"python/{ns}/_fakes.py SCHEMAS schemas/{ns} KERNELS csrc/{ns}/{ns}_helper.cpp <the kernels' sources>)\n" \
            in named.stdout, \
            named.stdout
        assert f"target_include_directories({ns}_ops PRIVATE csrc/{ns})\n" in named.stdout, named.stdout
        assert f"proj_{ns}._fakes:forward" in (tmp_path / "schemas" / ns / "forward.yaml").read_text()
    assert "note: 1 source given registers nothing (the kernels' helpers, kernels other files register), as near to " \
           "one library's sources as to another's: each library's KERNELS takes those its kernels call, as the " \
           "project's build of it does: csrc/common.cpp\n" in named.stdout, named.stdout
    picked = run_opgen("import", "--namespace", "beta", "--python-package", "beta=proj_beta", "--schemas-dir", "picked",
                       "csrc", cwd=tmp_path)
    assert picked.returncode == 0, picked.stdout + picked.stderr
    assert "opgen_add_library(beta_ops NAMESPACE beta PYTHON_PACKAGE proj_beta" in picked.stdout, picked.stdout


# As vLLM writes them (csrc/torch_bindings.cpp, with core/registration.h): the namespaces are macros the
# build defines (TORCH_EXTENSION_NAME=_C) and pastes (CONCAT).
MACRO_NAMESPACES = """#include <torch/library.h>
#include "core/registration.h"
#include "ops.h"
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("scale(Tensor x, float a) -> Tensor");
  ops.impl("scale", torch::kCPU, &scale);
}
TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), cache_ops) {
  cache_ops.def("copy_blocks(Tensor x) -> Tensor");
  cache_ops.impl("copy_blocks", torch::kCPU, &copy_blocks);
}
REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
"""


def test_namespaces_a_macro_spells_are_read_in_the_builds_configuration(tmp_path):
    """vLLM's blocks name their namespaces with TORCH_EXTENSION_NAME and CONCAT(TORCH_EXTENSION_NAME,
    _cache_ops) (issue 34, items 1 and 3): with the build's -D TORCH_EXTENSION_NAME=_C import reads them
    as the build does, _C and _C_cache_ops, in one run; without it, it says which macro to give."""
    csrc = tmp_path / "csrc"
    csrc.mkdir()
    (csrc / "bindings.cpp").write_text(MACRO_NAMESPACES)
    (csrc / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                "at::Tensor scale(const at::Tensor& x, double a);\n"
                                "at::Tensor copy_blocks(const at::Tensor& x);\n")
    refused = run_opgen("import", "csrc/bindings.cpp", cwd=tmp_path)
    assert refused.returncode == 1 and not (tmp_path / "schemas").exists()
    assert "csrc/bindings.cpp:4 ('TORCH_EXTENSION_NAME')" in refused.stderr, refused.stderr
    assert "-D TORCH_EXTENSION_NAME=<name>" in refused.stderr, refused.stderr
    proc = run_opgen("import", "-D", "TORCH_EXTENSION_NAME=_C", "csrc/bindings.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the sources register 2 namespaces (_C, _C_cache_ops)" in proc.stdout, proc.stdout
    for ns, op in [("_C", "scale"), ("_C_cache_ops", "copy_blocks")]:
        spec = (tmp_path / "schemas" / ns / f"{op}.yaml").read_text()
        assert f'CPU: "{op}"' in spec, spec
        check = run_opgen("check", "--namespace", ns, tmp_path / "schemas" / ns)
        assert check.returncode == 0, check.stderr


def test_namespace_moves_a_schema_that_names_its_own(tmp_path):
    """pyg-lib writes m.def(TORCH_SELECTIVE_SCHEMA("pyg::scatter_sum(...)")): imported into another
    namespace, the spec's schema loses the prefix (the library supplies it; E0303 otherwise)."""
    proc, project = import_file(tmp_path, "pyg_lib/csrc/ops/scatter.cpp", "mypyg")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    spec = project / "schemas" / "scatter_sum.yaml"
    assert 'schema: "scatter_sum(Tensor src, Tensor index, int dim=-1, ' in spec.read_text(), proc.stdout
    assert "dispatch: []" in spec.read_text()  # its impls are in other files of the project
    check = run_opgen("check", "--namespace", "mypyg", spec)
    assert check.returncode == 0, check.stderr


KERNELS_IN_NAMESPACES = """#include <torch/library.h>
#include "ops.h"
namespace myproj {
namespace ops {
TORCH_LIBRARY(mylib, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
  m.impl("scale", torch::kCPU, &scale);
  m.def("shift(Tensor x) -> Tensor");
  m.impl("shift", torch::kCPU, &::shift);
}
}  // namespace ops
}  // namespace myproj
namespace {
at::Tensor hidden(const at::Tensor& x) { return x; }
TORCH_LIBRARY_FRAGMENT(mylib, m) {
  m.def("hidden(Tensor x) -> Tensor");
  m.impl("hidden", torch::kCPU, &hidden);
}
}  // namespace
namespace myproj {
namespace {
at::Tensor anon_kernel(const at::Tensor& x) { return x; }
}  // namespace
static at::Tensor static_kernel(const at::Tensor& x) { return x; }
TORCH_LIBRARY_IMPL(mylib, CPU, m) {
  m.impl("anon", &anon_kernel);
  m.impl("stat", TORCH_FN(static_kernel));
}
TORCH_LIBRARY_FRAGMENT(mylib, m) {
  m.def("anon(Tensor x) -> Tensor");
  m.def("stat(Tensor x) -> Tensor");
}
}  // namespace myproj
"""


def test_kernels_registered_inside_namespaces_are_named_as_the_bindings_must_call_them(tmp_path):
    """A block inside `namespace myproj::ops` names its kernel unqualified (issue 34, item 4):
    the spec names myproj::ops::scale, and the generated bindings compile against the
    project's header. A kernel with internal linkage (registered in an anonymous namespace,
    declared in one, or `static`, with its block outside, as pyg-lib writes them) cannot be
    called from the bindings: its impl stays in the project's build and the op is imported
    (item 2), and the report says which registrations the build must drop."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "bindings.cpp").write_text(KERNELS_IN_NAMESPACES)
    (tmp_path / "csrc" / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                             "namespace myproj::ops { at::Tensor scale(const at::Tensor& x, double a); }\n"
                                             "at::Tensor shift(const at::Tensor& x);\n")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'CPU: "myproj::ops::scale"' in (tmp_path / "schemas" / "scale.yaml").read_text()
    assert 'CPU: "::shift"' in (tmp_path / "schemas" / "shift.yaml").read_text()
    assert "5 ops imported" in proc.stdout, proc.stdout
    for op, why in [("hidden", "an anonymous namespace, csrc/bindings.cpp:14"),
                    ("anon", "an anonymous namespace, csrc/bindings.cpp:22"),
                    ("stat", "'static', csrc/bindings.cpp:24")]:
        spec = (tmp_path / "schemas" / f"{op}.yaml").read_text()
        assert "dispatch: []  # its kernels are the impls kept in the project's build" in spec, spec
        assert f"has internal linkage: {why})" in spec, spec
        assert "A kernel with internal linkage stays registered by the project" in spec
    # What the build drops: the first block whole, the def of the second (its impl stays), the last
    # block whole; the file stays for its kept impls.
    assert "csrc/bindings.cpp:5-10: delete the block TORCH_LIBRARY(mylib,m) (the rest" in proc.stdout, proc.stdout
    assert ("csrc/bindings.cpp:15-18: in the block TORCH_LIBRARY_FRAGMENT(mylib,m), delete the registrations of "
            "hidden but not its kept impls: line 16 (the rest") in proc.stdout
    assert "csrc/bindings.cpp:25-28: delete the block TORCH_LIBRARY_IMPL" not in proc.stdout
    assert "csrc/bindings.cpp:29-32: delete the block TORCH_LIBRARY_FRAGMENT(mylib,m)" in proc.stdout
    assert "KERNELS csrc/bindings.cpp <the kernels' sources>)" in proc.stdout
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", "mylib", "--shards", "1", "-o", out,
                         tmp_path / "schemas" / "scale.yaml", tmp_path / "schemas" / "shift.yaml")
    assert generate.returncode == 0, generate.stderr
    torch_dir = os.path.dirname(torch.__file__)
    result = subprocess.run(
        ["c++", "-std=c++20", "-fsyntax-only", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{out / 'include'}",
         f"-I{tmp_path / 'csrc'}", "-isystem", f"{torch_dir}/include", "-isystem",
         f"{torch_dir}/include/torch/csrc/api/include", "-isystem", sysconfig.get_paths()["include"],
         str(out / "csrc" / "mylib-unstable-shard0.cpp")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


INFER_HEADER = """#pragma once
#include <ATen/core/Tensor.h>
#include <optional>
#include <tuple>
#include <vector>
#include <string>
namespace myproj {
using handle_t = int64_t;
at::Tensor scale(const at::Tensor& x, double alpha);
std::tuple<at::Tensor, at::Tensor> split2(const at::Tensor& x, int64_t dim, bool keep);
void touch(at::Tensor& out, const std::optional<at::Tensor>& maybe, std::vector<int64_t> sizes, c10::string_view mode);
std::tuple<at::Tensor, std::vector<int64_t>> meta(handle_t h, const std::vector<std::string>& names);
at::Tensor nested(const at::Tensor& x, const std::vector<std::vector<handle_t>>& rows, c10::List<int64_t> flat,
                  at::ArrayRef<double> scales);
}  // namespace myproj
"""
INFER_BINDINGS = """#include <torch/library.h>
#include "ops.h"
namespace myproj {
TORCH_LIBRARY(infer, m) {
  m.def("scale", &scale);
  m.def("split2", &split2);
  m.def("touch", &touch);
  m.def("meta", &meta);
  m.def("nested", &nested);
}
}  // namespace myproj
"""
INFER_KERNELS = """#include "ops.h"
#include <ATen/ATen.h>
namespace myproj {
at::Tensor scale(const at::Tensor& x, double) { return x; }
std::tuple<at::Tensor, at::Tensor> split2(const at::Tensor& x, int64_t, bool) { return {x, x}; }
void touch(at::Tensor&, const std::optional<at::Tensor>&, std::vector<int64_t>, c10::string_view) {}
std::tuple<at::Tensor, std::vector<int64_t>> meta(handle_t, const std::vector<std::string>&) { return {}; }
// Every value it is given, in order, after x's: what arrived, and how it was nested.
at::Tensor nested(const at::Tensor& x, const std::vector<std::vector<handle_t>>& rows, c10::List<int64_t> flat,
                  at::ArrayRef<double> scales) {
  std::vector<double> seen(x.data_ptr<double>(), x.data_ptr<double>() + x.numel());
  for (const auto& row : rows) {
    seen.push_back(-1);
    for (auto v : row) seen.push_back(v);
  }
  for (int64_t v : flat) seen.push_back(v);
  for (double v : scales) seen.push_back(v);
  return at::tensor(seen, at::kDouble);
}
}  // namespace myproj
"""


def test_a_schema_pytorch_infers_from_cpp_is_the_one_import_writes(tmp_path):
    OPS = ("scale", "split2", "touch", "meta", "nested")
    """m.def("name", &fn) registers no schema: PyTorch infers it from fn's C++ signature,
    naming arguments and results _0, _1, ... (issue 34, item 7). Import reads fn's declaration
    and maps its types back through the type table (through `using` aliases, as sglang's fptr_t);
    the spec's schema is, exactly, the one the project's own build registers in torch (built
    here and loaded)."""
    csrc = tmp_path / "csrc"
    csrc.mkdir()
    (csrc / "ops.h").write_text(INFER_HEADER)
    (csrc / "bindings.cpp").write_text(INFER_BINDINGS)
    (csrc / "kernels.cpp").write_text(INFER_KERNELS)
    proc = run_opgen("import", "csrc/bindings.cpp", cwd=tmp_path)
    assert proc.returncode == 0 and "5 ops imported" in proc.stdout, proc.stdout + proc.stderr
    written = {}
    for op in OPS:
        spec = (tmp_path / "schemas" / f"{op}.yaml").read_text()
        written[op] = "infer::" + re.search(r'^schema: "(.*)"$', spec, re.M)[1]
        assert f'CompositeImplicitAutograd: "myproj::{op}"' in spec, spec
    check = run_opgen("check", "--namespace", "infer", tmp_path / "schemas")
    assert check.returncode == 0, check.stderr
    torch_dir = os.path.dirname(torch.__file__)
    library = tmp_path / "libinfer.so"
    build = subprocess.run(
        ["c++", "-shared", "-fPIC", "-std=c++20", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{csrc}", "-isystem",
         f"{torch_dir}/include", "-isystem", f"{torch_dir}/include/torch/csrc/api/include", str(csrc / "bindings.cpp"),
         str(csrc / "kernels.cpp"), f"-L{torch_dir}/lib", "-ltorch", "-ltorch_cpu", "-lc10", "-o", str(library)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    code = ("import sys, torch; torch.ops.load_library(sys.argv[1])\n"
            f"for op in {OPS!r}: print(getattr(torch.ops.infer, op).default._schema)\n"
            "print(torch.ops.infer.nested(torch.tensor([0.5], dtype=torch.float64), [[1, 2], [], [3]], [4, 5], [0.25]).tolist())\n")
    registered = subprocess.run([sys.executable, "-c", code, str(library)], capture_output=True, text=True)
    assert registered.returncode == 0, registered.stderr[-3000:]
    assert registered.stdout.split("\n")[:len(OPS)] == [written[op] for op in OPS], (registered.stdout, written)
    assert "infer::nested(Tensor _0, int[][] _1, int[] _2, float[] _3) -> Tensor _0" in registered.stdout
    nested = registered.stdout.split("\n")[len(OPS)]
    # The same op through opgen's bindings: the generated adapter hands the kernel the int[][] (a
    # c10::List of c10::Lists) as its std::vector of vectors, element by element.
    out = tmp_path / "out"
    generate = run_opgen("generate", "--namespace", "infer", "--shards", "1", "-o", out, tmp_path / "schemas")
    assert generate.returncode == 0, generate.stderr
    imported = tmp_path / "libinfer_opgen.so"
    build = subprocess.run(
        ["c++", "-shared", "-fPIC", "-std=c++20", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-I{out / 'include'}", f"-I{csrc}",
         "-isystem", f"{torch_dir}/include", "-isystem", f"{torch_dir}/include/torch/csrc/api/include",
         str(out / "csrc" / "infer-unstable-shard0.cpp"), str(csrc / "kernels.cpp"), f"-L{torch_dir}/lib", "-ltorch",
         "-ltorch_cpu", "-lc10", "-o", str(imported)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    called = subprocess.run([sys.executable, "-c", code, str(imported)], capture_output=True, text=True)
    assert called.returncode == 0, called.stderr[-3000:]
    assert called.stdout.split("\n")[len(OPS)] == nested == "[0.5, -1.0, 1.0, 2.0, -1.0, -1.0, 3.0, 4.0, 5.0, 0.25]"


CUSTOM_OP_FILES = {"flash_attn/flash_attn_interface.py": None,
                   "transformer_engine/pytorch/attention/custom_ops.py": "te_kv_cache"}


def custom_op_schemas(source):
    """op name -> the schema torch.library.infer_schema gives each custom_op function of `source`: the
    function's signature (type hints, defaults) rebuilt from its AST with an empty body, its mutates_args
    from the decorator, inferred by PyTorch itself."""
    import typing

    schemas = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant)
                    and "::" in str(decorator.args[0].value)):
                continue
            keywords = {k.arg: k.value for k in decorator.keywords}
            if "mutates_args" not in keywords:
                continue  # a register_fake(...), not a custom_op
            stub = ast.FunctionDef(name=node.name, args=node.args, body=[ast.Pass()], decorator_list=[],
                                   returns=node.returns, type_params=[])
            module = ast.fix_missing_locations(ast.Module(body=[stub], type_ignores=[]))
            scope = {"torch": torch, **{name: getattr(typing, name) for name in typing.__all__}}
            exec(compile(module, "<stub>", "exec"), scope)
            mutates = ast.literal_eval(keywords["mutates_args"])
            schemas[decorator.args[0].value.split("::")[1]] = torch.library.infer_schema(scope[node.name],
                                                                                          mutates_args=mutates)
    return schemas


@pytest.mark.parametrize("path", CUSTOM_OP_FILES)
def test_a_schema_custom_op_infers_from_type_hints_is_the_one_import_writes(tmp_path, path):
    """custom_op defines its op with the schema torch.library.infer_schema makes of the function's type hints:
    import reads the same hints and writes the same schema (compared as PyTorch parses both)."""
    proc, project = import_file(tmp_path, path, CUSTOM_OP_FILES[path])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = custom_op_schemas((SOURCES / MANIFEST[path]["file"]).read_text())
    written = {}
    for spec in (project / "schemas").rglob("*.yaml"):
        text = spec.read_text()
        if "custom_op infers from the type hints" in text:
            written[spec.stem] = json.loads(re.search(r'^schema: (".*")$', text, re.M)[1])
    assert written and set(written) <= set(expected), (sorted(written), sorted(expected))
    for name, schema in written.items():
        assert torch._C.parse_schema(f"ns::{schema}") == torch._C.parse_schema(f"ns::{name}{expected[name]}"), name


HINTED = """\
from typing import List, Optional, Sequence, Tuple, Union

import torch


@torch.library.custom_op("hinted::every_kind", mutates_args=("out", "outs"), device_types=("cpu", "cuda"))
def every_kind(x: torch.Tensor, out: torch.Tensor, outs: Sequence[torch.Tensor], maybe: Optional[torch.Tensor],
               maybes: List[Optional[torch.Tensor]], n: int, ns: Sequence[int], maybe_ns: Optional[List[int]],
               f: float, fs: list[float], b: bool, s: str, number: torch.types.Number, dt: torch.dtype,
               dev: torch.device, u: Union[int, None], pipe: torch.Tensor | None = None, eps: float = 1e-6,
               k: int = -2, big: float = 2.5E+3, flag: bool = True, name: str = "a b",
               cast: torch.dtype = torch.float32, *, only: int = 3) -> Tuple[torch.Tensor, List[torch.Tensor], int]:
    pass


@torch.library.custom_op("hinted::nothing", mutates_args="unknown")
def nothing(x: torch.Tensor, y: Optional[torch.Tensor]) -> None:
    pass
"""


def test_every_type_hint_custom_op_maps_is_read_as_it_maps_it(tmp_path):
    """Every type infer_schema maps (and its containers), defaults, keyword-only arguments, mutates_args
    as names and as 'unknown': the schema import writes is the one torch.library.infer_schema makes."""
    (tmp_path / "hinted.py").write_text(HINTED)
    proc = run_opgen("import", "hinted.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = custom_op_schemas(HINTED)
    for name in ("every_kind", "nothing"):
        spec = next((tmp_path / "schemas").glob(f"{name}.yaml*")).read_text()
        written = json.loads(re.search(r'^schema: (".*")$', spec, re.M)[1])
        assert torch._C.parse_schema(f"ns::{written}") == torch._C.parse_schema(f"ns::{name}{expected[name]}"), \
            (written, expected[name])


def test_include_dirs_are_searched_as_the_build_searches_them(tmp_path):
    """sglang's binding file includes "sgl_kernel_ops.h", which the build finds through -I
    sgl-kernel/include: with --include-dir import reads it there too, so the kernels' header is
    named, its directory printed for the build, and the schemas of the ops defined without one
    inferred from their declarations (fptr_t through its `using`)."""
    proc, project = import_file(tmp_path, "sgl-kernel/csrc/common_extension.cc", None)
    assert "88 ops imported" in proc.stdout, proc.stdout
    include = project / "sgl-kernel" / "include"
    include.mkdir()
    for header in ("sgl-kernel/include/sgl_kernel_ops.h", "sgl-kernel/include/scalar_type.hpp"):
        shutil.copy(SOURCES / MANIFEST[header]["file"], include / Path(header).name)
    shutil.rmtree(project / "schemas")
    shutil.rmtree(project / "python")
    proc = run_opgen("import", "-I", "sgl-kernel/include", "sgl-kernel/csrc/common_extension.cc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "92 ops imported" in proc.stdout and "3 ops need a person" in proc.stdout, proc.stdout
    assert "target_include_directories(sgl_kernel_ops PRIVATE sgl-kernel/include)" in proc.stdout, proc.stdout
    spec = (project / "schemas" / "dispose.yaml").read_text()
    assert 'schema: "dispose(int _0) -> ()"' in spec and 'CompositeImplicitAutograd: "dispose"' in spec, spec
    # Three functions the header declares twice, for ROCm and for CUDA: which one PyTorch infers from is
    # the build's choice, and without a configuration import reads both.
    assert ("no schema: PyTorch infers it from the C++ signature of register_buffer, which is declared with other "
            "types at sgl-kernel/include/sgl_kernel_ops.h:67 and at sgl-kernel/include/sgl_kernel_ops.h:89") \
        in proc.stdout, proc.stdout
    shutil.rmtree(project / "schemas")
    shutil.rmtree(project / "python")
    proc = run_opgen("import", "-I", "sgl-kernel/include", "-D", "NDEBUG", "sgl-kernel/csrc/common_extension.cc",
                     cwd=project)
    assert "95 ops imported" in proc.stdout and "need a person" not in proc.stdout, proc.stdout
    # Lists of lists by structure, as c10 infers them (sglang's std::vector<std::vector<int64_t>>).
    spec = (project / "schemas" / "register_graph_buffers.yaml").read_text()
    assert 'schema: "register_graph_buffers(int _0, int[][] _1, int[][] _2) -> ()"' in spec, spec


META_REGISTRATIONS = '''import functools

import torch
import torch.library


@functools.lru_cache(None)
def get_meta_lib():
    return torch.library.Library("mytv", "IMPL", "Meta")


def register_meta(op_name, overload_name="default"):
    def wrapper(fn):
        get_meta_lib().impl(getattr(getattr(torch.ops.mytv, op_name), overload_name), fn)
        return fn

    return wrapper


@register_meta("roi_align")
def meta_roi_align(input, rois, scale):
    return input.new_empty((rois.size(0), input.size(1)))


@register_meta("nms")
def meta_nms(dets, scores, iou):
    return torch.empty(dets.size(0), dtype=torch.long, device="meta")


@torch.library.register_fake("mytv::box_area")
def fake_box_area(boxes):
    return torch.empty(boxes.size(0), device="meta")
'''


def test_fakes_behind_the_projects_own_decorator_are_found_and_meta_tensors_flagged(tmp_path):
    """torchvision registers its fakes as Meta kernels through its own decorator, register_meta,
    which wraps Library("torchvision", "IMPL", "Meta").impl (issue 34, item 5): import names them,
    and flags a Meta kernel that makes tensors on the meta device (as a fake its outputs would be
    meta tensors, which opcheck refuses)."""
    (tmp_path / "mytv" / "csrc").mkdir(parents=True)
    (tmp_path / "mytv" / "csrc" / "ops.cpp").write_text(
        '#include <torch/library.h>\n#include "ops.h"\nTORCH_LIBRARY(mytv, m) {\n'
        '  m.def("roi_align(Tensor input, Tensor rois, float scale) -> Tensor");\n'
        '  m.def("nms(Tensor dets, Tensor scores, float iou) -> Tensor");\n'
        '  m.def("box_area(Tensor boxes) -> Tensor");\n}\n'
        'TORCH_LIBRARY_IMPL(mytv, CPU, m) {\n  m.impl("roi_align", &roi_align_cpu);\n  m.impl("nms", &nms_cpu);\n'
        '  m.impl("box_area", &box_area_cpu);\n}\n')
    (tmp_path / "mytv" / "csrc" / "ops.h").write_text(
        "#pragma once\n#include <ATen/core/Tensor.h>\n"
        "at::Tensor roi_align_cpu(const at::Tensor& input, const at::Tensor& rois, double scale);\n"
        "at::Tensor nms_cpu(const at::Tensor& dets, const at::Tensor& scores, double iou);\n"
        "at::Tensor box_area_cpu(const at::Tensor& boxes);\n")
    (tmp_path / "mytv" / "_meta_registrations.py").write_text(META_REGISTRATIONS)
    proc = run_opgen("import", "mytv/csrc/ops.cpp", "mytv/_meta_registrations.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    roi = (tmp_path / "schemas" / "roi_align.yaml").read_text()
    assert 'fake: {python: "mytv._meta_registrations:meta_roi_align"}' in roi, roi
    assert "through its own decorator register_meta" in roi
    assert "its fake meta_nms (registered through register_meta) makes tensors on the meta device" in proc.stdout
    assert "its fake fake_box_area makes tensors on the meta device" in proc.stdout, proc.stdout
    assert (tmp_path / "schemas" / "nms.yaml.todo").is_file() and (tmp_path / "schemas" / "box_area.yaml.todo").is_file()
    check = run_opgen("check", "--namespace", "mytv", tmp_path / "schemas" / "roi_align.yaml")
    assert check.returncode == 0, check.stderr


def test_a_kernel_whose_declarations_take_another_number_of_parameters_is_said_before_the_build(tmp_path):
    """'Imported with their kernels as they are' must build (issue 34, item 4): the adapter calls
    each kernel with the schema's arguments, so a kernel declared with another number of
    parameters (here the schema has three, the header's scale two) is a need, with the
    declaration; an overload that fits, as for shift, is enough."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text(
        "#pragma once\n#include <ATen/core/Tensor.h>\n"
        "at::Tensor scale(const at::Tensor& x, double alpha);\n"
        "at::Tensor shift(const at::Tensor& x);\n"
        "at::Tensor shift(const at::Tensor& x, double by);\n")
    (tmp_path / "csrc" / "b.cpp").write_text(
        '#include <torch/library.h>\n#include "ops.h"\nTORCH_LIBRARY(ar, m) {\n'
        '  m.def("scale(Tensor x, float alpha, bool inplace) -> Tensor");\n'
        '  m.def("shift(Tensor x, float by) -> Tensor");\n}\n'
        'TORCH_LIBRARY_IMPL(ar, CPU, m) {\n  m.impl("scale", &scale);\n  m.impl("shift", &shift_fn);\n}\n')
    (tmp_path / "csrc" / "ops.h").write_text((tmp_path / "csrc" / "ops.h").read_text().replace("shift(", "shift_fn("))
    proc = run_opgen("import", "csrc/b.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("the CPU kernel scale takes another number of parameters than the schema's 3 arguments "
            "(csrc/ops.h:3 (2 parameters))") in proc.stdout, proc.stdout
    assert (tmp_path / "schemas" / "scale.yaml.todo").is_file()
    assert (tmp_path / "schemas" / "shift.yaml").is_file()


CUSTOM_OP_UNDERSCORE_FAKES = '''import torch


@torch.library.custom_op("uf::double_it", mutates_args=())
def double_it(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@double_it.register_fake
def _(x):
    return torch.empty_like(x)


def make_op():
    @torch.library.custom_op("uf::rows", mutates_args=())
    def rows(a: torch.Tensor, n: int) -> torch.Tensor:
        return a[:n].clone()

    @rows.register_fake
    def _(a, n):
        return a.new_empty(n, *a.shape[1:])

    return rows
'''


def test_a_custom_ops_own_fake_named_underscore_moves_too(tmp_path):
    """torchao registers its custom_ops' fakes as `@op.register_fake` on `def _`, some inside the function that
    makes the op: each moves into python/_fakes.py, dedented, under the op's name, as a `_` given to
    torch.library.register_fake does."""
    (tmp_path / "uf.py").write_text(CUSTOM_OP_UNDERSCORE_FAKES)
    proc = run_opgen("import", "uf.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported" in proc.stdout and "2 of them with their fake moved" in proc.stdout, proc.stdout
    fakes = (tmp_path / "python" / "_fakes.py").read_text()
    namespace = {}
    exec(compile(fakes, "_fakes.py", "exec"), namespace)
    x = torch.ones(5, 3)
    assert namespace["double_it"](x).shape == (5, 3)
    assert namespace["rows"](x, 2).shape == (2, 3)
    assert 'fake: {python: "uf._fakes:rows"}' in (tmp_path / "schemas" / "rows.yaml").read_text()


def test_fbgemm_op_dispatch_is_a_block_of_one_impl(tmp_path):
    """FBGEMM registers its CUDA kernels at file scope with FBGEMM_OP_DISPATCH(KEY, "name", fn), which its
    fbgemm_gpu/utils/ops_utils.h defines as a TORCH_LIBRARY_IMPL(fbgemm, KEY, m) block of one impl: each is
    read as such, in the namespace the macro names, and the report deletes it by its lines. An impl whose def
    is in no file given is said so (it used to be checked as a schema '(...) -> ...', E0305)."""
    csrc = tmp_path / "quantize_ops"
    csrc.mkdir()
    (csrc / "ops.h").write_text("#pragma once\n#include <ATen/core/Tensor.h>\n"
                                "namespace fbgemm_gpu { at::Tensor to_fp8(const at::Tensor& x); }\n")
    (csrc / "defs.cpp").write_text('#include <torch/library.h>\nTORCH_LIBRARY_FRAGMENT(fbgemm, m) {\n'
                                   '  m.def("ToFP8(Tensor x) -> Tensor");\n}\n')
    (csrc / "gpu.cpp").write_text('#include "ops.h"\n\nFBGEMM_OP_DISPATCH(\n    CUDA,\n    "ToFP8",\n'
                                  '    fbgemm_gpu::to_fp8);\nFBGEMM_OP_DISPATCH(CUDA, "Elsewhere", fbgemm_gpu::to_fp8);\n')
    proc = run_opgen("import", "quantize_ops", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ops imported as schemas/<op>.yaml, 1 of them with their kernels as they are" in proc.stdout, proc.stdout
    spec = (tmp_path / "schemas" / "ToFP8.yaml").read_text()
    assert 'dispatch: [CUDA]' in spec and 'CUDA: "fbgemm_gpu::to_fp8"' in spec, spec
    assert "no def of it in the sources given (read: its impl or fake at quantize_ops/gpu.cpp:7)" in proc.stdout
    assert ('quantize_ops/gpu.cpp:3-6: delete the block FBGEMM_OP_DISPATCH(CUDA,"ToFP8",fbgemm_gpu::to_fp8)'
            in proc.stdout), proc.stdout
    assert "drop quantize_ops/defs.cpp" in proc.stdout, proc.stdout


LEGACY_IMPLS = '''import torch
from torch import Tensor

lib = torch.library.Library("legacy", "FRAGMENT")
lib.define("mm(Tensor a, Tensor b) -> Tensor")
lib.define("scale(Tensor x, float s) -> Tensor")


@torch.library.impl(lib, "mm", "Meta")
def _(a: Tensor, b: Tensor):
    return torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=a.dtype)


@torch.library.impl(lib, "mm", "CUDA")
def mm_cuda(a, b):
    return a @ b


def scale_meta(x, s):
    return torch.empty_like(x)


def scale_cpu(x, s):
    return x * s


lib.impl("scale", scale_meta, "Meta")
lib.impl("scale", scale_cpu, "CPU")
'''


def test_impls_through_a_library_object_are_read(tmp_path):
    """torchao registers kernels with the legacy `@torch.library.impl(lib, "name", "KEY")` (a Library first), and
    projects call `lib.impl("name", fn, "KEY")`: a Meta kernel is the op's fake (the `_` one moves), the others
    stay where they are, registered against the spec's def."""
    (tmp_path / "legacy.py").write_text(LEGACY_IMPLS)
    proc = run_opgen("import", "legacy.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported" in proc.stdout and "1 of them with their fake moved" in proc.stdout, proc.stdout
    assert "mm: CUDA (legacy.py:14, impl of mm_cuda in Python)" in proc.stdout, proc.stdout
    assert "scale: CPU (legacy.py:28, impl of scale_cpu in Python)" in proc.stdout, proc.stdout
    assert 'fake: {python: "legacy:scale_meta"}' in (tmp_path / "schemas" / "scale.yaml").read_text()
    namespace = {}
    exec(compile((tmp_path / "python" / "_fakes.py").read_text(), "_fakes.py", "exec"), namespace)
    assert namespace["mm"](torch.ones(4, 3), torch.ones(3, 5)).shape == (4, 5)


def test_a_moved_fake_takes_its_modules_relative_and_conditional_imports_as_another_module_must(tmp_path):
    """A fake named `_` moves into python/_fakes.py with its module's imports: a relative one is made absolute
    (python/_fakes.py is in another package), and one under a top-level `if` or `try` (torchao's
    `if has_triton(): import triton`) binds its name where the import succeeds."""
    package = tmp_path / "proj" / "ops"
    package.mkdir(parents=True)
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "shapes.py").write_text("def rows(x):\n    return x.shape[0]\n")
    (package / "__init__.py").write_text("from .helpers import half\n")
    (package / "helpers.py").write_text("def half(n):\n    return n // 2\n")
    (package / "fakes.py").write_text('''import torch
from . import helpers
from .helpers import half
from ..shapes import rows
if hasattr(torch, "float8_e4m3fn"):
    import math
try:
    import no_such_module_here as missing
except ImportError:
    missing = None

lib = torch.library.Library("rel", "FRAGMENT")
lib.define("halve(Tensor x) -> Tensor")


@torch.library.register_fake("rel::halve")
def _(x):
    return x.new_empty(half(rows(x)) + helpers.half(math.floor(2.5)) - 1, x.shape[1])
''')
    proc = run_opgen("import", "proj/ops/fakes.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 of them with their fake moved" in proc.stdout, proc.stdout
    fakes = (tmp_path / "python" / "_fakes.py").read_text()
    assert "from proj.ops import helpers\n" in fakes and "from proj.ops.helpers import half\n" in fakes, fakes
    assert "from proj.shapes import rows\n" in fakes, fakes
    assert "try:  # imported under a condition in its module\n    import math\nexcept ImportError:\n" in fakes, fakes
    run = subprocess.run([sys.executable, "-c", "import sys, torch; sys.path.insert(0, 'python'); import _fakes; "
                          "print(tuple(_fakes.halve(torch.ones(8, 3)).shape))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "(4, 3)", run.stdout + run.stderr


def test_enum_aliases_and_parenthesized_template_kernels_are_read_as_the_compiler_reads_them(tmp_path):
    """torchvision registers its autocast kernels at `Autocast` (c10::DispatchKey's alias of AutocastCUDA,
    which c10's parser does not take) as `TORCH_FN((fn<KEY, DEVICE>))`: the parentheses keep the template's
    comma out of the macro. Import binds them at the key the alias stands for, the function as written."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text(
        "#pragma once\n#include <ATen/core/Tensor.h>\n#include <c10/core/DispatchKey.h>\n"
        "namespace proj {\nat::Tensor scale(const at::Tensor& x);\n"
        "template <c10::DispatchKey key, c10::DeviceType device> at::Tensor scale_autocast(const at::Tensor& x);\n}\n")
    (tmp_path / "csrc" / "binding.cpp").write_text("""#include <torch/library.h>
#include "ops.h"
namespace proj {
TORCH_LIBRARY(aliases, m) { m.def("scale(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(aliases, CPUTensorId, m) { m.impl("scale", &scale); }
TORCH_LIBRARY_IMPL(aliases, Autocast, m) {
  m.impl("scale", TORCH_FN((scale_autocast<
                                c10::DispatchKey::Autocast,
                                c10::DeviceType::CUDA>)));
}
}  // namespace proj
""")
    proc = run_opgen("import", "csrc/binding.cpp", cwd=tmp_path)
    assert proc.returncode == 0 and "1 ops imported" in proc.stdout, proc.stdout + proc.stderr
    spec = (tmp_path / "schemas" / "scale.yaml").read_text()
    assert "dispatch: [CPU, AutocastCUDA]" in spec, spec
    assert 'AutocastCUDA: "proj::scale_autocast<c10::DispatchKey::Autocast, c10::DeviceType::CUDA>"' in spec, spec


RETURNING_FAKES = '''\
import torch

lib = torch.library.Library("rf", "FRAGMENT")
lib.define("prepack(Tensor weight, Tensor scales) -> (Tensor, Tensor)")
lib.define("pack(Tensor weight) -> Tensor")
lib.define("view_of(Tensor(a) x) -> Tensor(a)")
lib.define("scaled(Tensor x, float s) -> Tensor")


@torch.library.register_fake("rf::prepack")
def _(weight, scales):
    return weight, scales


@torch.library.register_fake("rf::pack")
def pack_fake(weight: torch.Tensor) -> torch.Tensor:
    return (weight)


@torch.library.register_fake("rf::view_of")
def _(x):
    return x


@torch.library.register_fake("rf::scaled")
def _(x, s):
    x = x.clone()
    return torch.empty_like(x)
'''


def test_a_fake_that_returns_its_argument_is_flagged(tmp_path):
    """torchao's prepack fakes return their arguments (`return weight, scales`) while the kernels return new,
    blocked tensors: opcheck's fake test refuses the output that is an input, and torch.compile traces the
    argument's shape (both measured on torchao's own build, scripts/torchao_cpu). Import takes the fake as
    written and warns, naming the line; a view's fake (its result in the argument's alias set) returns it
    rightly, and a fake returning new tensors is not named."""
    (tmp_path / "rf").mkdir()
    (tmp_path / "rf" / "ops.py").write_text(RETURNING_FAKES)
    proc = run_opgen("import", "--python-package", "rf_ops", "rf/ops.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = RETURNING_FAKES.splitlines()
    at = [n for n, line in enumerate(lines, 1) if line.strip() in ("return weight, scales", "return (weight)")]
    assert "warning: 2 of them have a fake that returns its argument itself, taken as written" in proc.stdout, \
        proc.stdout
    assert f"prepack (rf/ops.py:{at[0]}: weight), pack (rf/ops.py:{at[1]}: weight)\n" in proc.stdout, proc.stdout
    pack = (tmp_path / "schemas" / "pack.yaml").read_text()
    assert 'fake: {python: "rf.ops:pack_fake"}' in pack, pack
    assert f"# To fix: the fake returns its argument itself (rf/ops.py:{at[1]}: weight)" in pack, pack
    for op in ("view_of", "scaled"):
        assert "To fix" not in (tmp_path / "schemas" / f"{op}.yaml").read_text()


def test_the_generated_package_is_not_named_as_the_projects_own(tmp_path):
    """torchvision's ops register into `torchvision`, torchvision/ being its Python package: a generated package
    named as the namespace would shadow it (issue 34). Import names it <ns>_ops, says why, and the spec, the
    generate line and the CMake line name it so; a package named with --python-package is kept, and a namespace
    that names no package of the sources keeps its name."""
    (tmp_path / "tv" / "csrc").mkdir(parents=True)
    (tmp_path / "tv" / "__init__.py").write_text("")
    (tmp_path / "tv" / "ops.py").write_text(
        'import torch\ntorch.library.define("tv::box_area", "(Tensor boxes) -> Tensor")\n\n\n'
        '@torch.library.register_fake("tv::box_area")\ndef _(boxes):\n    return boxes.new_empty(boxes.shape[0])\n')
    proc = run_opgen("import", "tv/ops.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("the generated Python package is tv_ops: tv is the project's own package, which one named tv would "
            "shadow (--python-package names another)") in proc.stdout, proc.stdout
    assert "--python-package tv_ops -o <dir> schemas" in proc.stdout, proc.stdout
    assert 'fake: {python: "tv_ops._fakes:box_area"}' in (tmp_path / "schemas" / "box_area.yaml").read_text()
    named = run_opgen("import", "--python-package", "mine", "--schemas-dir", "named", "--python-dir", "named",
                      "tv/ops.py", cwd=tmp_path)
    assert named.returncode == 0 and "shadow" not in named.stdout, named.stdout
    assert 'fake: {python: "mine._fakes:box_area"}' in (tmp_path / "named" / "box_area.yaml").read_text()
    (tmp_path / "tv" / "__init__.py").unlink()  # a directory, not a package: nothing to shadow
    plain = run_opgen("import", "--schemas-dir", "plain", "--python-dir", "plain", "tv/ops.py", cwd=tmp_path)
    assert plain.returncode == 0 and "shadow" not in plain.stdout, plain.stdout
    assert 'fake: {python: "tv._fakes:box_area"}' in (tmp_path / "plain" / "box_area.yaml").read_text()


def test_a_package_beside_the_bindings_is_not_shadowed_either(tmp_path):
    """kernel-builder's layout (deep-gemm): torch-ext/torch_binding.cpp registers into deep_gemm, whose Python
    package is torch-ext/deep_gemm/, beside the bindings, not above them."""
    (tmp_path / "torch-ext" / "dg").mkdir(parents=True)
    (tmp_path / "torch-ext" / "dg" / "__init__.py").write_text("")
    (tmp_path / "torch-ext" / "torch_binding.cpp").write_text(
        '#include <torch/library.h>\nTORCH_LIBRARY(dg, m) {\n  m.def("get_num_sms() -> int");\n}\n')
    proc = run_opgen("import", "torch-ext/torch_binding.cpp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("the generated Python package is dg_ops: torch-ext/dg is the project's own package, which one named dg "
            "would shadow") in proc.stdout, proc.stdout


def test_ops_registered_through_a_helper_import_cannot_see_are_named_not_passed_over(tmp_path):
    """vLLM's and SGLang's `direct_register_custom_op` (infer_schema, define, impl and _register_fake in one call):
    where the file that defines it is not among the sources, its Library (the namespace) is unknown; each call is
    then named in a note, also where nothing else was found, not passed over in silence (test_import_custom_op.py
    switches a project whose helper is given)."""
    (tmp_path / "layer.py").write_text('''\
import torch
from vllm.utils.torch_utils import direct_register_custom_op


def unified_attention(query: torch.Tensor, layer_name: str) -> torch.Tensor:
    return query


def direct_register_custom_op_like(op_name, op_func):  # another function: not a call of the helper
    pass


direct_register_custom_op(op_name="unified_attention", op_func=unified_attention)
direct_register_custom_op("maybe_calc_kv_scales", unified_attention, ["query"])
direct_register_custom_op(NAME + "\\x00" * 3, unified_attention)
''')
    proc = run_opgen("import", "layer.py", cwd=tmp_path)
    assert proc.returncode == 1 and "no namespace is named in the sources" in proc.stderr + proc.stdout
    said = proc.stdout + proc.stderr
    unseen = ("whose definition is not among the sources: give the file that defines direct_register_custom_op (its "
              "Library names the namespace)")
    for line, what, why in ((13, "the op 'unified_attention'", unseen), (14, "the op 'maybe_calc_kv_scales'", unseen),
                            (15, "an op", "its name one the module computes")):
        assert (f"note: layer.py:{line}: direct_register_custom_op(...) registers {what} through the project's own "
                f"helper, {why}: not imported") in said, said
    assert said.count("direct_register_custom_op(...)") == 3, said
