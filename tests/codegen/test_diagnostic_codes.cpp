// The diagnostic-code table (support/diagnostic_codes.h) and the
// explanations built from it: every code is well-formed and unique, has a
// group, a title and an explanation with an example and its fix, and each
// YAML example really breaks (or, fixed, keeps) its rule.
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "check/explain.h"
#include "support/diagnostic_codes.h"
#include "support/diagnostics.h"

namespace opgen {
namespace {

std::string printed(const Diagnostics& diags) {
  std::ostringstream out;
  diags.print(out);
  return out.str();
}

TEST(DiagnosticCodes, EveryCodeHasOneEntry) {
  ASSERT_EQ(all_codes().size(), static_cast<size_t>(Code::Count));
  std::set<Code> codes;
  for (const CodeInfo& info : all_codes()) EXPECT_TRUE(codes.insert(info.code).second) << info.id;
  for (size_t i = 0; i < static_cast<size_t>(Code::Count); ++i)
    EXPECT_EQ(code_info(static_cast<Code>(i)).code, static_cast<Code>(i));
}

TEST(DiagnosticCodes, IdsAreWellFormedUniqueAndGrouped) {
  const std::regex form("[EW][0-9]{4}");
  std::set<std::string_view> ids;
  std::string_view previous;
  for (const CodeInfo& info : all_codes()) {
    EXPECT_TRUE(std::regex_match(std::string(info.id), form)) << info.id;
    EXPECT_TRUE(ids.insert(info.id).second) << "duplicate id " << info.id;
    EXPECT_LT(previous, info.id) << "all_codes() is ordered by id";
    previous = info.id;
    EXPECT_NE(code_group(info.id), "Other") << info.id << " has no group";
    EXPECT_EQ(find_code(info.id), &code_info(info.code)) << info.id;
  }
  EXPECT_EQ(find_code("E9999"), nullptr);
}

TEST(DiagnosticCodes, EveryCodeIsExplainedWithAnExampleAndItsFix) {
  for (const CodeInfo& info : all_codes()) {
    SCOPED_TRACE(std::string(info.id));
    ASSERT_FALSE(info.title.empty());
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(info.title[0])) || info.title[0] == '\'') << info.title;
    EXPECT_NE(info.title.back(), '.');
    EXPECT_GE(info.rule.size(), 60u) << "explain the rule and why it exists";
    EXPECT_FALSE(info.bad.empty());
    EXPECT_FALSE(info.fixed.empty());
    EXPECT_NE(info.bad, info.fixed);
    const std::string entry = check::explain_markdown(info);
    EXPECT_EQ(entry.rfind("# " + std::string(info.id) + ": ", 0), 0u) << entry;
    EXPECT_NE(entry.find("For example:"), std::string::npos);
    EXPECT_NE(entry.find("Fixed:"), std::string::npos);
  }
}

// A YAML example is run: the broken one must report its code and no other
// error, the fixed one no error and not the code.
TEST(DiagnosticCodes, YamlExamplesBreakAndKeepTheirRule) {
  for (const CodeInfo& info : all_codes()) {
    SCOPED_TRACE(std::string(info.id));
    if (info.language != "yaml") {
      // Shown as written: a transcript that prints the code.
      EXPECT_NE(info.bad.find("[" + std::string(info.id) + "]"), std::string::npos) << info.bad;
      continue;
    }
    ASSERT_FALSE(check::example_files(info.bad).empty()) << "start the example with '# <name>.yaml'";
    ASSERT_FALSE(check::example_files(info.fixed).empty()) << "start the example with '# <name>.yaml'";
    const bool warning = info.id[0] == 'W';
    const Diagnostics bad = check::check_example(info.bad);
    bool reported = false;
    for (const Diagnostic& d : bad.all()) {
      if (d.code == info.code) reported = reported || (d.severity == (warning ? Severity::Warning : Severity::Error));
      if (d.severity == Severity::Error) {
        EXPECT_EQ(code_id(d.code), info.id) << printed(bad);
      }
    }
    EXPECT_TRUE(reported) << "the example does not report " << info.id << ":\n" << printed(bad);
    const Diagnostics fixed = check::check_example(info.fixed);
    EXPECT_FALSE(fixed.has_errors()) << printed(fixed);
    for (const Diagnostic& d : fixed.all()) EXPECT_NE(d.code, info.code) << printed(fixed);
  }
}

TEST(DiagnosticCodes, ExampleFilesSplitAtTheirHeaders) {
  auto files = check::example_files("# a/foo.yaml\nschema: x\n# not a header\n# b/foo.yaml\ndoc: y\n");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "a/foo.yaml");
  EXPECT_EQ(files[0].text, "# a/foo.yaml\nschema: x\n# not a header\n");
  EXPECT_EQ(files[1].path, "b/foo.yaml");
  EXPECT_EQ(files[1].text, "# b/foo.yaml\ndoc: y\n");
  EXPECT_TRUE(check::example_files("schema: x\n").empty());
}

TEST(DiagnosticCodes, ThePageHasEveryCodeUnderItsGroup) {
  const std::string page = check::explain_page();
  for (const CodeInfo& info : all_codes()) {
    SCOPED_TRACE(std::string(info.id));
    const size_t anchor = page.find("<a id=\"" + std::string(info.id) + "\"></a>");
    ASSERT_NE(anchor, std::string::npos);
    EXPECT_NE(page.find("### " + std::string(info.id) + ": " + std::string(info.title)), std::string::npos);
    EXPECT_NE(page.find("| [" + std::string(info.id) + "](#" + std::string(info.id) + ") |"), std::string::npos);
    const size_t group = page.rfind("## " + std::string(info.id.substr(0, 3)) + "xx: ", anchor);
    EXPECT_NE(group, std::string::npos);
  }
}

TEST(Diagnostics, PrintsTheCodeOfEveryErrorAndWarning) {
  Diagnostics diags;
  diags.error(Code::FileNameMismatch, {"schemas/bar.yaml", 1, 10}, "the op is named 'foo' but its file is 'bar.yaml'")
      .notes.push_back({"name the file 'foo.yaml'"});
  EXPECT_EQ(printed(diags),
            "schemas/bar.yaml:1:10: error[E0304]: the op is named 'foo' but its file is 'bar.yaml'\n"
            "schemas/bar.yaml:1:10: note: name the file 'foo.yaml'\n");
  Diagnostics warnings;
  warnings.warning(Code::NoSamples, {"schemas/foo.yaml", 2, 9}, "foo has no 'samples'");
  EXPECT_EQ(printed(warnings), "schemas/foo.yaml:2:9: warning[W1001]: foo has no 'samples'\n");
}

TEST(Diagnostics, ExplainHintNamesTheErrorCodes) {
  Diagnostics diags;
  EXPECT_EQ(diags.explain_hint(), "");
  diags.warning(Code::NoSamples, {"a.yaml", 1, 1}, "w");
  EXPECT_EQ(diags.explain_hint(), "");
  diags.error(Code::UnknownTag, {"a.yaml", 3, 8}, "unknown tag 'x'");
  diags.error(Code::UnknownTag, {"b.yaml", 3, 8}, "unknown tag 'y'");
  EXPECT_EQ(diags.explain_hint(), "for more about this error, run 'opgen explain E0801'");
  diags.error(Code::FileNameMismatch, {"a.yaml", 1, 10}, "m");
  EXPECT_EQ(diags.explain_hint(), "for more about these errors (E0304, E0801), run 'opgen explain CODE'");
}

}  // namespace
}  // namespace opgen
