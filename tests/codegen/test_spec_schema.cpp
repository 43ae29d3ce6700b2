// codegen/spec.schema.json (for editors) and the loader/checker must accept
// the same keys and names: the JSON Schema is read here (JSON is YAML) and
// compared with the tables opgen itself uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <yaml-cpp/yaml.h>

#include "check/checker.h"
#include "load/spec_loader.h"
#include "model/dispatch_keys.h"
#include "model/types.h"

namespace opgen {
namespace {

const YAML::Node& json_schema() {
  static const YAML::Node node = YAML::LoadFile(std::string(OPGEN_SOURCE_DIR) + "/codegen/spec.schema.json");
  return node;
}

std::vector<std::string> keys_of(const YAML::Node& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) keys.push_back(entry.first.as<std::string>());
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> items_of(const YAML::Node& list) {
  std::vector<std::string> items;
  for (const auto& item : list) items.push_back(item.as<std::string>());
  std::sort(items.begin(), items.end());
  return items;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SpecJsonSchema, TopLevelKeysMatchTheLoader) {
  EXPECT_EQ(keys_of(json_schema()["properties"]), sorted(load::spec_keys()));
  EXPECT_FALSE(json_schema()["additionalProperties"].as<bool>());
}

TEST(SpecJsonSchema, CheckKeysMatchTheLoader) {
  const auto& check = json_schema()["properties"]["checks"]["additionalProperties"];
  EXPECT_EQ(keys_of(check["properties"]), sorted(load::check_keys()));
  EXPECT_FALSE(check["additionalProperties"].as<bool>());
}

TEST(SpecJsonSchema, AutogradKeysMatchTheLoader) {
  EXPECT_EQ(keys_of(json_schema()["properties"]["autograd"]["properties"]), sorted(load::autograd_keys()));
}

TEST(SpecJsonSchema, NamesMatchTheChecker) {
  const auto& defs = json_schema()["$defs"];
  EXPECT_EQ(items_of(defs["dtype"]["enum"]), sorted(model::dtype_names()));
  EXPECT_EQ(items_of(defs["dispatchKey"]["enum"]), sorted(model::registrable_dispatch_keys()));
  EXPECT_EQ(items_of(defs["tag"]["enum"]), sorted(check::known_tags()));
}

}  // namespace
}  // namespace opgen
