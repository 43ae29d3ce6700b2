// Regression tests for what the fuzz targets of tests/fuzz/ found: each
// input below once crashed, hung or broke an invariant.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

#include "test_util.h"

namespace opgen {
namespace {

using testing::load_and_check;

// Runs `fn` on a thread and fails (instead of hanging the suite) when it
// takes longer than a few seconds.
template <typename Fn>
auto within_seconds(Fn fn) {
  auto result = std::async(std::launch::async, fn);
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "still running after 10 s";
    std::quick_exit(1);  // the thread cannot be stopped
  }
  return result.get();
}

// fuzz_spec: yaml-cpp 0.7's YAML::LoadAll never returns (and allocates
// without bound) on a stray ',' at the top level (jbeder/yaml-cpp#1040).
TEST(FuzzRegressions, StrayCommaAtTopLevelIsAYamlError) {
  auto r = within_seconds([] { return load_and_check("schemas/foo.yaml", ",schema: \"foo(Tensor x) -> Tensor\"\n"); });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics, "schemas/foo.yaml:1:1: error[E0101]: invalid YAML: unexpected ','\n");
  r = within_seconds([] { return load_and_check("schemas/foo.yaml", ","); });
  EXPECT_EQ(r.diagnostics, "schemas/foo.yaml:1:1: error[E0101]: invalid YAML: unexpected ','\n");
}

TEST(FuzzRegressions, StrayCommaInSecondDocument) {
  auto r = within_seconds(
      [] { return load_and_check("schemas/foo.yaml", "schema: \"foo(Tensor x) -> Tensor\"\n---\n,\n"); });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("schemas/foo.yaml:3:1: error[E0102]: a spec file holds one YAML document"), std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace opgen
