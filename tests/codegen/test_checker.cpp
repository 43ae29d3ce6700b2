#include <gtest/gtest.h>

#include <fmt/format.h>

#include "model/tags.h"
#include "model/types.h"
#include "test_util.h"

namespace opgen {
namespace {

using testing::load_and_check;
using testing::SpecFile;

// Asserts that checking `text` as schemas/<stem>.yaml fails with a
// diagnostic containing `expected`.
void expect_error(const std::string& stem, const std::string& text, const std::string& expected) {
  auto r = load_and_check("schemas/" + stem + ".yaml", text);
  EXPECT_FALSE(r.ok) << "expected an error for:\n" << text;
  EXPECT_NE(r.diagnostics.find(expected), std::string::npos) << "expected '" << expected << "' in:\n"
                                                            << r.diagnostics;
}

TEST(Checker, FileNameMustMatchOpName) {
  expect_error("bar", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\n",
               "schemas/bar.yaml:1:10: error[E0304]: the op is named 'foo' but its file is 'bar.yaml'");
}

TEST(Checker, NamespaceMustMatch) {
  expect_error("foo", "schema: \"other::foo(Tensor x) -> Tensor\"\nfake: [like(x)]\n",
               "namespace 'other' differs from the library's 'testns'");
}

// `dispatch: []` is the schema alone (its kernels registered elsewhere, as
// `opgen import` writes it); no `dispatch:` is CPU and CUDA kernels.
TEST(Checker, EmptyDispatchIsTheSchemaAlone) {
  auto alone = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor(a!) x) -> ()\"\nabi: unstable\ndispatch: []\n");
  ASSERT_TRUE(alone.ok) << alone.diagnostics;
  EXPECT_TRUE(alone.library.ops.at(0).dispatch.empty());
  auto defaulted = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor(a!) x) -> ()\"\nabi: unstable\n");
  ASSERT_TRUE(defaulted.ok) << defaulted.diagnostics;
  ASSERT_EQ(defaulted.library.ops.at(0).dispatch.size(), 2u);
  EXPECT_EQ(defaulted.library.ops.at(0).dispatch[0].value, "CPU");
}

TEST(Checker, SameOpInTwoFiles) {
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\n"},
      {"a/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("op 'foo' is defined twice"), std::string::npos) << r.diagnostics;
}

TEST(Checker, MutatesAddsAnnotations) {
  auto r = load_and_check("schemas/foo_.yaml", "schema: \"foo_(Tensor x, Tensor y, Tensor[] zs) -> ()\"\nmutates: [x, zs]\n");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.library.ops[0].schema.to_string(), "foo_(Tensor(a!) x, Tensor y, Tensor(b!)[] zs) -> ()");
}

TEST(Checker, MutatesMustNameATensor) {
  expect_error("foo_", "schema: \"foo_(Tensor x, int n) -> ()\"\nmutates: [n]\n",
               "schemas/foo_.yaml:2:11: error[E0314]: 'mutates' names 'n', which is a 'int', not a tensor");
}

TEST(Checker, MutatesNamesAMissingArgument) {
  expect_error("foo_", "schema: \"foo_(Tensor input) -> ()\"\nmutates: [inptu]\n", "did you mean 'input'?");
}

TEST(Checker, AnnotationWithoutMutatesEntry) {
  expect_error("foo_", "schema: \"foo_(Tensor(a!) x, Tensor(b!) y) -> ()\"\nmutates: [x]\n",
               "argument 'y' is annotated as mutated but 'mutates' does not list it");
}

TEST(Checker, AResultMayNotBeAView) {
  expect_error("foo_", "schema: \"foo_(Tensor(a!) x) -> Tensor(a)\"\n", "that is not a tensor argument it writes");
}

// Outside the out= convention an aliasing result is a warning: eager only.
TEST(Checker, APositionalAliasedArgumentIsAWarning) {
  auto r = load_and_check("schemas/foo_.yaml", "schema: \"foo_(Tensor(a!) x) -> Tensor(a!)\"\nsamples: []\n");
  EXPECT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("warning[W0401]: a result aliases 'x', outside the out= convention"), std::string::npos)
      << r.diagnostics;
}

// The out= convention is tagged `out`, on both ABIs: on the stable one,
// whose releases cannot carry the tag on a def, the package defines the op.
TEST(Checker, TheOutConventionIsTaggedOut) {
  const std::string spec = "schema: \"foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\"\nsamples: []\n";
  auto r = load_and_check({{"schemas/foo.out.yaml", spec + "abi: unstable\n"}}, 0x020d000000000000ULL);
  EXPECT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.diagnostics, "");
  ASSERT_EQ(r.library.ops.size(), 1u);
  ASSERT_EQ(r.library.ops[0].tags.size(), 1u);
  EXPECT_EQ(r.library.ops[0].tags[0].value, "out");
  for (uint64_t target : {0x020a000000000000ULL, 0x020d000000000000ULL, 0x020f000000000000ULL}) {
    auto stable = load_and_check({{"schemas/foo.out.yaml", spec}}, target);
    EXPECT_TRUE(stable.ok) << stable.diagnostics;
    EXPECT_EQ(stable.diagnostics, "");
    ASSERT_EQ(stable.library.ops[0].tags.size(), 1u);
    EXPECT_EQ(stable.library.ops[0].tags[0].value, "out");
    EXPECT_TRUE(model::defined_from_python_for_tags(stable.library.ops[0]));
  }
}

// Tags no stable release carries on a def (`out`, `inplace`) make the package
// define a stable op, whatever the target (other tags need 2.12 on a C++ def).
TEST(Checker, AStableOpWithATagItsConversionLacksIsDefinedByThePackage) {
  for (const char* tag : {"out", "inplace"}) {
    const std::string spec = fmt::format("schema: \"foo_(Tensor(a!) x) -> Tensor(a!)\"\nabi: stable\n"
                                         "tags: [{}, pt2_compliant_tag]\nsamples: []\n", tag);
    for (uint64_t target : {0x020a000000000000ULL, 0x020d000000000000ULL}) {
      auto r = load_and_check({{"schemas/foo_.yaml", spec}}, target);
      EXPECT_TRUE(r.ok) << r.diagnostics;
      EXPECT_TRUE(model::defined_from_python_for_tags(r.library.ops[0]));
    }
  }
}

TEST(Checker, InplaceTagAllowsReturningTheFirstArgument) {
  auto r = load_and_check("schemas/foo_.yaml",
                          "schema: \"foo_(Tensor(a!) x, float f) -> Tensor(a!)\"\nabi: unstable\ntags: [inplace]\n");
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

TEST(Checker, InplaceTagNeedsTheFirstArgumentMutated) {
  expect_error("foo_", "schema: \"foo_(Tensor x, Tensor(a!) y) -> Tensor(a!)\"\nabi: unstable\ntags: [inplace]\n",
               "must mutate exactly its first argument and return it");
}

// vLLM's CPU extension registers shm_send_tensor_list(int handle, Tensor(a)[] tensor_list, int dst) -> () and
// shm_recv_tensor_list(int handle, int src) -> Tensor[](a): PyTorch takes both and calls them eagerly.
TEST(Checker, AliasSetsNoOtherSideSharesAreEagerOnly) {
  auto send = load_and_check("schemas/send.yaml", "schema: \"send(int handle, Tensor(a)[] ts, int dst) -> ()\"\n"
                                                  "samples: []\n");
  EXPECT_TRUE(send.ok) << send.diagnostics;
  EXPECT_NE(send.diagnostics.find("warning[W0405]: argument 'ts' is annotated as an alias (a) without '!'"),
            std::string::npos) << send.diagnostics;
  auto recv = load_and_check("schemas/recv.yaml", "schema: \"recv(Tensor buf, int src) -> Tensor(a)\"\n"
                                                  "fake: [like(buf)]\nsamples: []\n");
  EXPECT_TRUE(recv.ok) << recv.diagnostics;
  EXPECT_NE(recv.diagnostics.find("warning[W0404]: a result (Tensor(a)) is in an alias set no argument has"),
            std::string::npos) << recv.diagnostics;
  // Its result is a new tensor to the fake, which a rule describes.
  expect_error("recv", "schema: \"recv(Tensor buf, int src) -> Tensor(a)\"\nsamples: []\n", "1 output but 0");
  // A result in a set an argument has otherwise is none of PyTorch's conventions: still E0404.
  expect_error("foo_", "schema: \"foo_(Tensor(a!) x) -> Tensor(a)\"\nsamples: []\n", "error[E0404]");
}

TEST(Checker, SymmMemNeedsGroupName) {
  expect_error("ar", "schema: \"ar(Tensor x) -> Tensor\"\nfake: [like(x)]\nsymm_mem: [x]\n",
               "needs a 'str group_name' argument");
}

TEST(Checker, SymmMemOnNonTensor) {
  expect_error("ar", "schema: \"ar(Tensor x, int n, str group_name) -> Tensor\"\nfake: [like(x)]\nsymm_mem: [n]\n",
               "'symm_mem' names 'n', which is a 'int', not a tensor");
}

TEST(Checker, StableAbiRejectsScalar) {
  expect_error("foo", "schema: \"foo(Tensor x, Scalar n) -> Tensor\"\nfake: [like(x)]\n",
               "type 'Scalar' cannot be carried by the stable ABI");
}

// What the stable ABI carries since 2.10 (probed on 2.10 and 2.14 runtimes;
// tests/external_project's carry op calls them all).
TEST(Checker, StableAbiCarriesSymIntAndTheWiderLists) {
  for (const char* type : {"SymInt", "SymInt?", "SymInt[]", "SymInt[]?", "Tensor?[]", "Tensor[]?", "bool[]",
                           "float[]?", "str[]", "Layout?", "MemoryFormat?"}) {
    auto r = load_and_check("schemas/foo.yaml", fmt::format("schema: \"foo(Tensor x, {} a) -> Tensor\"\n"
                                                            "fake: [like(x)]\nsamples: []\n", type));
    EXPECT_TRUE(r.ok) << type << ":\n" << r.diagnostics;
  }
}

// The unstable ABI carries every type the stable one does (the checker's
// "stable ABI only" error guards rows added for one ABI first).
TEST(Checker, UnstableAbiCarriesWhatTheStableOneCarries) {
  for (const model::TypeMapping& m : model::all_type_mappings()) {
    if (!m.stable_param.empty()) {
      EXPECT_FALSE(m.unstable_param.empty()) << m.schema;
    }
  }
}

TEST(Checker, StableAbiNamesTheVersionThatCarriesAType) {
  expect_error("foo", "schema: \"foo(Tensor x, Generator? g) -> Tensor\"\nfake: [like(x)]\n",
               "type 'Generator?' needs the stable ABI of PyTorch 2.13 or newer; the target is 2.10");
}

TEST(Checker, StableTagsNeedTheirVersion) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\ntags: [pt2_compliant_tag]\n",
               "tags need the stable ABI of PyTorch 2.12 or newer; the target is 2.10");
  auto r = load_and_check(std::vector<SpecFile>{{"schemas/foo.yaml",
                                                 "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\ntags: [pt2_compliant_tag]\n"}},
                          0x020c000000000000ULL);
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

TEST(Checker, UnknownTag) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nabi: unstable\nfake: [like(x)]\ntags: [pt2_compliant]\n",
               "did you mean 'pt2_compliant_tag'?");
}

TEST(Checker, KeywordArgumentNames) {
  expect_error("foo", "schema: \"foo(Tensor x, int lambda) -> Tensor\"\nfake: [like(x)]\n",
               "argument name 'lambda' is reserved");
  expect_error("foo", "schema: \"foo(Tensor x, int delete) -> Tensor\"\nfake: [like(x)]\n",
               "argument name 'delete' is reserved");
}

TEST(Checker, EveryOutputNeedsAFakeRule) {
  expect_error("foo", "schema: \"foo(Tensor x) -> (Tensor, Tensor)\"\nfake: [like(x)]\n",
               "the op has 2 outputs but 1 'fake' rule");
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\n", "the op has 1 output but 0 'fake' rules");
}

TEST(Checker, FakeRuleErrorsPointIntoTheRule) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake:\n  - like(y)\n", "schemas/foo.yaml:3:10: error[E0502]:");
}

TEST(Checker, UnknownDtypeInChecks) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nchecks:\n  x: {dtype: [flaot32]}\n",
               "did you mean 'float32'?");
}

TEST(Checker, AutogradNeedsAKnownBackward) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nautograd: {backward: foo_bwd, grads: [x]}\n",
               "backward op 'foo_bwd' is not defined in this library");
}

TEST(Checker, AutogradGradsMustMatchBackwardReturns) {
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/foo.yaml",
       "schema: \"foo(Tensor x, Tensor w) -> Tensor\"\nfake: [like(x)]\nautograd: {backward: foo_bwd, grads: [x, w]}\n"},
      {"schemas/foo_bwd.yaml", "schema: \"foo_bwd(Tensor grad, Tensor x) -> Tensor\"\nfake: [like(x)]\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("returns 1 value but 'grads' names 2 inputs"), std::string::npos) << r.diagnostics;
}

TEST(Checker, AutogradBackwardArgumentsMustBind) {
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/foo.yaml",
       "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nautograd: {backward: foo_bwd, grads: [x]}\n"},
      {"schemas/foo_bwd.yaml", "schema: \"foo_bwd(Tensor grad, Tensor z) -> Tensor\"\nfake: [like(grad)]\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("argument 'z' of backward op 'foo_bwd' matches nothing of foo"), std::string::npos)
      << r.diagnostics;
}

TEST(Checker, AutogradGradsMayNameAnOptionalTensor) {
  // A Tensor? input (an optional bias) gets a gradient when it is given.
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/foo.yaml",
       "schema: \"foo(Tensor x, Tensor? b=None) -> Tensor\"\nfake: [like(x)]\n"
       "autograd: {backward: foo_bwd, grads: [x, b]}\n"},
      {"schemas/foo_bwd.yaml", "schema: \"foo_bwd(Tensor grad, Tensor x) -> (Tensor, Tensor)\"\nfake: [like(x), like(x)]\n"}});
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

TEST(Checker, EmptySamplesSilenceTheNoSamplesWarning) {
  // No samples key: warned. `samples: []`: none on purpose, not warned.
  auto missing = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x, int n) -> ()\"\n");
  EXPECT_TRUE(missing.ok) << missing.diagnostics;
  EXPECT_NE(missing.diagnostics.find("warning[W1001]: foo has no 'samples'"), std::string::npos) << missing.diagnostics;
  auto opted_out = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x, int n) -> ()\"\nsamples: []\n");
  EXPECT_TRUE(opted_out.ok) << opted_out.diagnostics;
  EXPECT_EQ(opted_out.diagnostics, "");
}

TEST(Checker, AllErrorsAreReportedInOrder) {
  auto r = load_and_check("schemas/foo.yaml",
                          "schema: \"foo(Tensor x, Scalar n) -> Tensor\"\nfake: [like(x)]\ntags: [bogus]\n");
  EXPECT_FALSE(r.ok);
  auto first = r.diagnostics.find("1:");
  auto second = r.diagnostics.find("3:");
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(second, std::string::npos);
  EXPECT_LT(first, second) << r.diagnostics;
}

TEST(Checker, SchemaWithoutAnOpName) {
  expect_error("foo", "schema: \"(Tensor x) -> Tensor\"\nfake: [like(x)]\n",
               "schemas/foo.yaml:1:10: error[E0301]: the schema has no op name");
}

TEST(Checker, OpNamesMustWorkInTheGeneratedPython) {
  expect_error("lambda", "schema: \"lambda(Tensor x) -> Tensor\"\nfake: [like(x)]\n",
               "'lambda' cannot name an op");
  expect_error("torch", "schema: \"torch(Tensor x) -> Tensor\"\nfake: [like(x)]\n", "'torch' cannot name an op");
}

// PyTorch registers `int(a!)? n` (a real project does): accepted as written,
// eager only (opcheck and torch.compile refuse it), the value not written.
TEST(Checker, AWriteAnnotationOnAValueIsAcceptedAsEagerOnly) {
  auto r = load_and_check("schemas/foo.yaml",
                          "schema: \"foo(Tensor x, int(a!)? n=None) -> Tensor\"\nfake: like(x)\nsamples: []\n");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("warning[W0402]: argument 'n' of type 'int?' is annotated as mutated"),
            std::string::npos) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_NE(op.eager_only.find("W0402"), std::string::npos);
  EXPECT_FALSE(model::is_mutable(op.schema.arguments.at(1)));
  EXPECT_EQ(model::kernel_param_type(op.schema.arguments.at(1), true), "std::optional<int64_t>");
}

// Tags PyTorch needs and a spec lacks, or that only cost: warnings, with the tag that silences them.
TEST(Checker, TagAdviceForGeneratorsAndDynamicShapes) {
  const std::string dropout = "schema: \"foo(Tensor x, float p, Generator? gen=None) -> Tensor\"\nabi: unstable\n"
                              "fake: like(x)\nsamples: []\n";
  auto r = load_and_check("schemas/foo.yaml", dropout);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:1:33: warning[W0801]: 'gen' is a Generator, but the op has no "
                               "nondeterministic_seeded tag"),
            std::string::npos) << r.diagnostics;
  r = load_and_check("schemas/foo.yaml", dropout + "tags: [nondeterministic_seeded]\n");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("W0801"), std::string::npos) << r.diagnostics;

  const std::string compact = "schema: \"foo(Tensor x, Tensor mask) -> Tensor\"\nabi: unstable\nlet:\n  n: dynamic(min=0)\n"
                              "fake: empty([n, *x.shape[1:]])\nsamples: []\n";
  r = load_and_check("schemas/foo.yaml", compact + "tags: [data_dependent_output]\n");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("warning[W0802]: tag 'data_dependent_output' is not needed"), std::string::npos)
      << r.diagnostics;
  r = load_and_check("schemas/foo.yaml", compact);
  EXPECT_EQ(r.diagnostics.find("W0802"), std::string::npos) << r.diagnostics;
  // Without dynamic() the tag may be what the op needs: no warning.
  r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nabi: unstable\n"
                                         "tags: [dynamic_output_shape]\nfake: like(x)\nsamples: []\n");
  EXPECT_EQ(r.diagnostics.find("W0802"), std::string::npos) << r.diagnostics;
}

TEST(Checker, ListOfAliasesIsAnAliasReturn) {
  expect_error("foo_", "schema: \"foo_(Tensor(a!)[] xs) -> Tensor(a!)[]\"\n", "the op returns an alias of an input");
}

TEST(Checker, LetNamesMustBePythonVariables) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nlet: {lambda: x.size(0)}\nfake: [like(x)]\n",
               "'let' name 'lambda' cannot name a variable");
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nlet: {\"n m\": x.size(0)}\nfake: [like(x)]\n",
               "'let' name 'n m' cannot name a variable");
}

TEST(Checker, RequireNamingALetSaysSo) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nlet: {n: x.size(0)}\nrequire: [n > 0]\nfake: [like(x)]\n",
               "'n' is bound by 'let:', which C++ checks cannot see");
}

TEST(Checker, FakePythonTargetIsAModuleAndAFunction) {
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake: {python: \"my-pkg:f\"}\n",
               "'python' must read 'module:function'");
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: {python: \"a.b_c:f1\"}\n");
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

TEST(Checker, AutogradGradsNamedTwice) {
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/foo.yaml",
       "schema: \"foo(Tensor x, Tensor w) -> Tensor\"\nfake: [like(x)]\nautograd: {backward: foo_bwd, grads: [x, x]}\n"},
      {"schemas/foo_bwd.yaml", "schema: \"foo_bwd(Tensor grad, Tensor x) -> (Tensor, Tensor)\"\nfake: [like(x), like(x)]\n"}});
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:3:42: error[E0703]: 'grads' names 'x' twice"), std::string::npos)
      << r.diagnostics;
}

TEST(Checker, RuleColumnsFallBackToTheScalarWhenTheyCannotMap) {
  // A folded scalar spans lines: its columns are not the file's.
  expect_error("foo", "schema: \"foo(Tensor x) -> Tensor\"\nfake:\n  - >-\n    like(\n      y)\n",
               "schemas/foo.yaml:3:5: error[E0502]: unknown name 'y'");
}

TEST(Types, TableCoversTheStableTypes) {
  for (const char* schema : {"Tensor", "Tensor?", "Tensor[]", "int", "float", "bool", "str", "ScalarType"}) {
    auto parsed = model::parse_schema(std::string("f(") + schema + " a) -> ()");
    ASSERT_TRUE(std::holds_alternative<model::FunctionSchema>(parsed)) << schema;
    const auto& arg = std::get<model::FunctionSchema>(parsed).arguments.at(0);
    const auto* m = model::find_type_mapping(*arg.type);
    ASSERT_NE(m, nullptr) << schema;
    EXPECT_NE(m->stable_since, 0u) << schema;
  }
}

}  // namespace
}  // namespace opgen
