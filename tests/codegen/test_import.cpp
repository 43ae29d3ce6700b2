// `opgen import`'s first two stages on small sources: the scanner (what a
// string is, what a comment is, which #if a token stands in) and the
// registration finder. Real projects' files are tests/python/test_import.py's.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "import/header_macros.h"
#include "import/infer_schema.h"
#include "import/pp_condition.h"
#include "import/registrations.h"
#include "import/source_scan.h"

namespace opgen::import {
namespace {

std::vector<std::string> strings(const ScannedSource& s) {
  std::vector<std::string> out;
  for (const Token& t : s.tokens)
    if (t.kind == Token::Kind::String) out.push_back(t.text);
  return out;
}

TEST(ImportScan, CppStringsCommentsAndGuards) {
  const auto s = scan_cpp(R"cc(#include "ops.h"
#include <torch/library.h>
// m.def("commented(Tensor x) -> Tensor");
/* m.def("block comment") */
#ifdef HAS_X
auto a = "one " "two";
#else
auto b = R"x(raw "quoted" \n)x";
#endif
auto c = u8"three\"q";
)cc");
  EXPECT_EQ(s.quoted_includes, std::vector<std::string>{"ops.h"});
  EXPECT_EQ(strings(s), (std::vector<std::string>{"one ", "two", "raw \"quoted\" \\n", "three\"q"}));
  for (const Token& t : s.tokens) {
    if (t.text == "one ") {
      ASSERT_GE(t.guard, 0);
      EXPECT_EQ(s.guards[t.guard], "#ifdef HAS_X");
      EXPECT_EQ(t.line, 6);
    }
    if (t.text.starts_with("raw")) {
      EXPECT_EQ(s.guards[t.guard], "#else (after #ifdef HAS_X)");
    }
    if (t.text.starts_with("three")) {
      EXPECT_EQ(t.guard, -1);
    }
  }
}

TEST(ImportScan, PythonStrings) {
  const auto s = scan_python("x = 'a' \"b\"  # 'comment'\ny = '''multi\nline'''\nz = f\"{name}\" + r'\\d'\n");
  EXPECT_EQ(strings(s), (std::vector<std::string>{"a", "b", "multi\nline", "{name}", "\\d"}));
  for (const Token& t : s.tokens) {
    if (t.text == "{name}") {
      EXPECT_TRUE(t.formatted);
    }
  }
}

TEST(ImportFind, CppBlocksDefsImplsAndTags) {
  const auto found = find_registrations({{"b.cc", R"cc(#include "k.h"
TORCH_LIBRARY_FRAGMENT(myns, m) {
  m.def("scale(Tensor x, "
        "float alpha) -> Tensor", {at::Tag::pt2_compliant_tag});
  m.impl("scale", torch::kCUDA, &scale_cuda);
  m.def("legacy", &legacy_fn);
  m.def(TORCH_SELECTIVE_SCHEMA("myns::sel(Tensor x) -> Tensor"));
  m.impl("sel", torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(sel_cpu)));
}
TORCH_LIBRARY_IMPL(myns, CPU, m) {
  m.impl("scale", TORCH_FN(ns::scale_cpu<float>));
  m.impl("sel", [](const at::Tensor& x) { return x; });
}
)cc"}});
  ASSERT_EQ(found.ops.size(), 3u);
  const ImportedOp& scale = found.ops[0];
  EXPECT_EQ(scale.ns, "myns");
  EXPECT_EQ(scale.schema, "scale(Tensor x, float alpha) -> Tensor");
  EXPECT_EQ(scale.tags, std::vector<std::string>{"pt2_compliant_tag"});
  ASSERT_EQ(scale.kernels.size(), 2u);
  EXPECT_EQ(scale.kernels[0].dispatch_key, "CUDA");
  EXPECT_EQ(scale.kernels[0].function, "scale_cuda");
  EXPECT_EQ(scale.kernels[1].dispatch_key, "CPU");
  EXPECT_EQ(scale.kernels[1].function, "ns::scale_cpu<float>");
  EXPECT_EQ(scale.includes, std::vector<std::string>{"k.h"});
  EXPECT_TRUE(scale.needs.empty());

  // m.def("legacy", &legacy_fn): PyTorch infers the schema from legacy_fn's
  // signature; so does infer_schemas, which here finds no declaration (b.cc
  // is not on disk) and says so.
  const ImportedOp& legacy = found.ops[1];
  EXPECT_TRUE(legacy.schema.empty());
  EXPECT_EQ(legacy.schema_from, "legacy_fn");
  EXPECT_TRUE(legacy.needs.empty());
  ImportResult inferred = found;
  infer_schemas(inferred, nullptr);
  ASSERT_EQ(inferred.ops[1].needs.size(), 1u);
  EXPECT_NE(inferred.ops[1].needs[0].find("no schema"), std::string::npos);
  EXPECT_NE(inferred.ops[1].needs[0].find("found no declaration"), std::string::npos);

  const ImportedOp& sel = found.ops[2];
  EXPECT_EQ(sel.schema, "myns::sel(Tensor x) -> Tensor");
  ASSERT_EQ(sel.kernels.size(), 1u);
  EXPECT_EQ(sel.kernels[0].function, "sel_cpu");
  // The lambda's impl stays in the project's build, registered against the spec's def: it does not block the op.
  EXPECT_FALSE(sel.kernel_refused);
  ASSERT_EQ(sel.kept_impls.size(), 1u);
  EXPECT_NE(sel.kept_impls[0].find("CPU (b.cc:12; its kernel is '[](const at::Tensor&x){return x;}', not a plain "
                                   "function: the impl registers it as it is"),
            std::string::npos)
      << sel.kept_impls[0];
}

TEST(ImportFind, PythonDefinesFakesAndAliases) {
  const auto found = find_registrations({{"pkg/ops.py", R"py(import torch
lib = torch.library.Library("pyns", "FRAGMENT")
lib.define("a(Tensor x) -> Tensor")
torch.library.define("pyns::b", "(Tensor x) -> Tensor")
fake = torch.library.register_fake

@fake("pyns::a")
def a_fake(x):
    return torch.empty_like(x)

@torch.library.register_fake("pyns::b")
def _(x):
    return x

SCALE = 2
torch.library.define("pyns::c", "(Tensor x) -> Tensor")

@torch.library.register_fake("pyns::c")
def _(x, *, n=SCALE):
    return x.new_empty(x.shape[0] * n)

def rows(x):
    return x.shape[0]
torch.library.define("pyns::d", "(Tensor x) -> Tensor")

@torch.library.register_fake("pyns::d")
def _(x):
    return x.new_empty(rows(x))
)py"}});
  ASSERT_EQ(found.ops.size(), 4u);
  EXPECT_EQ(found.ops[0].ns, "pyns");
  EXPECT_EQ(found.ops[0].schema, "a(Tensor x) -> Tensor");
  EXPECT_EQ(found.ops[0].python_fake, "pkg.ops:a_fake");
  // A `_` cannot be named: it moves into _fakes.py with the module's imports...
  EXPECT_EQ(found.ops[1].schema, "pyns::b(Tensor x) -> Tensor");
  EXPECT_TRUE(found.ops[1].python_fake.empty());
  EXPECT_TRUE(found.ops[1].needs.empty());
  EXPECT_EQ(found.ops[1].python_fake_source, "def {name}(x):\n    return x\n");
  EXPECT_EQ(found.ops[1].python_fake_imports, std::vector<std::string>{"import torch\n"});
  // ... with the values of the module's constants it reads (a default repeated from its op) ...
  EXPECT_TRUE(found.ops[2].needs.empty());
  EXPECT_EQ(found.ops[2].python_fake_source, "def {name}(x, *, n=2):\n    return x.new_empty(x.shape[0] * n)\n");
  // ... unless it reads something else of its module, which would not come along.
  ASSERT_EQ(found.ops[3].needs.size(), 1u);
  EXPECT_NE(found.ops[3].needs[0].find("the fake is '_' and reads rows of its module"), std::string::npos)
      << found.ops[3].needs[0];
}

// What moves into _fakes.py must compile there: a string that ends the block
// is copied whole (its lines at column 0 included); a block whose brackets do
// not close is not moved.
TEST(ImportFind, AMovedFakeIsCopiedWholeOrNotAtAll) {
  const auto found = find_registrations({{"pkg/ops.py", R"py(import torch
torch.library.define("pyns::a", "(Tensor x) -> Tensor")
torch.library.define("pyns::b", "(Tensor x) -> Tensor")

@torch.library.register_fake("pyns::a")
def _(x):
    torch._check(x.dim() > 0, lambda: """x must have
a dimension""")
    return x


@torch.library.register_fake("pyns::b")
def _(x):
    return torch.empty_like(x,
)py"}});
  ASSERT_EQ(found.ops.size(), 2u);
  EXPECT_EQ(found.ops[0].python_fake_source,
            "def {name}(x):\n    torch._check(x.dim() > 0, lambda: \"\"\"x must have\na dimension\"\"\")\n    return x\n");
  EXPECT_TRUE(found.ops[1].python_fake_source.empty());
  ASSERT_EQ(found.ops[1].needs.size(), 1u);
  EXPECT_NE(found.ops[1].needs[0].find("its brackets do not close"), std::string::npos) << found.ops[1].needs[0];
}

// The comments after a moved fake, at its def's depth, speak of what follows
// (bitsandbytes': "# Higher level op: ..." above the next define): they stay.
// One inside the body, deeper, moves with it. A define() that is a statement
// of its own is named by its lines, for the person to take out.
TEST(ImportFind, AMovedFakeLeavesTheCommentsAfterItAndADefIsNamedByItsLines) {
  const auto found = find_registrations({{"pkg/ops.py", R"py(import torch
torch.library.define(
    "pyns::a",
    "(Tensor x) -> Tensor",
)
@torch.library.register_fake("pyns::a")
def _(x):
    return x
    # the body's last words

# About b, which follows.
torch.library.define("pyns::b", "(Tensor x) -> Tensor")
_ = torch.library.define("pyns::c", "(Tensor x) -> Tensor")
)py"}});
  ASSERT_EQ(found.ops.size(), 3u);
  EXPECT_EQ(found.ops[0].python_fake_source, "def {name}(x):\n    return x\n    # the body's last words\n");
  EXPECT_EQ(found.ops[0].python_def_at, "pkg/ops.py:2-5");
  EXPECT_EQ(found.ops[1].python_def_at, "pkg/ops.py:12");
  EXPECT_EQ(found.ops[2].python_def_at, "pkg/ops.py:13");  // part of a statement: its line alone
}

// FBGEMM's sparse_ops.py registers its fakes by calls, through a helper of its
// own named impl_abstract: `impl_abstract("fbgemm::op", fn)`. The function is
// named where it is a function of the module's top level.
TEST(ImportFind, AFakeRegisteredByACallIsTheFunctionItNames) {
  const auto found = find_registrations({{"pkg/ops.py", R"py(import torch
torch.library.define("pyns::a", "(Tensor x) -> Tensor")
torch.library.define("pyns::b", "(Tensor x) -> Tensor")
torch.library.define("pyns::c", "(Tensor x) -> Tensor")
torch.library.define("pyns::d", "(Tensor x) -> Tensor")

def a_fake(x):
    return torch.empty_like(x)

def on_meta(x):
    return torch.empty(x.shape, device="meta")

def _setup():
    def impl_abstract(op_name, fn):
        torch.library.register_fake(op_name, fn)
    impl_abstract("pyns::a", a_fake)
    impl_abstract("pyns::b", on_meta)
    torch.library.register_fake("pyns::c", func=a_fake)
    impl_abstract("pyns::d", imported_elsewhere)
_setup()
)py"}});
  ASSERT_EQ(found.ops.size(), 4u);
  EXPECT_EQ(found.ops[0].python_fake, "pkg.ops:a_fake");
  EXPECT_TRUE(found.ops[0].needs.empty());
  ASSERT_EQ(found.ops[1].needs.size(), 1u);
  EXPECT_NE(found.ops[1].needs[0].find("its fake on_meta makes tensors on the meta device"), std::string::npos);
  EXPECT_EQ(found.ops[2].python_fake, "pkg.ops:a_fake");
  ASSERT_EQ(found.ops[3].needs.size(), 1u);
  EXPECT_NE(found.ops[3].needs[0].find("its fake imported_elsewhere is not a function defined at the top of its "
                                       "module"),
            std::string::npos);
}

// FBGEMM's DISPATCH_TO_<KEY>(name, fn) macros register at the keys its ops_utils.h spells:
// QUANTIZED_CPU is QuantizedCPU, ALL the catch-all (CompositeImplicitAutograd).
TEST(ImportFind, FbgemmDispatchMacrosRegisterAtTheKeysTheyExpandTo) {
  const auto found = find_registrations({{"q.cpp", R"cc(#include "k.h"
TORCH_LIBRARY_FRAGMENT(fbgemm, m) {
  m.def("Front(Tensor input) -> Tensor");
  m.def("Any(Tensor input) -> Tensor");
}
TORCH_LIBRARY_IMPL(fbgemm, QuantizedCPU, m) {
  DISPATCH_TO_QUANTIZED_CPU("Front", fbgemm_gpu::front_cpu);
  DISPATCH_TO_ALL("Any", fbgemm_gpu::any);
  DISPATCH_TO_AUTOGRAD_META("Any", fbgemm_gpu::any_autograd);
}
)cc"}});
  ASSERT_EQ(found.ops.size(), 2u);
  ASSERT_EQ(found.ops[0].kernels.size(), 1u);
  EXPECT_EQ(found.ops[0].kernels[0].dispatch_key, "QuantizedCPU");
  ASSERT_EQ(found.ops[1].kernels.size(), 1u);
  EXPECT_EQ(found.ops[1].kernels[0].dispatch_key, "CompositeImplicitAutograd");
  // AUTOGRAD_META expands to c10::DispatchKey::AutogradMETA, which c10 does not define: kept, and said.
  ASSERT_EQ(found.ops[1].kept_impls.size(), 1u);
  EXPECT_NE(found.ops[1].kept_impls[0].find("AutogradMETA"), std::string::npos) << found.ops[1].kept_impls[0];
}

TEST(ImportCondition, EvaluatesAsThePreprocessor) {
  const std::map<std::string, std::string> d = {{"CUDA_KERNEL", "1"}, {"VERSION", "0x020B"}, {"EMPTY", ""},
                                                {"ALIAS", "VERSION >= 0x0200"}, {"SELF", "SELF + 1"}};
  EXPECT_EQ(evaluate_condition("defined(CUDA_KERNEL) || defined(ROCM_KERNEL)", d), true);
  EXPECT_EQ(evaluate_condition("defined CUDA_KERNEL && !defined ROCM_KERNEL", d), true);
  EXPECT_EQ(evaluate_condition("ROCM_KERNEL", d), false);  // undefined: 0
  EXPECT_EQ(evaluate_condition("VERSION >= 0x020A && VERSION < 0x0300", d), true);
  EXPECT_EQ(evaluate_condition("ALIAS", d), true);
  EXPECT_EQ(evaluate_condition("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 % 4 == 3 && -1 < 0", d), true);
  EXPECT_EQ(evaluate_condition("10UL / 3 == 3 // comment", d), true);
  EXPECT_EQ(evaluate_condition("defined(EMPTY)", d), true);
  // What the preprocessor needs more to decide is not decided.
  EXPECT_EQ(evaluate_condition("EMPTY", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("TORCH_VERSION_AT_LEAST(2, 10)", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("__has_include(<cuda.h>)", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("SELF", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("1 / 0", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("9223372036854775807 + 1", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("99999999999999999999", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("(1", d), std::nullopt);
  EXPECT_EQ(evaluate_condition("1 ? 2 : 3", d), std::nullopt);
}

TEST(ImportCondition, ANameOfUnknownValueLeavesTheConditionUndecidedUnlessTheOtherSideDecides) {
  const std::map<std::string, std::string> d = {{"USE_CUDA", "1"}};
  const std::set<std::string> unknown = {"__CUDACC_VER_MAJOR__", "FROM_A_HEADER"};
  // xformers' guard of its sm90 GEMM: the compiler's version is not a configuration's to deny.
  EXPECT_EQ(evaluate_condition("__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && 1)", d, unknown),
            std::nullopt);
  EXPECT_EQ(evaluate_condition("defined(FROM_A_HEADER)", d, unknown), std::nullopt);
  EXPECT_EQ(evaluate_condition("!defined FROM_A_HEADER", d, unknown), std::nullopt);
  EXPECT_EQ(evaluate_condition("FROM_A_HEADER + 1 > 0", d, unknown), std::nullopt);
  // The other side of || or && decides.
  EXPECT_EQ(evaluate_condition("FROM_A_HEADER || defined(USE_CUDA)", d, unknown), true);
  EXPECT_EQ(evaluate_condition("defined(USE_ROCM) && FROM_A_HEADER", d, unknown), false);
  EXPECT_EQ(evaluate_condition("FROM_A_HEADER && USE_CUDA", d, unknown), std::nullopt);
  // A name the configuration gives is known, and one neither gives nor marks is undefined.
  EXPECT_EQ(evaluate_condition("__CUDACC_VER_MAJOR__ > 12", {{"__CUDACC_VER_MAJOR__", "13"}}, unknown), true);
  EXPECT_EQ(evaluate_condition("defined(USE_ROCM)", d, unknown), false);
  // A syntax error stays one, whatever the other side.
  EXPECT_EQ(evaluate_condition("1 || (", d, unknown), std::nullopt);
  EXPECT_EQ(evaluate_condition("1 || F(2)", d, unknown), std::nullopt);
}

TEST(ImportCondition, KnowsTheMacrosTheCompilerDefinesFromItsFlags) {
  for (const char* name : {"__AVX2__", "__AVX512BF16__", "__AMX_TILE__", "__F16C__", "__ARM_FEATURE_SVE", "__riscv_v",
                           "__aarch64__", "__x86_64__", "__CUDACC__", "__CUDA_ARCH__", "_WIN32"})
    EXPECT_TRUE(predefined_by_compiler(name)) << name;
  // What a build defines itself, reserved spellings among them.
  for (const char* name : {"NDEBUG", "USE_ROCM", "TORCH_EXTENSION_NAME", "_GLIBCXX_USE_CXX11_ABI",
                           "__CUDA_NO_HALF_OPERATORS__", "AVX2", "__AV"})
    EXPECT_FALSE(predefined_by_compiler(name)) << name;
}

// The activation kernel's pattern (kernels-community): one op set defined
// for the stable ABI under #if CUDA_KERNEL and for the unstable one under
// #else, with per-backend impls nested in the second.
constexpr const char* kPerBackend = R"cc(#include "registration.h"
#include "binding.h"
#define LOCAL_FLAG
#if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
STABLE_TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("act(Tensor! out, Tensor input) -> ()");
}
STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, ops) {
  ops.impl("act", TORCH_BOX(&act));
}
#else
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("act(Tensor! out, Tensor input) -> ()");
#if defined(METAL_KERNEL)
  ops.impl("act", torch::kMPS, &act);
#elif defined(CPU_KERNEL) && defined(LOCAL_FLAG)
  ops.impl("act", torch::kCPU, &act);
#endif
#ifndef CPU_KERNEL
  ops.def("gpu_only(Tensor x) -> Tensor");
#endif
#if TORCH_VERSION_AT_LEAST(2, 10)
  ops.def("versioned(Tensor x) -> Tensor");
#endif
}
#endif
)cc";

TEST(ImportScan, AConfigurationDropsTheBranchesItDoesNotTake) {
  Configuration cpu{{{"CPU_KERNEL", "1"}}, {}};
  const auto s = scan_cpp(kPerBackend, &cpu);
  // Only the unstable block's def, its CPU impl and the undecidable version branch are read.
  std::vector<std::string> read;
  for (const Token& t : s.tokens)
    if (t.kind == Token::Kind::String) read.push_back(t.text + (t.guard < 0 ? "" : " | " + s.guards[t.guard]));
  EXPECT_EQ(read, (std::vector<std::string>{"act(Tensor! out, Tensor input) -> ()", "act",
                                            "versioned(Tensor x) -> Tensor | #if TORCH_VERSION_AT_LEAST(2, 10)"}));
  EXPECT_EQ(s.quoted_includes, (std::vector<std::string>{"registration.h", "binding.h"}));
}

// xformers' sparse24_gemm_sm90.cu: its ops stand under the compiler's version
// and a macro CUTLASS's headers define; a CUDA configuration must read them.
constexpr const char* kUnderTheCompilersVersion = R"cc(#include <cutlass/gemm/collective/collective_builder.hpp>
#ifndef _WIN32
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ > 0)
#ifdef CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED
#define HAS_SM90
#endif
#ifdef HAS_SM90
STABLE_TORCH_LIBRARY_FRAGMENT(xformers, m) {
  m.def("sm90_compress(Tensor a) -> (Tensor, Tensor)");
}
#endif
#endif
#endif
#ifndef USE_ROCM
#undef NOT_ROCM
#endif
#ifdef NOT_ROCM
STABLE_TORCH_LIBRARY_FRAGMENT(xformers, m) {
  m.def("rocm_only(Tensor a) -> Tensor");
}
#endif
)cc";

TEST(ImportScan, ABranchUnderAMacroOfUnknownValueIsReadWithItsGuard) {
  Configuration cuda{{{"USE_CUDA", "1"}, {"NOT_ROCM", "1"}}, {"CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED"}};
  for (std::string_view name : compiler_macros()) cuda.unknown.emplace(name);
  const auto found = find_registrations({{"sm90.cu", kUnderTheCompilersVersion}}, &cuda);
  ASSERT_EQ(found.ops.size(), 1u);
  EXPECT_EQ(found.ops[0].name, "sm90_compress");
  // Each undecided condition in the guard; _WIN32, a target's, is undefined and decided.
  EXPECT_EQ(found.ops[0].guard,
            "#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ > 0) && "
            "#ifdef HAS_SM90");
  // The version given decides; the header's macro still does not.
  cuda.defines["__CUDACC_VER_MAJOR__"] = "13";
  const auto given = find_registrations({{"sm90.cu", kUnderTheCompilersVersion}}, &cuda);
  ASSERT_EQ(given.ops.size(), 1u);
  EXPECT_EQ(given.ops[0].guard, "#ifdef HAS_SM90");
  // Without the header's macro marked (an include import could not find), the branch is dropped, as before.
  Configuration bare{{{"USE_CUDA", "1"}, {"__CUDACC_VER_MAJOR__", "13"}}, {}};
  EXPECT_TRUE(find_registrations({{"sm90.cu", kUnderTheCompilersVersion}}, &bare).ops.empty());
}

// The #if conditions an #include stands under, which the scan could not decide, as one #if expression: a header
// of copied declarations includes it under them (torch_sparse's version.cpp: <hip/hip_version.h> under WITH_CUDA
// and USE_ROCM). A decided branch adds nothing; a too long condition is dropped, the include read as plain.
TEST(ImportScan, AnIncludeKeepsTheConditionsItStandsUnder) {
  const std::string source = R"(#include <torch/script.h>
#ifdef WITH_CUDA
#ifdef USE_ROCM
#include <hip/hip_version.h>
#elif CUDA_VERSION >= 12000
#include <cuda.h>
#else
#include "old.h"
#endif
#endif
#ifndef NDEBUG
#include "debug.h"
#endif
#if 1
#include "always.h"
#endif
)";
  const auto scanned = scan_cpp(source);
  ASSERT_EQ(scanned.includes.size(), 6u);
  ASSERT_EQ(scanned.include_conditions.size(), 6u);
  EXPECT_EQ(scanned.include_conditions[0], "");
  EXPECT_EQ(scanned.include_conditions[1], "defined(WITH_CUDA) && defined(USE_ROCM)");
  EXPECT_EQ(scanned.include_conditions[2], "defined(WITH_CUDA) && !defined(USE_ROCM) && (CUDA_VERSION >= 12000)");
  EXPECT_EQ(scanned.include_conditions[3],
            "defined(WITH_CUDA) && !defined(USE_ROCM) && !(CUDA_VERSION >= 12000)");
  EXPECT_EQ(scanned.include_conditions[4], "!defined(NDEBUG)");
  EXPECT_EQ(scanned.include_conditions[5], "(1)");
  // Under a configuration, the decided branches drop out of the condition (WITH_CUDA given, USE_ROCM not).
  Configuration cuda{{{"WITH_CUDA", "1"}}, {"CUDA_VERSION"}};
  const auto configured = scan_cpp(source, &cuda);
  ASSERT_EQ(configured.includes.size(), 5u);
  EXPECT_EQ(configured.include_conditions[1], "!defined(USE_ROCM) && (CUDA_VERSION >= 12000)");
  // A condition past 4 KiB is not carried.
  const auto long_condition = scan_cpp("#if " + std::string(5000, '!') + "X\n#include \"a.h\"\n#endif\n");
  ASSERT_EQ(long_condition.include_conditions.size(), 1u);
  EXPECT_EQ(long_condition.include_conditions[0], "");
  // Nor one that, written out again, could reach past its #if line: an unclosed comment, a backslash.
  const auto comment = scan_cpp("#if A /* open\n#include \"a.h\"\n#endif\n#if B \\ C\n#include \"b.h\"\n#endif\n");
  ASSERT_EQ(comment.include_conditions.size(), 2u);
  EXPECT_EQ(comment.include_conditions[0], "");
  EXPECT_EQ(comment.include_conditions[1], "");
}

TEST(ImportFind, OneOpPerBuildConfiguration) {
  // Without a configuration both definitions are read: one op, refused with the way out.
  const auto all = find_registrations({{"b.cc", kPerBackend}});
  ASSERT_GE(all.ops.size(), 1u);
  EXPECT_EQ(all.ops[0].name, "act");
  ASSERT_EQ(all.ops[0].needs.size(), 1u);
  EXPECT_NE(all.ops[0].needs[0].find("defined twice, stable ABI at b.cc:6 (under #if defined(CUDA_KERNEL) || "
                                     "defined(ROCM_KERNEL)) and unstable ABI at b.cc:13 (under #else (after #if "
                                     "defined(CUDA_KERNEL) || defined(ROCM_KERNEL)))"),
            std::string::npos)
      << all.ops[0].needs[0];
  EXPECT_NE(all.ops[0].needs[0].find("--define"), std::string::npos);

  Configuration cpu{{{"CPU_KERNEL", "1"}}, {}};
  const auto on_cpu = find_registrations({{"b.cc", kPerBackend}}, &cpu);
  ASSERT_EQ(on_cpu.ops.size(), 2u);
  EXPECT_EQ(on_cpu.ops[0].abi, model::Abi::Unstable);
  EXPECT_TRUE(on_cpu.ops[0].needs.empty());
  ASSERT_EQ(on_cpu.ops[0].kernels.size(), 1u);
  EXPECT_EQ(on_cpu.ops[0].kernels[0].dispatch_key, "CPU");
  EXPECT_EQ(on_cpu.ops[1].name, "versioned");
  EXPECT_EQ(on_cpu.ops[1].guard, "#if TORCH_VERSION_AT_LEAST(2, 10)");

  Configuration cuda{{{"CUDA_KERNEL", "1"}}, {}};
  const auto on_cuda = find_registrations({{"b.cc", kPerBackend}}, &cuda);
  ASSERT_EQ(on_cuda.ops.size(), 1u);
  EXPECT_EQ(on_cuda.ops[0].abi, model::Abi::Stable);
  ASSERT_EQ(on_cuda.ops[0].kernels.size(), 1u);
  EXPECT_EQ(on_cuda.ops[0].kernels[0].dispatch_key, "CUDA");

  Configuration metal{{{"METAL_KERNEL", "1"}}, {}};
  const auto on_metal = find_registrations({{"b.cc", kPerBackend}}, &metal);
  ASSERT_EQ(on_metal.ops.size(), 3u);
  EXPECT_EQ(on_metal.ops[0].kernels[0].dispatch_key, "MPS");
  EXPECT_EQ(on_metal.ops[1].name, "gpu_only");
}

}  // namespace
}  // namespace opgen::import

// The C++ types PyTorch's schema inference takes, mapped back through the
// type table as import reads them from a declaration.
TEST(ImportInfer, CppTypesMapToTheSchemaTypesPyTorchInfers) {
  EXPECT_EQ(opgen::import::schema_type_of("const at::Tensor&", false), "Tensor");
  EXPECT_EQ(opgen::import::schema_type_of("torch::Tensor", true), "Tensor");
  EXPECT_EQ(opgen::import::schema_type_of("at::Tensor &", false), "Tensor");
  EXPECT_EQ(opgen::import::schema_type_of("const c10::optional<at::Tensor>&", false), "Tensor?");
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<at::Tensor>", false), "Tensor[]");
  EXPECT_EQ(opgen::import::schema_type_of("at::TensorList", false), "Tensor[]");
  EXPECT_EQ(opgen::import::schema_type_of("int64_t", true), "int");
  EXPECT_EQ(opgen::import::schema_type_of("double", false), "float");
  EXPECT_EQ(opgen::import::schema_type_of("c10::string_view", false), "str");
  EXPECT_EQ(opgen::import::schema_type_of("const std::vector<std::string>&", false), "str[]");
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<int64_t>", true), "int[]");
  // Not what the inference takes (int, float), or no row (nested vectors).
  EXPECT_EQ(opgen::import::schema_type_of("int", false), std::nullopt);
  EXPECT_EQ(opgen::import::schema_type_of("float", false), std::nullopt);
  // Lists and optionals by structure, as c10's getTypePtr infers them (sglang's register_graph_buffers).
  EXPECT_EQ(opgen::import::schema_type_of("const std::vector<std::vector<int64_t>>&", false), "int[][]");
  EXPECT_EQ(opgen::import::schema_type_of("c10::List<int64_t>", false), "int[]");
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<std::optional<at::Tensor>>", false), "Tensor?[]");
  EXPECT_EQ(opgen::import::schema_type_of("c10::ArrayRef<double>", false), "float[]");
  // Not as returns where opgen returns no such type; not a leaf PyTorch refuses, at any depth.
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<std::vector<int64_t>>", true), std::nullopt);
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<std::vector<int>>", false), std::nullopt);
  EXPECT_EQ(opgen::import::schema_type_of("std::vector<int64_t>::iterator", false), std::nullopt);
  // Names through the aliases given.
  const opgen::import::AliasLookup alias = [](const std::string& name) -> std::optional<std::string> {
    if (name == "fptr_t") return "int64_t";
    return std::nullopt;
  };
  EXPECT_EQ(opgen::import::schema_type_of("const std::vector<fptr_t>&", false, alias), "int[]");
  // Dicts and tuples by structure, their names through aliases (torch_sparse's samplers: rel_t a std::string,
  // edge_t a tuple of three); a Dict or tuple opgen has no row for is none.
  const opgen::import::AliasLookup sparse = [](const std::string& name) -> std::optional<std::string> {
    if (name == "rel_t") return "std::string";
    if (name == "edge_t") return "std::tuple<std::string, std::string, std::string>";
    return std::nullopt;
  };
  EXPECT_EQ(opgen::import::schema_type_of("const c10::Dict<rel_t, torch::Tensor>&", false, sparse), "Dict(str, Tensor)");
  EXPECT_EQ(opgen::import::schema_type_of("c10::Dict<rel_t, torch::Tensor>", true, sparse), "Dict(str, Tensor)");
  EXPECT_EQ(opgen::import::schema_type_of("const c10::Dict<std::string, std::vector<int64_t>>&", false),
            "Dict(str, int[])");
  EXPECT_EQ(opgen::import::schema_type_of("const std::vector<edge_t>&", false, sparse), "(str, str, str)[]");
  EXPECT_EQ(opgen::import::schema_type_of("std::tuple<int64_t, int64_t>", false), "(int, int)");
  EXPECT_EQ(opgen::import::schema_type_of("c10::Dict<int64_t, at::Tensor>", false), std::nullopt);
  EXPECT_EQ(opgen::import::schema_type_of("std::tuple<double, double>", false), std::nullopt);
  EXPECT_EQ(opgen::import::schema_type_of("c10::Dict<std::string>", false), std::nullopt);
}

// The walk over the headers a source includes, for the macros they may define: their includes followed, beside
// the file and on the include path, within its limits (a hostile tree ends it with a note).
TEST(ImportHeaderMacros, FollowsIncludesAndStopsAtItsLimits) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "opgen_header_macros";
  fs::remove_all(root);
  fs::create_directories(root / "include" / "lib");
  auto write = [](const fs::path& path, const std::string& text) { std::ofstream(path) << text; };
  write(root / "include" / "lib" / "config.h", "#pragma once\n#include \"arch.h\"\n#define LIB_CONFIG 1\n");
  write(root / "include" / "lib" / "arch.h", "#if (__CUDACC_VER_MAJOR__ >= 12)\n#define LIB_SM90_SUPPORTED\n#endif\n");
  const std::vector<opgen::import::SourceFile> sources = {
      {(root / "ops.cu").string(), "#include <lib/config.h>\n#include \"missing.h\"\n#define OWN 1\n"}};
  const auto all = opgen::import::macros_headers_define(sources, {root / "include"});
  EXPECT_EQ(all.names, (std::set<std::string>{"LIB_CONFIG", "LIB_SM90_SUPPORTED"}));
  EXPECT_TRUE(all.note.empty()) << all.note;
  const auto one = opgen::import::macros_headers_define(sources, {root / "include"}, {.headers = 1});
  EXPECT_EQ(one.names, (std::set<std::string>{"LIB_CONFIG"}));
  EXPECT_NE(one.note.find("up to 1 headers"), std::string::npos) << one.note;
  fs::remove_all(root);
}
