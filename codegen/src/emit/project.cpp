// `opgen init`: a complete outside project around one working example op.
// Its build finds opgen's installed CMake package, registers the generated
// test suite with CTest, and packs an abi3 wheel with scikit-build-core.
#include <fmt/format.h>

#include "emit/emit.h"
#include "model/spec.h"
#include "support/printer.h"
#include "support/version.h"

namespace opgen::emit {
namespace {

constexpr std::string_view kCMakeLists = R"cmake(# $ns$: PyTorch operators built with opgen, one YAML spec per op in
# schemas/ and its kernels in kernels/. Written by `opgen init`; yours to edit.
#
#   cmake -S . -B build -G Ninja -Dopgen_DIR=$$(python -m opgen --cmake-dir)
#   cmake --build build && ctest --test-dir build
cmake_minimum_required(VERSION 3.25)
project($ns$ LANGUAGES CXX)

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
# Registers the generated test suite (opcheck, torch.compile, fake vs real,
# the specs' samples) with CTest.
include(CTest)
# CUDA kernels (kernels/*.cu) are built where nvcc is found, left out elsewhere.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
endif()

find_package(opgen $opgen_version$ CONFIG)
if(NOT opgen_FOUND)
  message(FATAL_ERROR "opgen's CMake package was not found. Installed with pip: "
                      "-Dopgen_DIR=$$(python -m opgen --cmake-dir). Installed by CMake: "
                      "-DCMAKE_PREFIX_PATH=<its prefix> (under pip, the environment variable).")
endif()

file(GLOB schemas CONFIGURE_DEPENDS $${CMAKE_CURRENT_SOURCE_DIR}/schemas/*.yaml)
file(GLOB kernels CONFIGURE_DEPENDS $${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cpp $${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cu)
# Python modules of the package (fakes a rule cannot express, helpers): python/_fakes.py
# becomes $pkg$._fakes, which a spec names as `fake: {python: "$pkg$._fakes:<function>"}`.
file(GLOB python_sources CONFIGURE_DEPENDS $${CMAKE_CURRENT_SOURCE_DIR}/python/*.py)
opgen_add_library($ns$_ops
  NAMESPACE $ns$
  SCHEMAS $${schemas}
  KERNELS $${kernels}
  PYTHON_SOURCES $${python_sources}
  TORCH_TARGET_VERSION $torch_target$
  # cmake --install (and so the wheel) puts the package $pkg$/ at the top.
  INSTALL_DIR .)
)cmake";

constexpr std::string_view kPyproject = R"toml(# The wheel: pip install --no-build-isolation .  (see README.md)

[build-system]
requires = ["scikit-build-core>=0.10", "opgen==$opgen_version$.*", "torch>=$torch_target$"]
build-backend = "scikit_build_core.build"

[project]
name = "$pkg$"
version = "0.1.0"
requires-python = ">=3.10"
# Every op is `abi: stable`, so one wheel loads in every torch from
# $torch_target$ on. An `abi: unstable` op ties the wheel to the minor release
# it was built against: then pin it, as in "torch==2.14.*".
dependencies = ["torch>=$torch_target$"]

[tool.scikit-build]
minimum-version = "0.10"
cmake.version = ">=3.25"
cmake.build-type = "Release"
# No CPython extension inside (the op library is plain C++): one abi3 wheel
# serves every CPython from 3.10 on.
wheel.py-api = "cp310"
# The package is what `cmake --install` puts there (component python).
wheel.packages = []
install.components = ["python"]
messages.after-failure = """
$ns$: the build needs torch and opgen where the building Python sees them.
With both installed (pip install opgen), build with
    pip install --no-build-isolation .
or, for an opgen installed by CMake,
    CMAKE_PREFIX_PATH=<its prefix> pip install --no-build-isolation ."""

[tool.scikit-build.cmake.define]
BUILD_TESTING = "OFF"
)toml";

constexpr std::string_view kSpec = R"yaml(# The example op: replace it, or add more with
#   opgen new $ns$::<name> --schema "(Tensor x, ...) -> Tensor" --schemas-dir schemas --kernels-dir kernels
schema: "scale(Tensor x, float alpha=1.) -> Tensor"
doc: |
  x * alpha, elementwise.
abi: stable
dispatch: [CPU]
checks:
  x: {dtype: [float32, float64], contiguous: true}
fake:
  - like(x)
samples:
  - dims: {N: [2, 7]}
    args:
      x: {shape: [N, 5]}
  - args:
      x: {shape: [3, 4], dtype: float64}
      alpha: -2.5
)yaml";

constexpr std::string_view kKernel = R"cc(// The CPU kernel of $ns$::scale (stable ABI): its signature is the one the
// generated header $ns$/kernels/scale.h declares.
#include "$ns$/kernels/scale.h"

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <cstdint>

namespace {

template <class T>
void scale(const T* x, T* y, int64_t n, double alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(x[i] * alpha);
}

}  // namespace

torch::stable::Tensor $cpp_ns$::kernels::scale_cpu(const torch::stable::Tensor& x, double alpha) {
  torch::stable::Tensor y = torch::stable::empty_like(x);
  // The spec's checks let only contiguous float32 and float64 tensors through.
  if (x.scalar_type() == torch::headeronly::ScalarType::Double) {
    scale(x.const_data_ptr<double>(), y.mutable_data_ptr<double>(), x.numel(), alpha);
  } else {
    scale(x.const_data_ptr<float>(), y.mutable_data_ptr<float>(), x.numel(), alpha);
  }
  return y;
}
)cc";

constexpr std::string_view kReadme = R"md(# $ns$

PyTorch operators built with opgen: one YAML spec per op in `schemas/`, its
handwritten kernels in `kernels/`. opgen generates the registrations (LibTorch
stable ABI), the fakes for `torch.compile`, the typed Python module and a
test suite.

```python
import torch
import $pkg$

$pkg$.scale(torch.randn(4, 5), 2.0)         # or torch.ops.$ns$.scale
```

## Build and test

```sh
cmake -S . -B build -G Ninja -Dopgen_DIR=$$(python -m opgen --cmake-dir)
cmake --build build
ctest --test-dir build                      # the generated suite: opcheck, torch.compile, fake vs real
PYTHONPATH=build/python python -c "import torch, $pkg$; print($pkg$.scale(torch.ones(3), 2.0))"
```

## The wheel

```sh
pip install --no-build-isolation .          # with opgen pip-installed beside torch
```

`--no-build-isolation`: the build imports the torch you have to find its
headers (an isolated build would download another). scikit-build-core finds
a pip-installed opgen by itself; for one installed by CMake, set
`CMAKE_PREFIX_PATH=<its prefix>`.
The wheel is tagged abi3 (one wheel for every CPython from 3.10 on) and, as
long as every op is `abi: stable`, loads in every torch from $torch_target$ on.

## Add an op

```sh
opgen new $ns$::my_op --schema "(Tensor x, float alpha) -> Tensor" --schemas-dir schemas --kernels-dir kernels
```

writes `schemas/my_op.yaml` and a kernel with the exact signature the build
expects; fill in the kernel, describe the output's shape under `fake:` and
add `samples:` for the generated tests. `opgen check schemas` checks the specs
alone; `opgen explain <code>` explains any diagnostic.

A fake the rule language cannot express is a Python function: put it in
`python/_fakes.py` (every `python/*.py` is built into the package, no CMake
edit needed) and name it in the spec:

```yaml
fake: {python: "$pkg$._fakes:my_op"}
```
)md";

constexpr std::string_view kGitignore = R"(/build/
/build-*/
/dist/
__pycache__/
)";

}  // namespace

std::vector<std::pair<std::string, std::string>> project_files(const model::Library& lib,
                                                               const std::string& json_schema_ref) {
  const std::string target = model::format_torch_version(lib.torch_target_version);
  // find_package(opgen <major.minor>): the release that wrote the project, or a later one.
  const std::string_view version = tool_version();
  const std::string opgen_version(version.substr(0, version.rfind('.')));
  std::string spec = substitute(kSpec, {{"ns", lib.ns}});
  if (!json_schema_ref.empty()) spec = "# yaml-language-server: $schema=" + json_schema_ref + "\n" + spec;
  // The distribution is named after the Python package (check_library_names keeps
  // it from replacing the tool, torch or what they need), the build after the namespace.
  return {
      {"CMakeLists.txt", substitute(kCMakeLists, {{"ns", lib.ns}, {"pkg", lib.python_package}, {"torch_target", target},
                                                  {"opgen_version", opgen_version}})},
      {"pyproject.toml", substitute(kPyproject, {{"ns", lib.ns}, {"pkg", lib.python_package}, {"torch_target", target},
                                                 {"opgen_version", opgen_version}})},
      {"schemas/scale.yaml", spec},
      {"kernels/scale.cpp", substitute(kKernel, {{"ns", lib.ns}, {"cpp_ns", lib.cpp_ns()}})},
      {"README.md", substitute(kReadme, {{"ns", lib.ns}, {"pkg", lib.python_package}, {"torch_target", target}})},
      {".gitignore", std::string(kGitignore)},
  };
}

}  // namespace opgen::emit
