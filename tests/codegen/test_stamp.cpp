// The output stamp: a re-run may skip its work only while the inputs hash the
// same and the directory is as the stamped run left it; anything else, a torn
// or hand-edited stamp included, means a full run, never a crash.
#include <cstdio>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/file_io.h"
#include "support/output.h"
#include "support/stamp.h"

namespace fs = std::filesystem;
using opgen::find_current_stamp;
using opgen::InputKey;
using opgen::OutputTree;
using opgen::write_stamp;

namespace {

class StampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opgen-stamp-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    tree_.add("a.txt", "// @generated\nA");
    tree_.add("sub/b.txt", "// @generated\nB");
    opgen::Diagnostics diags;
    ASSERT_TRUE(tree_.commit(dir_, diags));
    write_stamp(dir_, kKey, tree_, "x.yaml:1:1: warning[W1001]: no samples\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const fs::path& relative, const std::string& text) {
    std::ofstream(dir_ / relative, std::ios::binary | std::ios::trunc) << text;
  }

  static constexpr const char* kKey = "0123456789abcdef0123456789abcdef";
  fs::path dir_;
  OutputTree tree_;
};

TEST(InputKey, FieldsAreLengthPrefixed) {
  EXPECT_NE(InputKey().add("ab").add("c").hex(), InputKey().add("a").add("bc").hex());
  EXPECT_EQ(InputKey().add("ab").add("c").hex(), InputKey().add("ab").add("c").hex());
  EXPECT_EQ(InputKey().hex().size(), 32u);
}

// The build ID found in memory is the one readelf finds in the file.
TEST(InputKey, TheToolDigestIsTheExecutablesBuildId) {
  std::string readelf_output;
  if (FILE* pipe = ::popen(fmt::format("readelf -n /proc/{}/exe 2>/dev/null", ::getpid()).c_str(), "r")) {
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) readelf_output.append(buffer, n);
    ::pclose(pipe);
  }
  const auto at = readelf_output.find("Build ID: ");
  auto id = opgen::executable_build_id();
  if (at == std::string::npos) {
    EXPECT_FALSE(id && !id->empty()) << "readelf finds no build ID";
    auto exe = opgen::read_file("/proc/self/exe");
    ASSERT_TRUE(exe);
    EXPECT_EQ(opgen::tool_digest(), InputKey().add(*exe).hex());
    return;
  }
  const std::string expected = readelf_output.substr(at + 10, readelf_output.find('\n', at) - at - 10);
  ASSERT_TRUE(id);
  std::string hex;
  for (unsigned char byte : *id) hex += fmt::format("{:02x}", byte);
  EXPECT_EQ(hex, expected);
  EXPECT_EQ(opgen::tool_digest(), InputKey().add("build-id").add(*id).hex());
}

TEST_F(StampTest, IsTheManifestOfWhatTheRunWrote) {
  EXPECT_EQ(opgen::read_manifest(dir_), tree_.manifest());
  EXPECT_EQ(tree_.manifest().at("a.txt"), opgen::content_digest("// @generated\nA"));
  // The manifest is read whatever the key: a run with other options still
  // knows what the last one wrote.
  EXPECT_FALSE(find_current_stamp(dir_, "fedcba9876543210fedcba9876543210"));
  EXPECT_EQ(opgen::read_manifest(dir_).size(), 2u);
  fs::remove(dir_ / opgen::kStampFile);
  EXPECT_TRUE(opgen::read_manifest(dir_).empty());
}

TEST_F(StampTest, MatchesTheSameKeyOverAnUntouchedDirectory) {
  auto stamp = find_current_stamp(dir_, kKey);
  ASSERT_TRUE(stamp);
  EXPECT_EQ(stamp->outputs, (std::vector<std::string>{"a.txt", "sub/b.txt"}));
  EXPECT_EQ(stamp->diagnostics, "x.yaml:1:1: warning[W1001]: no samples\n");
}

TEST_F(StampTest, AnotherKeyDoesNotMatch) {
  EXPECT_FALSE(find_current_stamp(dir_, "fedcba9876543210fedcba9876543210"));
}

TEST_F(StampTest, AnEditedOutputDoesNotMatchEvenWithItsSizeAndMtimeRestored) {
  auto mtime = fs::last_write_time(dir_ / "a.txt");
  write("a.txt", "// @generated\nZ");  // same size
  fs::last_write_time(dir_ / "a.txt", mtime);
  EXPECT_FALSE(find_current_stamp(dir_, kKey));  // the ctime moved
}

TEST_F(StampTest, AMissingOrReplacedOutputDoesNotMatch) {
  fs::remove(dir_ / "sub/b.txt");
  EXPECT_FALSE(find_current_stamp(dir_, kKey));
}

TEST_F(StampTest, AnExtraFileDoesNotMatch) {
  write("sub/stale.txt", "// @generated\nstale");
  EXPECT_FALSE(find_current_stamp(dir_, kKey));
}

TEST_F(StampTest, RewritingTheSameStampTouchesNothing) {
  auto before = fs::last_write_time(dir_ / opgen::kStampFile);
  write_stamp(dir_, kKey, tree_, "x.yaml:1:1: warning[W1001]: no samples\n");
  EXPECT_EQ(fs::last_write_time(dir_ / opgen::kStampFile), before);
  EXPECT_TRUE(find_current_stamp(dir_, kKey));
}

TEST_F(StampTest, EveryTruncationOfTheStampIsRejected) {
  auto text = opgen::read_file(dir_ / opgen::kStampFile);
  ASSERT_TRUE(text);
  for (size_t size = 0; size < text->size(); ++size) {
    write(opgen::kStampFile, text->substr(0, size));
    EXPECT_FALSE(find_current_stamp(dir_, kKey)) << "the stamp cut to " << size << " bytes:\n" << text->substr(0, size);
  }
  write(opgen::kStampFile, *text);
  EXPECT_TRUE(find_current_stamp(dir_, kKey));
}

TEST_F(StampTest, GarbageIsRejected) {
  for (const std::string& garbage :
       {std::string(), std::string("opgen-stamp 1\n"), std::string(4096, '\0'),
        std::string("opgen-stamp 1\n#\nkey 0123456789abcdef0123456789abcdef\nentries 2\noutputs 99999999999999999999\n"),
        std::string("opgen-stamp 1\n#\nkey 0123456789abcdef0123456789abcdef\nentries 2\noutputs 1\n-1 0 0 0 a.txt\n"
                    "diagnostics 0\n"),
        std::string("opgen-stamp 1\n#\nkey 0123456789abcdef0123456789abcdef\nentries 0\noutputs 0\n"
                    "diagnostics 5\nabc")}) {
    write(opgen::kStampFile, garbage);
    EXPECT_FALSE(find_current_stamp(dir_, kKey)) << garbage;
  }
}

TEST_F(StampTest, CommitLeavesTheStampAlone) {
  opgen::Diagnostics diags;
  opgen::WriteStats stats;
  ASSERT_TRUE(tree_.commit(dir_, diags, &stats));
  EXPECT_EQ(stats.removed, 0u);
  EXPECT_TRUE(fs::exists(dir_ / opgen::kStampFile));
}

}  // namespace
