// Text from outside written into YAML (support/yaml_writer.h) reads back,
// through yaml-cpp, as exactly what was meant: a scalar as the same string,
// a comment as nothing at all.
#include "support/yaml_writer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace opgen {
namespace {

const std::vector<std::string>& hostile() {
  static const std::vector<std::string> texts = {
      "", "plain", "true", "on", "No", "null", "~", "1", "0x1f", "1e3", "-", "a: b", "a #b", "[x]", "{x: 1}",
      "\"quoted\"", "'single'", "back\\slash", "new\nline", "carriage\rreturn", "tab\there", "nul\x01", "del\x7f",
      "nel \xc2\x85 ls \xe2\x80\xa8 ps \xe2\x80\xa9", "caf\xc3\xa9", "*alias", "&anchor", "!tag", "%directive",
      "key:\n  doc: injected", "- item", "---", "...", "|", ">", "@", "`", " leading", "trailing ", "x\n#: y"};
  return texts;
}

TEST(YamlWriter, AScalarReadsBackAsTheSameString) {
  for (const std::string& text : hostile()) {
    for (const std::string& scalar : {yaml_double_quoted(text), yaml_scalar(text)}) {
      const YAML::Node doc = YAML::Load("key: " + scalar + "\nother: 1\n");
      ASSERT_TRUE(doc.IsMap()) << scalar;
      EXPECT_EQ(doc.size(), 2u) << scalar;
      EXPECT_EQ(doc["key"].as<std::string>(), text) << scalar;
      EXPECT_EQ(scalar.find('\n'), std::string::npos) << scalar;
    }
  }
}

TEST(YamlWriter, ACommentIsOneLineOfPrintableAscii) {
  for (const std::string& text : hostile()) {
    const std::string comment = yaml_comment(text);
    for (const char c : comment) EXPECT_TRUE(c == '\t' || (c >= 0x20 && c < 0x7f)) << comment;
    const YAML::Node doc = YAML::Load("# " + comment + "\nkey: 1  # " + comment + "\n");
    ASSERT_TRUE(doc.IsMap()) << comment;
    EXPECT_EQ(doc.size(), 1u) << comment;
  }
}

TEST(YamlWriter, NamesStayPlain) {
  EXPECT_EQ(yaml_scalar("CPU"), "CPU");
  EXPECT_EQ(yaml_scalar("pt2_compliant_tag"), "pt2_compliant_tag");
  EXPECT_EQ(yaml_scalar("on"), "\"on\"");  // PyYAML reads a plain `on` as True
  EXPECT_EQ(yaml_double_quoted("a\"b"), "\"a\\\"b\"");
}

}  // namespace
}  // namespace opgen
