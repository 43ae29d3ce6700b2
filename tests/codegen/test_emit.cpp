// Golden tests for every emitter: tests/codegen/golden/specs/*.yaml are
// generated and compared, file by file, with tests/codegen/golden/expected/.
// Refresh with: OPGEN_UPDATE_GOLDEN=1 ./opgen_unit_tests --gtest_filter='Emit.*'
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "emit/emit.h"
#include "model/generated_names.h"
#include "support/output.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace opgen {
namespace {

const fs::path kGolden = fs::path(OPGEN_SOURCE_DIR) / "tests/codegen/golden";

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

model::Library golden_library() {
  std::vector<testing::SpecFile> files;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(kGolden / "specs")) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) files.push_back({"specs/" + path.filename().string(), read(path)});
  auto result = testing::load_and_check(files);
  EXPECT_TRUE(result.ok) << result.diagnostics;
  return result.library;
}

// Every name the generated Python modules bind at module level is one the
// checker claims: a fixed module name or a name of an op (model/generated_names.h).
TEST(Emit, ModuleLevelNamesAreAllClaimed) {
  const model::Library lib = golden_library();
  std::set<std::string> claimed(model::fixed_module_names().begin(), model::fixed_module_names().end());
  for (const auto& module : model::host_class_modules(lib)) claimed.insert(module.substr(0, module.find('.')));
  for (const auto& op : lib.ops)
    for (const auto& bound : model::names_bound_by(op)) claimed.insert(bound.name);
  const auto tree = emit::emit_library(lib);
  const std::regex binding(R"(^(?:def (\w+)\(|(\w+)(?: =|:) |import (\w+)|from \S+ import (.+)|\s*for (\w+), (\w+) in ))");
  size_t seen = 0;
  for (const char* module : {"python/testpkg/_ops.py", "python/testpkg/_ops.pyi"}) {
    std::istringstream lines(tree.files().at(module));
    bool in_def = false;  // inside a function: its names are local
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line[0] != ' ') in_def = line.starts_with("def ") || line.starts_with("@");
      std::smatch m;
      if ((in_def && line.starts_with(" ")) || !std::regex_search(line, m, binding)) continue;
      std::vector<std::string> names;
      for (size_t group : {1, 2, 3, 5, 6})
        if (m[group].matched) names.push_back(m[group]);
      if (m[4].matched) {  // `from x import a as b, c`: b and c
        std::istringstream imported(std::regex_replace(std::string(m[4]), std::regex(R"(\s*#.*)"), ""));
        for (std::string item; std::getline(imported, item, ',');) {
          item = std::regex_replace(item, std::regex(R"(^\s+|\s+$)"), "");
          const size_t as = item.find(" as ");
          names.push_back(as == std::string::npos ? item : item.substr(as + 4));
        }
      }
      for (const auto& name : names) {
        ++seen;
        EXPECT_TRUE(claimed.count(name)) << module << " binds '" << name << "', which model/generated_names.h does not list: "
                                         << line;
      }
    }
  }
  EXPECT_GT(seen, 15u);
}

TEST(Emit, MatchesGoldenFiles) {
  const auto tree = emit::emit_library(golden_library());
  const fs::path expected = kGolden / "expected";
  if (std::getenv("OPGEN_UPDATE_GOLDEN")) {
    fs::remove_all(expected);
    Diagnostics diags;
    ASSERT_TRUE(tree.commit(expected, diags));
    GTEST_SKIP() << "golden files refreshed in " << expected;
  }
  size_t compared = 0;
  for (const auto& [relative, contents] : tree.files()) {
    ASSERT_TRUE(fs::exists(expected / relative))
        << relative << " has no golden file; refresh with OPGEN_UPDATE_GOLDEN=1 ./opgen_unit_tests";
    EXPECT_EQ(contents, read(expected / relative))
        << relative << " differs from its golden file; refresh with OPGEN_UPDATE_GOLDEN=1 ./opgen_unit_tests";
    ++compared;
  }
  for (const auto& entry : fs::recursive_directory_iterator(expected)) {
    if (!entry.is_regular_file()) continue;
    EXPECT_TRUE(tree.files().count(fs::relative(entry.path(), expected).generic_string()))
        << entry.path() << " is no longer generated";
  }
  EXPECT_GE(compared, 10u);
}

TEST(Emit, IsDeterministic) {
  auto a = emit::emit_library(golden_library()).files();
  auto b = emit::emit_library(golden_library()).files();
  EXPECT_EQ(a, b);
}

TEST(Emit, EveryFileCarriesTheGeneratedMarker) {
  const auto tree = emit::emit_library(golden_library());
  for (const auto& [relative, contents] : tree.files()) {
    EXPECT_NE(contents.substr(0, 200).find("@generated"), std::string::npos) << relative;
    EXPECT_NE(contents.substr(0, 200).find("DO NOT EDIT"), std::string::npos) << relative;
  }
}

// The shards include every op's TU exactly once, in a shard of the op's ABI,
// and the library block once, first in shard 0 of its ABI; an op's removal
// rewrites its own shard only, so the build recompiles one TU.
TEST(Emit, ShardsIncludeEachTuOnceAndMoveNothingWhenAnOpGoes) {
  model::Library lib = golden_library();
  lib.shards = 3;
  const auto files = emit::emit_library(lib).files();
  std::map<std::string, std::string> shard_of_tu;  // included file -> shard path
  for (model::Abi abi : {model::Abi::Stable, model::Abi::Unstable}) {
    for (unsigned shard = 0; shard < lib.shards; ++shard) {
      const std::string path = emit::shard_source_path(lib, abi, shard);
      ASSERT_TRUE(files.count(path)) << path;
      std::istringstream lines(files.at(path));
      bool first = true;
      for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("#include \"")) continue;
        const std::string tu = line.substr(10, line.size() - 11);
        EXPECT_TRUE(shard_of_tu.emplace(tu, path).second) << tu << " is included twice";
        if (tu == fs::path(emit::library_source_path(lib)).filename()) {
          EXPECT_TRUE(first && shard == 0) << path;
        } else {
          const model::OpSpec* op = lib.find(fs::path(tu).stem());
          ASSERT_NE(op, nullptr) << tu;
          EXPECT_EQ(op->abi.value, abi) << tu << " is in " << path;
          EXPECT_EQ(emit::shard_of(lib, *op), shard);
        }
        first = false;
      }
    }
  }
  EXPECT_EQ(shard_of_tu.size(), lib.ops.size() + 1);

  model::Library fewer = lib;
  const std::string gone = fewer.ops.front().op_name();
  fewer.ops.erase(fewer.ops.begin());
  const auto after = emit::emit_library(fewer).files();
  size_t changed = 0;
  for (const auto& [path, text] : after) {
    if (path.find("-shard") == std::string::npos) continue;
    if (text != files.at(path)) {
      ++changed;
      EXPECT_EQ(path, shard_of_tu.at(gone + ".cpp")) << "removing " << gone << " rewrote " << path;
    }
  }
  EXPECT_EQ(changed, 1u);
}

// An existing kernel's header is included only when its key is built: a
// CPU-only build (--exclude-dispatch-key CUDA) must not need CUDA's headers.
TEST(Emit, ExistingKernelHeadersOnlyForBuiltKeys) {
  auto result = testing::load_and_check(
      "specs/op.yaml",
      "schema: \"op(Tensor x) -> Tensor\"\ndispatch: [CPU, CUDA]\n"
      "kernels: {include: cuda_only.h, CUDA: cuda_fn}\nfake: [like(x)]\nsamples: []\n");
  ASSERT_TRUE(result.ok) << result.diagnostics;
  auto with_cuda = emit::emit_library(result.library).files();
  auto header_path = emit::kernel_header_path(result.library, result.library.ops[0]);
  EXPECT_NE(with_cuda.at(header_path).find("#include \"cuda_only.h\""), std::string::npos);
  EXPECT_NE(with_cuda.at("csrc/op.cpp").find("op_cuda_adapted"), std::string::npos);
  std::erase_if(result.library.ops[0].dispatch, [](const auto& key) { return key.value == "CUDA"; });
  auto cpu_only = emit::emit_library(result.library).files();
  EXPECT_EQ(cpu_only.at(header_path).find("cuda_only.h"), std::string::npos);
  EXPECT_EQ(cpu_only.at("csrc/op.cpp").find("cuda_fn"), std::string::npos);
}

// The generated files for one spec, checked first.
std::map<std::string, std::string> emit_one(const std::string& stem, const std::string& text) {
  auto result = testing::load_and_check("specs/" + stem + ".yaml", text);
  EXPECT_TRUE(result.ok) << result.diagnostics;
  return emit::emit_library(result.library).files();
}

TEST(Emit, WrapperLocalsDoNotClashWithArguments) {
  // An argument named like a wrapper local would be redeclared in call_boxed.
  auto files = emit_one("foo", "schema: \"foo(Tensor out0) -> (Tensor, Tensor)\"\nfake: [like(out0), like(out0)]\n");
  EXPECT_NE(files.at("csrc/foo.cpp").find("auto [opgen_out0, opgen_out1] = kernel(out0);"), std::string::npos)
      << files.at("csrc/foo.cpp");
}

// `dispatch: []` (the schema alone) beside an op with a C++ kernel: each
// ABI's TU defines the op and nothing else, so no unused wrapper or check is
// left to warn about.
TEST(Emit, SchemaAloneRegistersTheDefOnly) {
  for (const char* abi : {"stable", "unstable"}) {
    auto result = testing::load_and_check(std::vector<testing::SpecFile>{
        {"specs/foo.yaml", fmt::format("schema: \"foo(Tensor x, int n) -> Tensor\"\nabi: {}\ndispatch: []\n"
                                       "checks:\n  x: {{dtype: [float32]}}\nfake: [like(x)]\n", abi)},
        {"specs/bar.yaml", "schema: \"bar(Tensor x) -> Tensor\"\ndispatch: [CPU]\nfake: [like(x)]\n"}});
    ASSERT_TRUE(result.ok) << result.diagnostics;
    auto files = emit::emit_library(result.library).files();
    const std::string& tu = files.at("csrc/foo.cpp");
    EXPECT_NE(tu.find("('dispatch: []'); its kernels are registered elsewhere."), std::string::npos) << tu;
    EXPECT_NE(tu.find("m.def(\"foo(Tensor x, int n) -> Tensor\");"), std::string::npos) << tu;
    for (const char* absent : {"namespace {", "_IMPL(", "_boxed", "_checked", "check_inputs"})
      EXPECT_EQ(tu.find(absent), std::string::npos) << absent << " in\n" << tu;
    EXPECT_EQ(files.at("include/testns/kernels/foo.h").find("foo_cpu"), std::string::npos);
  }
}

// A library with no C++ kernel at all: its schema-alone ops are the
// package's to define too, and nothing of it is C++ (nothing to build).
TEST(Emit, SchemaAloneOpsOfALibraryWithoutCppKernelsAreDefinedByThePackage) {
  auto files = emit_one("foo", "schema: \"foo(Tensor x, int n) -> Tensor\"\nabi: stable\ndispatch: []\nfake: [like(x)]\n");
  EXPECT_NE(files.at("csrc/foo.cpp").find("nothing of it is C++"), std::string::npos) << files.at("csrc/foo.cpp");
  const std::string& py = files.at("python/testpkg/_ops.py");
  EXPECT_NE(py.find("_PYTHON_LIBRARY.define(\"foo(Tensor x, int n) -> Tensor\")"), std::string::npos) << py;
  // Built or not: a build may have compiled a project's own kernels into the library.
  EXPECT_NE(py.find("_opgen.load_library(__file__, \"libtestns_ops.so\", optional=True)"), std::string::npos) << py;
}

TEST(Emit, RuleOverSeveralLinesKeepsTheFakeValidPython) {
  auto files = emit_one("foo", "schema: \"foo(Tensor x) -> Tensor\"\nrequire:\n  - |\n    x.dim() >= 1 and\n    x.size(0) > 0\nfake: [like(x)]\n");
  const std::string& py = files.at("python/testpkg/_ops.py");
  EXPECT_NE(py.find("requires x.dim() >= 1 and\\nx.size(0) > 0\\n\")"), std::string::npos) << py;
}

TEST(Emit, AutogradMarksOutputsWithoutGradientAndGuardsOptionalInputs) {
  // The backward op takes no gradient for `stat`, so it is non-differentiable;
  // `bias` is a Tensor?, so its gradient is returned only when it was given.
  auto result = testing::load_and_check(std::vector<testing::SpecFile>{
      {"specs/norm.yaml",
       "schema: \"norm(Tensor x, Tensor? bias=None) -> (Tensor out, Tensor stat)\"\n"
       "fake: [like(x), like(x)]\n"
       "autograd: {backward: norm_backward, grads: [x, bias]}\n"},
      {"specs/norm_backward.yaml",
       "schema: \"norm_backward(Tensor grad_out, Tensor x, Tensor stat) -> (Tensor, Tensor)\"\n"
       "fake: [like(x), like(x)]\n"}});
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const std::string py = emit::emit_library(result.library).files().at("python/testpkg/_ops.py");
  EXPECT_NE(py.find("    ctx.mark_non_differentiable(output[1])\n"), std::string::npos) << py;
  EXPECT_NE(py.find("result = torch.ops.testns.norm_backward.default(grads[0], saved[0], saved[1])"), std::string::npos)
      << py;
  EXPECT_NE(py.find("return (result[0], result[1] if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1] else None)"), std::string::npos) << py;
}

TEST(Emit, AutogradBindingAllOutputGradientsMarksNothing) {
  auto result = testing::load_and_check(std::vector<testing::SpecFile>{
      {"specs/rot.yaml",
       "schema: \"rot(Tensor q, Tensor k) -> (Tensor, Tensor)\"\nfake: [like(q), like(k)]\n"
       "autograd: {backward: rot_backward, grads: [q, k]}\n"},
      {"specs/rot_backward.yaml",
       "schema: \"rot_backward(Tensor grad_0, Tensor grad_1) -> (Tensor, Tensor)\"\n"
       "fake: [like(grad_0), like(grad_1)]\n"}});
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const std::string py = emit::emit_library(result.library).files().at("python/testpkg/_ops.py");
  EXPECT_EQ(py.find("mark_non_differentiable"), std::string::npos) << py;
  EXPECT_NE(py.find("return (result[0], result[1])"), std::string::npos) << py;
}

TEST(Emit, GeneratedSuiteNamesWhereEachFakeComesFrom) {
  // A fake-vs-real failure quotes these (opgen.testing; tests/python/test_testing.py
  // holds the messages and the data-dependent sizes a fake may make).
  auto files = emit_one("compact",
                        "schema: \"compact(Tensor x, Tensor m) -> Tensor\"\nlet: {n: \"dynamic(min=0)\"}\n"
                        "fake: [\"empty([n, *x.shape[1:]])\"]\n"
                        "samples:\n  - args: {x: {shape: [4, 3]}, m: {shape: [4], dtype: bool}}\n");
  const std::string& py = files.at("tests/test_testpkg_ops.py");
  EXPECT_NE(py.find("_case_compact_0 = _Case(torch.ops.testns.compact.default, \"testns::compact\", _make_compact_0, "
                    "[{}], differentiable=False, fakes=[\"specs/compact.yaml:3:9: empty([n, *x.shape[1:]])\"], "
                    "name=\"compact-0\")"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("_testing.check_fake_matches_real(case)"), std::string::npos) << py;

  auto out = emit_one("scale.out",
                      "schema: \"scale.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\"\nabi: unstable\n"
                      "samples:\n  - args: {x: {shape: [2, 3]}, out: {shape: [2, 3]}}\n");
  EXPECT_NE(out.at("tests/test_testpkg_ops.py")
                .find("fakes=[\"the argument 'out' itself (the op writes into it and returns it)\"]"),
            std::string::npos)
      << out.at("tests/test_testpkg_ops.py");
}

class OutputTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opgen-output-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

TEST_F(OutputTreeTest, WritesOnlyWhatChanged) {
  OutputTree tree;
  tree.add("a.txt", "// @generated\nA");
  tree.add("sub/b.txt", "// @generated\nB");
  Diagnostics diags;
  WriteStats stats;
  ASSERT_TRUE(tree.commit(dir_, diags, &stats));
  EXPECT_EQ(stats.written, 2u);
  auto mtime = fs::last_write_time(dir_ / "a.txt");
  ASSERT_TRUE(tree.commit(dir_, diags, &stats));
  EXPECT_EQ(stats.written, 0u);
  EXPECT_EQ(stats.unchanged, 2u);
  EXPECT_EQ(fs::last_write_time(dir_ / "a.txt"), mtime);
}

TEST_F(OutputTreeTest, RemovesOnlyStaleFilesItWroteAndStillHoldTheirBytes) {
  Diagnostics diags;
  OutputTree first;
  first.add("old.txt", "// @generated\nold");
  first.add("edited.txt", "// @generated\nedited");
  ASSERT_TRUE(first.commit(dir_, diags));
  std::ofstream(dir_ / "edited.txt") << "// @generated\nedited by hand";
  std::ofstream(dir_ / "mine.txt") << "// @generated by my own script";
  OutputTree second;
  second.add("new.txt", "// @generated\nnew");
  WriteStats stats;
  ASSERT_TRUE(second.commit(dir_, diags, &stats, first.manifest()));
  EXPECT_FALSE(fs::exists(dir_ / "old.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "edited.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "mine.txt"));
  EXPECT_EQ(stats.removed, 1u);
}

TEST_F(OutputTreeTest, WithoutAManifestNothingIsRemoved) {
  Diagnostics diags;
  OutputTree first;
  first.add("old.txt", "// @generated\nold");
  ASSERT_TRUE(first.commit(dir_, diags));
  OutputTree second;
  second.add("new.txt", "// @generated\nnew");
  WriteStats stats;
  ASSERT_TRUE(second.commit(dir_, diags, &stats));
  EXPECT_TRUE(fs::exists(dir_ / "old.txt"));
  EXPECT_EQ(stats.removed, 0u);
}

TEST_F(OutputTreeTest, PathsThatLeaveTheDirectoryAreRefused) {
  for (const char* path : {"../x.txt", "a/../../x.txt", "a//b.txt", "./a.txt", "a/.", ""}) {
    OutputTree tree;
    tree.add(path, "x");
    Diagnostics diags;
    EXPECT_FALSE(tree.commit(dir_ / "out", diags)) << path;
    EXPECT_TRUE(diags.has_errors()) << path;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.txt"));
}

TEST_F(OutputTreeTest, NothingIsWrittenThroughASymbolicLink) {
  fs::create_directories(dir_ / "out");
  fs::create_directories(dir_ / "outside");
  fs::create_directory_symlink("../outside", dir_ / "out" / "include");
  OutputTree tree;
  tree.add("a.txt", "A");
  tree.add("include/b.h", "B");
  Diagnostics diags;
  EXPECT_FALSE(tree.commit(dir_ / "out", diags));
  EXPECT_TRUE(fs::is_empty(dir_ / "outside"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "a.txt"));  // checked before the first write
}

TEST_F(OutputTreeTest, UnwritableDirectoryIsACleanErrorAndChangesNothing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  OutputTree tree;
  tree.add("a.txt", "A");
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  Diagnostics diags;
  EXPECT_FALSE(tree.commit(dir_, diags));
  EXPECT_TRUE(diags.has_errors());
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(OutputTreeTest, OutputPathBlockedByAFileIsACleanError) {
  // A file where the output directory should be: works as root too.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "zz") << "x";
  OutputTree tree;
  tree.add("ok.txt", "// @generated\nfine");
  tree.add("zz/inner.txt", "// @generated\nB");
  Diagnostics diags;
  EXPECT_FALSE(tree.commit(dir_, diags));
  EXPECT_TRUE(diags.has_errors());
  EXPECT_FALSE(fs::exists(dir_ / "ok.txt"));
}

}  // namespace
}  // namespace opgen
