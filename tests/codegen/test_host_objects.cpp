// Host objects: the types file's loader and checks, and the lowering of an
// op that takes them to the flat op the library registers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "test_util.h"

namespace opgen {
namespace {

using testing::load_and_check;
using testing::SpecFile;

const char* kTypes = R"(host_objects:
  Scaling:
    class: mylib.Scaling
    fields:
      factor: float
      bias: Tensor?
      out_dtype: ScalarType
  Group:
    builtin: process_group
)";

testing::Result check(const std::string& op_text, const std::string& types = kTypes, const std::string& op = "f") {
  return load_and_check(std::vector<SpecFile>{{"schemas/_types.yaml", types}, {"schemas/" + op + ".yaml", op_text}});
}

void expect_error(const testing::Result& r, const std::string& expected) {
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find(expected), std::string::npos) << "expected '" << expected << "' in:\n" << r.diagnostics;
}

TEST(HostObjects, FlatSchemaAndRules) {
  auto r = check(R"(schema: "f(Tensor x, Scaling s, *, Group? g=None) -> Tensor"
require:
  - s.bias is None or s.bias.numel() == x.numel()
  - g is None or x.dim() >= 1
fake: like(x, dtype=s.out_dtype)
samples:
  - args:
      x: {shape: [2]}
      s: {fields: {factor: 2.0, out_dtype: float32}}
  - args:
      x: {shape: [2]}
      s: {fields: {factor: 2.0, out_dtype: float32, bias: {shape: [2]}}}
      g: null
)");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_EQ(op.schema.to_string(),
            "f(Tensor x, float s_factor, Tensor? s_bias, ScalarType s_out_dtype, *, bool g_given=False, "
            "str? g_group_name=None, int? g_size=None, int? g_rank=None) -> Tensor");
  ASSERT_TRUE(op.declared_schema);
  EXPECT_EQ(op.declared_schema->to_string(), "f(Tensor x, Scaling s, *, Group? g=None) -> Tensor");
  ASSERT_EQ(op.host_args.size(), 2u);
  EXPECT_EQ(op.host_args[0].first_flat, 1u);
  EXPECT_EQ(op.host_args[1].first_flat, 4u);
  EXPECT_TRUE(op.host_args[1].optional);
  // The rules read the flat arguments; `g is None` is the flag.
  ASSERT_EQ(op.require.size(), 2u);
  EXPECT_EQ(op.require[1].expr->operands[0]->text, "not");
  EXPECT_EQ(op.require[1].expr->operands[0]->operands[0]->text, "g_given");
  // Samples give every flat argument: the optional field left out is None.
  ASSERT_EQ(op.samples.size(), 2u);
  std::vector<std::string> names;
  for (const auto& [name, value] : op.samples[0].args) names.push_back(name.value);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "s_factor", "s_out_dtype", "s_bias"}));
  names.clear();
  for (const auto& [name, value] : op.samples[1].args) names.push_back(name.value);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "s_factor", "s_out_dtype", "s_bias", "g_given", "g_group_name",
                                             "g_size", "g_rank"}));
}

TEST(HostObjects, RulesReadDeclaredFieldsOnly) {
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x, dtype=s.dtype)\n"),
               "schemas/f.yaml:2:23: error[E1104]: Scaling 's' has no field 'dtype'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x, dtype=s.out_dtpye)\n"),
               "did you mean 'out_dtype'?");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nrequire: [s is not None]\nfake: like(x)\n"),
               "'s' is not optional: it is never None");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nrequire: [s == s]\nfake: like(x)\n"),
               "'s' is a host object: a rule reads its fields");
}

TEST(HostObjects, WhereAHostObjectCannotBe) {
  expect_error(check("schema: \"f(Tensor x, Scaling[] s) -> Tensor\"\nfake: like(x)\n"),
               "error[E1103]: argument 's' cannot take a host object this way: a host object is flattened into its "
               "fields: a list or tuple of them cannot be");
  expect_error(check("schema: \"f(Tensor x) -> Scaling\"\n"), "an op cannot return a host object");
  expect_error(check("schema: \"f(Tensor x, Scaling? s=1) -> Tensor\"\nfake: like(x)\n"),
               "a host object's only default is None, on an optional one");
  expect_error(check("schema: \"f_(Tensor(a!) x, Scaling s) -> ()\"\nmutates: [x, s]\n", kTypes, "f_"),
               "'s' in 'mutates': a host object is read, never written");
  expect_error(check("schema: \"f(Tensor x, Scaling s, float s_factor) -> Tensor\"\nfake: like(x)\n"),
               "host argument 's' flattens into 's_factor', which the schema names already");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nkernels: {CPU: mylib::f}\n"),
               "an existing kernel ('kernels:') cannot take a host object");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nchecks: {s: {dim: 1}}\nfake: like(x)\n"),
               "'s' is a host object: checks apply to its tensor fields");
}

TEST(HostObjects, Samples) {
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: {fields: {factor: 1.0}}\n"),
               "the sample gives no value for field 'out_dtype' of 's'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: {fields: {factor: 1.0, out_dtype: float32, scale: 2}}\n"),
               "Scaling has no field 'scale'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: 3\n"),
               "'s' takes a Scaling: give its fields");
  expect_error(check("schema: \"f(Tensor x, float a) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      a: {fields: {factor: 1.0}}\n"),
               "'a' takes no host object");
}

TEST(HostObjects, TypesFileChecks) {
  const std::string op = "schema: \"f(Tensor x) -> Tensor\"\nfake: like(x)\nsamples: []\n";
  expect_error(check(op, "host_objects:\n  Quantizer:\n    class: m.Q\n    fields: {a: int}\n"),
               "schemas/_types.yaml:2:3: error[E1101]: 'Quantizer' is a schema type");
  expect_error(check(op, "host_objects:\n  Q:\n    class: Q\n    fields: {a: int}\n"),
               "'class' must name a Python class as module.Qualname, not 'Q'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: \"int[]\"}\n"),
               "error[E1102]: field 'a' cannot be of type 'int[]'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: \"Tensor(a!)\"}\n"),
               "field 'a' cannot be of type 'Tensor(a!)'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: Tensro}\n"),
               "'Tensro' is not a schema type");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {class: int}\n"),
               "'class' cannot name a field");
  // Names the generated C++ spells in its types: a struct or member of that
  // name shadowed them, and the kernel header did not compile (g++ 12).
  for (const char* name : {"at", "c10", "torch", "std", "int64_t", "unstable_abi", "testns"})
    expect_error(check(op, fmt::format("host_objects:\n  {}:\n    class: m.Q\n    fields: {{a: int}}\n", name)),
                 fmt::format("'{}' cannot name the kernel's struct: the generated C++ spells", name));
  for (const char* name : {"int64_t", "at", "torch"})
    expect_error(check(op, fmt::format("host_objects:\n  Q:\n    class: m.Q\n    fields: {{{}: int}}\n", name)),
                 fmt::format("'{}' cannot name a struct member", name));
  expect_error(check(op, "host_objects:\n  Q:\n    fields: {a: int}\n"), "host class 'Q' needs 'class'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n"), "host class 'Q' needs 'fields'");
  expect_error(check(op, "host_objects:\n  G:\n    builtin: process_grp\n"), "did you mean 'process_group'?");
  expect_error(check(op, "host_objects:\n  G:\n    builtin: process_group\n    fields: {a: int}\n"),
               "a built-in host class takes no 'class' or 'fields'");
  expect_error(check(op, "host_object: {}\n"), "unknown key 'host_object' in the types file");
  expect_error(check(op, "host_objects: {}\n---\nx: 1\n"), "a types file holds one YAML document");
  // An empty types file declares nothing; a second one is an error.
  EXPECT_TRUE(check(op, "").ok);
  expect_error(load_and_check(std::vector<SpecFile>{{"a/_types.yaml", kTypes}, {"b/_types.yaml", kTypes},
                                                    {"schemas/f.yaml", op}}),
               "b/_types.yaml: error[E1101]: a second types file: the library's is a/_types.yaml");
}

}  // namespace
}  // namespace opgen
