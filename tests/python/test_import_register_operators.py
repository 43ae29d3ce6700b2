"""c10's legacy registration API (issue 34, item 3: every registration style a project writes), which
torch_scatter, torch_sparse, torch_cluster and torchvision before 0.8 register with:

    static auto registry = torch::RegisterOperators()
        .op("legacy::scale", &scale)                       // the schema inferred from scale's signature
        .op("legacy::shift(Tensor x, float by) -> Tensor", &shift);

Each `.op` is a def with a catch-all kernel (CompositeImplicitAutograd); the constructor form, the options form
(`RegisterOperators::options().schema(...).kernel<decltype(f), &f>(DispatchKey::CPU)`) and a lambda that only
forwards to a function (`[] { return legacy::version(); }`, as torch_scatter registers cuda_version) are read too.
The project's own build registers the schemas the specs hold, and the library built from them and the kept files
gives the same results. Needs the built tool: run through CTest.
"""

import os
import subprocess
import sys

import torch

from cli_helpers import build_projects_own_library, build_with_opgen, requires_opgen, run_opgen
from test_import_kept_impls import apply_report_deletions, write_reported_cmake

pytestmark = requires_opgen

OPS_H = """#pragma once
#include <ATen/core/Dict.h>
#include <ATen/core/Tensor.h>
#include <optional>
#include <tuple>
namespace legacy {
int64_t version();
}
at::Tensor scale(const at::Tensor& x, double factor, std::optional<int64_t> times);
at::Tensor shift(at::Tensor x, double by);
std::tuple<at::Tensor, at::Tensor> split(const at::Tensor& x, int64_t at);
at::Tensor keyed_cpu(const at::Tensor& x);
at::Tensor single(const at::Tensor& x);
at::Tensor plain2(const at::Tensor& x);
at::Tensor repeat(const at::Tensor& x, int64_t n);
// torch_sparse's heterogeneous samplers' types, through its typedefs.
typedef std::string rel_t;
typedef std::tuple<std::string, std::string, std::string> edge_t;
c10::Dict<rel_t, at::Tensor> by_type(const std::vector<edge_t>& types, const c10::Dict<rel_t, at::Tensor>& x);
"""

# The kernels, and beside them (as torch_scatter defines its autograd wrappers beside its registrations) the
# statements that register them.
BINDING = """#include <torch/script.h>
#include "ops.h"

namespace legacy {
int64_t version() { return 7; }
}
at::Tensor scale(const at::Tensor& x, double factor, std::optional<int64_t> times) {
  return x * (factor * static_cast<double>(times.value_or(1)));
}
at::Tensor shift(at::Tensor x, double by) { return x + by; }
std::tuple<at::Tensor, at::Tensor> split(const at::Tensor& x, int64_t at) {
  return {x.narrow(0, 0, at).clone(), x.narrow(0, at, x.size(0) - at).clone()};
}
at::Tensor keyed_cpu(const at::Tensor& x) { return x.neg(); }
at::Tensor single(const at::Tensor& x) { return x.square(); }
at::Tensor plain2(const at::Tensor& x) { return x * 2; }
at::Tensor repeat(const at::Tensor& x, int64_t n) { return x.repeat({n}); }
c10::Dict<rel_t, at::Tensor> by_type(const std::vector<edge_t>& types, const c10::Dict<rel_t, at::Tensor>& x) {
  c10::Dict<rel_t, at::Tensor> out;
  for (const auto& [src, rel, dst] : types) {
    const rel_t key = src + "__" + rel + "__" + dst;
    if (x.contains(key)) out.insert(key, x.at(key) * 2);
  }
  return out;
}

static auto registry = torch::RegisterOperators()
                           .op("legacy::scale", &scale)
                           .op("legacy::shift(Tensor x, float by) -> Tensor", &shift)
                           .op("legacy::split", &split)
                           .op("legacy::repeat", [](const at::Tensor& x, int64_t n) { return repeat(x, n); })
                           .op("legacy::by_type", &by_type);

static auto version_registry = torch::RegisterOperators().op(
    "legacy::version", [] { return legacy::version(); });

static auto keyed_registry = c10::RegisterOperators().op(
    c10::RegisterOperators::options()
        .schema("legacy::keyed(Tensor x) -> Tensor")
        .kernel<decltype(keyed_cpu), &keyed_cpu>(c10::DispatchKey::CPU));

static auto single_registry = torch::RegisterOperators("legacy::single", &single);

static auto mixed = torch::RegisterOperators()
    .op("legacy::plain2", &plain2)
    .op("legacy::odd(Tensor x) -> Tensor", [](const at::Tensor& x) { return x * 3; });
"""

CALLS = """
import sys, torch
L = torch.ops.legacy
x = torch.arange(5, dtype=torch.float32)
for name in ("scale", "shift", "split", "repeat", "by_type", "version", "keyed", "single", "plain2", "odd"):
    print(getattr(L, name).default._schema)
print(L.scale(x, 1.5, 2).tolist(), L.scale(x, 0.5, None).tolist(), L.shift(x, 2.0).tolist(),
      [t.tolist() for t in L.split(x, 2)], L.repeat(x[:2], 3).tolist(), L.version(), L.keyed(x).tolist(),
      L.single(x).tolist(), L.plain2(x).tolist(), L.odd(x).tolist(),
      {k: v.tolist() for k, v in L.by_type([("a", "to", "b"), ("b", "to", "c")], {"a__to__b": x, "z__to__z": x}).items()})
"""


def test_register_operators_statements_import_with_the_schemas_torch_infers_and_run(tmp_path):
    project = tmp_path / "project"
    (project / "csrc").mkdir(parents=True)
    (project / "csrc" / "ops.h").write_text(OPS_H)
    (project / "csrc" / "binding.cpp").write_text(BINDING)
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "9 ops imported" in proc.stdout and "9 of them with their kernels as they are" in proc.stdout, proc.stdout
    # The lambda that computes is no function to bind: its def cannot be split from it.
    assert ("csrc/binding.cpp:46: the def's kernel is '[](const at::Tensor&x){return x*3;}', not a plain function"
            in proc.stdout), proc.stdout
    specs = project / "schemas"
    assert 'CompositeImplicitAutograd: "legacy::version"' in (specs / "version.yaml").read_text()
    assert 'CPU: "keyed_cpu"' in (specs / "keyed.yaml").read_text()
    assert 'schema: "repeat(Tensor _0, int _1) -> Tensor _0"' in (specs / "repeat.yaml").read_text()
    assert ('schema: "by_type((str, str, str)[] _0, Dict(str, Tensor) _1) -> Dict(str, Tensor) _0"'
            in (specs / "by_type.yaml").read_text())
    # Every statement goes whole, but the last, whose first registration goes and whose lambda's stays.
    for lines, head in (("27-32", "static auto registry=torch::RegisterOperators()"),
                        ("34-35", "static auto version_registry=torch::RegisterOperators()"),
                        ("37-40", "static auto keyed_registry=c10::RegisterOperators()"),
                        ("42", "static auto single_registry=torch::RegisterOperators(\"legacy::single\",&single)")):
        assert f"csrc/binding.cpp:{lines}: delete the block {head}" in proc.stdout, proc.stdout
    assert ("csrc/binding.cpp:44-46: in the block static auto mixed=torch::RegisterOperators(), delete the "
            "registrations of plain2: line 45") in proc.stdout, proc.stdout

    # The project's own library, built as it is, registers the schemas the specs hold (as PyTorch parses both).
    own = build_projects_own_library(project, tmp_path / "own", "legacy_own",
                                     "add_library(legacy_own SHARED csrc/binding.cpp)", include_dirs="csrc")
    before = subprocess.run([sys.executable, "-c", "import sys, torch; torch.ops.load_library(sys.argv[1])\n" + CALLS,
                             str(own / "liblegacy_own.so")], capture_output=True, text=True)
    assert before.returncode == 0, before.stderr[-3000:]
    schemas = before.stdout.splitlines()[:9]
    for registered in schemas:
        name = registered.split("::")[1].split("(")[0]
        written = (specs / f"{name}.yaml").read_text().split('schema: "')[1].split('"')[0]
        assert registered == (written if written.startswith("legacy::") else "legacy::" + written), written

    # The library from the specs, with binding.cpp as the report leaves it: the same results.
    apply_report_deletions(proc.stdout, project, tmp_path)
    cmake = next(line.strip() for line in proc.stdout.splitlines() if "opgen_add_library(" in line)
    write_reported_cmake(project, "legacy", cmake + "\ntarget_include_directories(legacy_ops PRIVATE csrc)")
    _, env = build_with_opgen(project, tmp_path / "build")
    after = subprocess.run([sys.executable, "-c", "import legacy\n" + CALLS], env=env, cwd=tmp_path,
                           capture_output=True, text=True)
    assert after.returncode == 0, after.stderr[-3000:]
    assert after.stdout == before.stdout, (after.stdout, before.stdout)


def test_a_register_operators_registration_that_shares_the_statements_end_is_no_line_to_delete(tmp_path):
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.h").write_text(OPS_H)
    (tmp_path / "csrc" / "binding.cpp").write_text("""#include <torch/script.h>
#include "ops.h"
static auto registry = torch::RegisterOperators()
    .op("legacy::odd(Tensor x) -> Tensor", [](const at::Tensor& x) { return x * 3; })
    .op("legacy::plain2", &plain2);
std::vector<torch::RegisterOperators> registries;
void more() { registries.push_back(torch::RegisterOperators().op("legacy::single", &single)); }
""")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Deleting line 5 would take the statement's `;` with it: the report names the registration, no lines.
    assert ("csrc/binding.cpp:3-5: in the block static auto registry=torch::RegisterOperators(), delete the "
            "registrations of plain2 (the rest") in proc.stdout, proc.stdout
    # Nor a statement whose line holds a function around it: deleting line 7 would delete `void more() {` too.
    assert ("csrc/binding.cpp:7: in the block registries.push_back(torch::RegisterOperators(), delete the "
            "registrations of single (the rest") in proc.stdout, proc.stdout


def test_a_copied_declarations_header_includes_what_its_source_does_under_the_same_conditions(tmp_path):
    """torch_sparse's version.cpp declares its kernel itself and includes <hip/hip_version.h> under WITH_CUDA and
    USE_ROCM: the header of copied declarations includes it under those conditions too (unconditionally, it did not
    compile where no ROCm is), and compiles without them."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "version.cpp").write_text("""#include <ATen/core/Tensor.h>
#include <torch/script.h>
#ifdef WITH_CUDA
#ifdef USE_ROCM
#include <hip/hip_version.h>
#else
#include <cuda.h>
#endif
#endif

namespace sparse {
int64_t cuda_version() noexcept {
#ifdef WITH_CUDA
  return CUDA_VERSION;
#else
  return -1;
#endif
}
}  // namespace sparse

static auto registry = torch::RegisterOperators().op(
    "legacy::cuda_version", [] { return sparse::cuda_version(); });
""")
    proc = run_opgen("import", "csrc", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    header = (tmp_path / "schemas" / "version_kernels.h").read_text()
    assert ("#include <ATen/core/Tensor.h>\n#include <torch/script.h>\n"
            "#if defined(WITH_CUDA) && defined(USE_ROCM)\n#include <hip/hip_version.h>\n#endif\n"
            "#if defined(WITH_CUDA) && !defined(USE_ROCM)\n#include <cuda.h>\n#endif\n\n"
            "namespace sparse {\nint64_t cuda_version();\n}") in header, header
    torch_dir = os.path.dirname(torch.__file__)
    compiled = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", "-x", "c++", "-isystem", f"{torch_dir}/include",
                               "-isystem", f"{torch_dir}/include/torch/csrc/api/include",
                               str(tmp_path / "schemas" / "version_kernels.h")], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr[-3000:]


def test_a_header_that_declares_another_overload_is_not_the_kernels_declaration(tmp_path):
    """torch_cluster's cluster.h declares an older `radius` of 6 parameters; radius.cpp defines and registers the one
    of 8, declared nowhere else. Naming cluster.h as the kernel's include (it names `radius`) gave bindings that did
    not compile: the declaration that fits the schema is copied from the source instead. And since grid's op
    includes cluster.h, a unity shard would hold both declarations, an overload set whose address is ambiguous: the
    report's library compiles one TU per op (SHARDS 0, its SCHEMAS a directory), and it builds and runs."""
    project = tmp_path / "project"
    csrc = project / "csrc"
    csrc.mkdir(parents=True)
    (csrc / "cluster.h").write_text("""#pragma once
#include <ATen/core/Tensor.h>
at::Tensor radius(at::Tensor x, double r);
at::Tensor grid(at::Tensor pos, double size);
""")
    (csrc / "grid.cpp").write_text("""#include <ATen/core/op_registration/op_registration.h>
#include <ATen/ops/div.h>
#include "cluster.h"
at::Tensor grid(at::Tensor pos, double size) { return at::div(pos, size); }
static auto registry = torch::RegisterOperators().op("legacy::grid", &grid);
""")
    (csrc / "radius.cpp").write_text("""#include <ATen/core/op_registration/op_registration.h>
#include <ATen/ops/add.h>
#include <ATen/ops/mul.h>
at::Tensor radius(at::Tensor x, at::Tensor y, double r, int64_t max_neighbors) {
  return at::add(at::add(x, at::mul(y, r)), max_neighbors);
}
static auto registry = torch::RegisterOperators().op("legacy::radius", &radius);
""")
    proc = run_opgen("import", "csrc", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 ops imported as schemas/<op>.yaml, 2 of them with their kernels as they are" in proc.stdout, proc.stdout
    assert '  include: "cluster.h"\n' in (project / "schemas" / "grid.yaml").read_text()
    assert '  include: "radius_kernels.h"\n' in (project / "schemas" / "radius.yaml").read_text()
    assert ("at::Tensor radius(at::Tensor x, at::Tensor y, double r, int64_t max_neighbors);"
            in (project / "schemas" / "radius_kernels.h").read_text())
    assert (" SHARDS 0 " in proc.stdout and "# SHARDS 0: one TU per op, each with its own headers: in a shared one, "
            "another op's header would overload the name of radius (4 parameters, as radius takes; csrc/cluster.h "
            "declares one of 2)") in proc.stdout, proc.stdout
    apply_report_deletions(proc.stdout, project, tmp_path)
    lines = [line.strip() for line in proc.stdout.splitlines()
             if line.strip().startswith(("opgen_add_library(", "target_include_directories("))]
    write_reported_cmake(project, "legacy", "\n".join(lines))
    _, env = build_with_opgen(project, tmp_path / "build")
    called = subprocess.run([sys.executable, "-c", """
import torch, legacy
x = torch.arange(3, dtype=torch.float32)
print(torch.ops.legacy.radius(x, x, 2.0, 1).tolist(), torch.ops.legacy.grid(x, 0.5).tolist())
"""], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert called.returncode == 0, called.stderr[-3000:]
    assert called.stdout == "[1.0, 4.0, 7.0] [0.0, 2.0, 4.0]\n", called.stdout
