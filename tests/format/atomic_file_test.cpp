// AtomicFile (refscope/format/atomic_file.h): a committed file replaces the
// old one whole; an abandoned or failed one leaves the old file and no
// temporary behind; errors name the step and the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "refscope/format/atomic_file.h"

namespace refscope::format {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("refscope-atomic-" + std::to_string(::getpid()) + "-" + test->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        path_ = (dir_ / "out.bin").string();
        std::ofstream(path_) << "old";
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string contents() const {
        std::ifstream in(path_);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    size_t files() const {
        return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
    }

    fs::path dir_;
    std::string path_;
};

TEST_F(AtomicFileTest, CommitReplacesTheFileWhole) {
    AtomicFile file(path_);
    EXPECT_TRUE(fs::exists(file.temporary()));
    EXPECT_NE(file.temporary(), path_);
    file.write("new ", 4);
    file.write("bytes", 5);
    EXPECT_EQ(contents(), "old");  // nothing visible before the commit
    file.commit();
    EXPECT_EQ(contents(), "new bytes");
    EXPECT_EQ(files(), 1u);
    EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
}

TEST_F(AtomicFileTest, AnAbandonedFileLeavesTheOldOneAndNoTemporary) {
    {
        AtomicFile file(path_);
        file.write("half", 4);
    }
    EXPECT_EQ(contents(), "old");
    EXPECT_EQ(files(), 1u);
}

TEST_F(AtomicFileTest, TwoWritersDoNotCollide) {
    AtomicFile first(path_);
    AtomicFile second(path_);
    EXPECT_NE(first.temporary(), second.temporary());
    first.write("1", 1);
    second.write("2", 1);
    first.commit();
    second.commit();
    EXPECT_EQ(contents(), "2");
    EXPECT_EQ(files(), 1u);
}

TEST_F(AtomicFileTest, ErrorsNameTheStepAndTheFile) {
    const std::string missing = (dir_ / "no-such-dir" / "out.bin").string();
    try {
        AtomicFile file(missing);
        FAIL() << "created a file in a missing directory";
    } catch (const AtomicFileError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot create " + missing + ".tmp."), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(errno_text(ENOENT)), std::string::npos) << e.what();
    }
    // Renaming over a directory fails: the temporary goes, the directory stays.
    const std::string directory = (dir_ / "a-directory").string();
    fs::create_directories(fs::path(directory) / "inside");
    AtomicFile file(directory);
    file.write("x", 1);
    try {
        file.commit();
        FAIL() << "renamed a file over a non-empty directory";
    } catch (const AtomicFileError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot rename "), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_directory(directory));
    EXPECT_EQ(files(), 2u);  // out.bin and the directory: no temporary left
}

}  // namespace
}  // namespace refscope::format
