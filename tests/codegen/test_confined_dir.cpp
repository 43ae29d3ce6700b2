// ConfinedDir: no path, whatever its source, leads outside the directory
// (tests/python/test_safety_surfaces.py tries the same through every command).
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/confined_dir.h"
#include "support/new_files.h"

namespace fs = std::filesystem;
using opgen::ConfinedDir;

namespace {

class Confined : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("opgen-confined-" + std::to_string(::getpid()));
    fs::remove_all(base_);
    fs::create_directories(base_ / "root" / "sub");
    fs::create_directories(base_ / "outside");
    std::ofstream(base_ / "outside" / "victim") << "precious";
  }
  void TearDown() override { fs::remove_all(base_); }
  ConfinedDir root() { return std::get<ConfinedDir>(ConfinedDir::open(base_ / "root", false)); }
  std::string victim() {
    std::ifstream in(base_ / "outside" / "victim");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path base_;
};

TEST_F(Confined, OnlyPlainRelativePathsAreValid) {
  for (const char* bad : {"", "/etc/passwd", "..", "../x", "a/../../x", "a//b", "./a", "a/", "a/."})
    EXPECT_TRUE(ConfinedDir::invalid_relative(bad)) << bad;
  for (const char* good : {"a", "a/b/c.h", ".opgen-stamp", "a..b", "...", "a/.hidden"})
    EXPECT_FALSE(ConfinedDir::invalid_relative(good)) << good;
}

TEST_F(Confined, AnEmptyRootIsAnError) {
  auto opened = ConfinedDir::open("", true);
  ASSERT_TRUE(std::holds_alternative<opgen::IoError>(opened));
  EXPECT_EQ(std::get<opgen::IoError>(opened).reason, "an empty path names no directory");
}

TEST_F(Confined, NothingGoesThroughALinkBeneathTheRoot) {
  fs::create_directory_symlink(base_ / "outside", base_ / "root" / "link");
  fs::create_symlink(base_ / "outside" / "victim", base_ / "root" / "file_link");
  ConfinedDir dir = root();
  EXPECT_FALSE(dir.create_file("link/new", "x").ok());
  EXPECT_FALSE(dir.create_file("file_link", "x").ok());  // O_EXCL|O_NOFOLLOW: the link is not followed
  EXPECT_FALSE(dir.remove_file("link/victim").ok());
  EXPECT_FALSE(std::holds_alternative<std::string>(dir.read("link/victim")));
  EXPECT_FALSE(std::holds_alternative<std::string>(dir.read("file_link")));
  EXPECT_FALSE(dir.rename("sub", "link/moved").ok());
  EXPECT_FALSE(dir.list("link"));
  EXPECT_FALSE(dir.lstat("link/victim"));
  EXPECT_TRUE(dir.lstat("file_link"));  // the link itself, not what it names
  EXPECT_EQ(victim(), "precious");
  EXPECT_FALSE(fs::exists(base_ / "outside" / "new"));
  // Removing the link removes the link, never its target.
  EXPECT_TRUE(dir.remove_file("file_link").ok());
  EXPECT_EQ(victim(), "precious");
}

TEST_F(Confined, ReadsAreBoundedAndNeverBlock) {
  ConfinedDir dir = root();
  ASSERT_EQ(::mkfifo((base_ / "root" / "fifo").c_str(), 0600), 0);
  auto fifo = dir.read("fifo");  // no writer: a blocking open would hang here
  ASSERT_TRUE(std::holds_alternative<opgen::IoError>(fifo));
  EXPECT_EQ(std::get<opgen::IoError>(fifo).reason, "is not a regular file");
  ASSERT_TRUE(dir.create_file("big", std::string(1000, 'x')).ok());
  EXPECT_TRUE(std::holds_alternative<opgen::IoError>(dir.read("big", 999)));
  EXPECT_EQ(std::get<std::string>(dir.read("big", 1000)).size(), 1000u);
}

TEST_F(Confined, CreateFileMakesDirectoriesAndReportsThem) {
  ConfinedDir dir = root();
  std::vector<std::string> made;
  ASSERT_TRUE(dir.create_file("a/b/c.txt", "hi", &made).ok());
  EXPECT_EQ(made, (std::vector<std::string>{"a", "a/b"}));
  auto again = dir.create_file("a/b/c.txt", "x");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().os_errno, EEXIST);
  EXPECT_EQ(std::get<std::string>(dir.read("a/b/c.txt")), "hi");
}

TEST_F(Confined, NewFilesAreAllOrNothing) {
  // The second file's directory is a file: the first must not stay behind.
  std::ofstream(base_ / "root" / "blocker") << "";
  const std::vector<opgen::NewFile> files = {{base_ / "root" / "p", "one.txt", "1"},
                                             {base_ / "root" / "blocker", "two.txt", "2"}};
  opgen::IoStatus status = opgen::create_new_files(files);
  ASSERT_FALSE(status.ok());
  EXPECT_FALSE(fs::exists(base_ / "root" / "p"));
  // And an existing file means none is written.
  std::ofstream(base_ / "root" / "exists.txt") << "mine";
  status = opgen::create_new_files({{base_ / "root" / "q", "a.txt", "a"}, {base_ / "root", "exists.txt", "x"}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().os_errno, EEXIST);
  EXPECT_FALSE(fs::exists(base_ / "root" / "q"));
}

}  // namespace
