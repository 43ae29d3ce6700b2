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

// Scalars mean what the YAML 1.2 core schema says (the JSON Schema's rule):
// a quoted number is a string, True is a boolean, 2.0 is the integer 2.
TEST(Loader, ScalarsFollowTheYaml12CoreSchema) {
  auto r = load_and_check("schemas/foo.yaml", R"yaml(schema: "foo(Tensor x, int n, str s, float f, float[] d) -> Tensor"
checks:
  x: {contiguous: True, dim: 2.0}
fake: like(x)
flops: 0x10
samples:
  - args: {x: {shape: [+3, 0o7, N]}, n: 007, s: "3", f: 1e3, d: [0x10, 2.0]}
    dims: {N: [1.0, 2]}
)yaml");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_TRUE(op.checks[0].contiguous);
  EXPECT_EQ(op.checks[0].dim->value, 2);
  EXPECT_EQ(op.flops->text, "16");
  const auto& args = op.samples.at(0).args;
  EXPECT_EQ(args[0].second.tensor.shape, (std::vector<std::string>{"3", "7", "N"}));
  EXPECT_EQ(args[1].second.literal, "7");  // Python reads 007 as nothing at all
  EXPECT_TRUE(args[2].second.string);
  EXPECT_EQ(args[3].second.literal, "1000.0");
  EXPECT_EQ(args[4].second.literal, "[16, 2.0]");
  EXPECT_EQ(op.samples[0].dims[0].second, (std::vector<int64_t>{1, 2}));
}

TEST(Loader, QuotedNumbersAndPlainNonStringsAreTheirYamlType) {
  const std::pair<const char*, const char*> cases[] = {
      {"checks: {x: {dim: \"2\"}}\n", "'dim' must be an integer, not a string"},
      {"checks: {x: {contiguous: yes}}\n", "'contiguous' must be true or false, not a string"},
      {"checks: {x: {dim: 2.5}}\n", "'dim' must be an integer, not a number"},
      {"doc: 3\n", "'doc' must be a string, not an integer"},
      {"doc: 3\n", "YAML reads `3` as an integer: write \"3\" for the string"},
      {"dispatch: true\n", "'dispatch' must be a string or a list of strings, not a boolean"},
      {"dispatch:\n", "'dispatch' must be a string or a list of strings, not null"},
      {"flops: 1.5\n", "'flops' must be a rule (a string) or an integer, not a number"},
      {"samples: [{args: {x: {shape: [\"3\"]}}}]\n",
       "'shape entry' must be a size (an integer, 0 or more) or a dim name, not a string"},
      {"samples: [{args: {x: {shape: [2], range: [0, .nan]}}}]\n", "'range' must be [low, high], two numbers"},
      {"samples: [{args: {x: {shape: [2]}, n: \"3\"}}]\n",
       "sample value for 'n' (int) must be an integer within int64, not a string"},
      {"samples: [{args: {x: {shape: [2]}, n: 3, s: 4}}]\n",
       "sample value for 's' (str) must be a string, not `4` (a string is quoted: \"4\")"},
      {"samples: [{args: {x: {shape: [2]}, n: 3, s: x, d: [1, \"2\"]}}]\n",
       "'sample list entry' must be a number or a boolean, not a string"},
      {"checks: {1: {dim: 2}}\n", "keys of 'checks' must be strings, not an integer"},
      // An integer rule is read in decimal and parsed like any rule: INT64_MIN's literal leaves int64
      // (found by the spec fuzzer: it threw bad_variant_access).
      {"flops: -9223372036854775808\n", "error[E0501]"},
  };
  for (const auto& [extra, message] : cases) {
    auto r = load_and_check("schemas/foo.yaml",
                            std::string("schema: \"foo(Tensor x, int n=1, str s=\\\"a\\\", int[] d=[]) -> Tensor\"\n"
                                        "fake: like(x)\n") + extra);
    EXPECT_FALSE(r.ok) << extra;
    EXPECT_NE(r.diagnostics.find(message), std::string::npos) << extra << r.diagnostics;
  }
}

}  // namespace
}  // namespace opgen
