#include <gtest/gtest.h>

#include "test_util.h"

namespace opgen {
namespace {

using testing::load_and_check;

TEST(Loader, ReadsEveryKey) {
  auto r = load_and_check("schemas/foo.yaml", R"yaml(schema: "foo(Tensor(a!) x, Tensor y, float eps=1e-06) -> ()"
doc: does foo
abi: unstable
dispatch: [CPU]
tags: [pt2_compliant_tag]
mutates: [x]
checks:
  x: {dtype: [float32, float16], contiguous: true}
  y: {same_dtype: x, same_device: x, dim: 2}
require: ["y.size(0) == x.size(0)"]
)yaml");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_EQ(op.op_name(), "foo");
  EXPECT_EQ(op.doc, "does foo");
  EXPECT_EQ(op.abi.value, model::Abi::Unstable);
  ASSERT_EQ(op.dispatch.size(), 1u);
  EXPECT_EQ(op.dispatch[0].value, "CPU");
  ASSERT_EQ(op.checks.size(), 2u);
  EXPECT_EQ(op.checks[0].dtypes.size(), 2u);
  EXPECT_TRUE(op.checks[0].contiguous);
  EXPECT_EQ(op.checks[1].dim->value, 2);
  EXPECT_EQ(op.require.size(), 1u);
}

TEST(Loader, UnknownKeySuggestsTheNearest) {
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nmutate: [x]\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:3:1: error[E0105]: unknown key 'mutate' in the spec"), std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("note: did you mean 'mutates'?"), std::string::npos) << r.diagnostics;
}

TEST(Loader, DuplicateKeyIsAnError) {
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\ndoc: a\ndoc: b\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:4:1: error[E0106]: duplicate key 'doc'"), std::string::npos) << r.diagnostics;
}

TEST(Loader, YamlSyntaxErrorHasItsPosition) {
  auto r = load_and_check("schemas/foo.yaml", "schema: [\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:2:1: error[E0101]: invalid YAML"), std::string::npos) << r.diagnostics;
}

TEST(Loader, SchemaErrorPointsInsideTheString) {
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x, Tensr y) -> Tensor\"\n");
  EXPECT_FALSE(r.ok);
  // Column 9 is the string's first character; 'Tensr' starts 14 further on.
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:1:24: error[E0202]: invalid schema"), std::string::npos) << r.diagnostics;
}

TEST(Loader, WrongValueType) {
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\ndoc: [a, b]\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:3:6: error[E0108]: 'doc' must be a string"), std::string::npos)
      << r.diagnostics;
}

TEST(Loader, MissingSchema) {
  auto r = load_and_check("schemas/foo.yaml", "doc: hi\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("missing required key 'schema'"), std::string::npos) << r.diagnostics;
}

TEST(Loader, NonMappingTopLevel) {
  auto r = load_and_check("schemas/foo.yaml", "- a\n- b\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:1:1: error[E0103]: a spec must be a YAML mapping"), std::string::npos);
}

TEST(Loader, BadAbiValue) {
  auto r = load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nabi: fast\n");
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:3:6: error[E0109]: 'abi' must be 'stable' or 'unstable', not 'fast'"),
            std::string::npos)
      << r.diagnostics;
}

TEST(Loader, SecondYamlDocumentIsAnError) {
  auto r = load_and_check("schemas/foo.yaml",
                          "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\n---\nschema: \"bar() -> ()\"\n");
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:4:1: error[E0102]: a spec file holds one YAML document"), std::string::npos)
      << r.diagnostics;
}

TEST(Loader, MisspelledBackwardIsReportedOnce) {
  auto r = load_and_check("schemas/foo.yaml",
                          "schema: \"foo(Tensor x) -> Tensor\"\nfake: [like(x)]\nautograd: {backwards: foo_bwd}\n");
  EXPECT_NE(r.diagnostics.find("did you mean 'backward'?"), std::string::npos) << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("needs a 'backward' op"), std::string::npos) << r.diagnostics;
}

}  // namespace
}  // namespace opgen
