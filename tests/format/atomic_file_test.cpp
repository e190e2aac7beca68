// AtomicFile (refscope/format/atomic_file.h): a committed file replaces the
// old one whole; an abandoned or failed one leaves the old file and no
// temporary behind; errors name the step and the file; FIFOs, devices and
// symbolic links are written through or followed, never replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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
    // A directory is not a regular file: it is not replaced, and cannot be
    // written into.
    const std::string directory = (dir_ / "a-directory").string();
    fs::create_directories(fs::path(directory) / "inside");
    try {
        AtomicFile file(directory);
        FAIL() << "opened a directory for writing";
    } catch (const AtomicFileError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open " + directory + " for writing: " + errno_text(EISDIR)),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(fs::is_directory(directory));
    EXPECT_EQ(files(), 2u);  // out.bin and the directory: no temporary left
    try {
        AtomicFile file("");
        FAIL() << "accepted an empty file name";
    } catch (const AtomicFileError& e) {
        EXPECT_STREQ(e.what(), "no file name given");
    }
}

// Only regular files are replaced: a FIFO is written into and stays a FIFO.
TEST_F(AtomicFileTest, AFifoIsWrittenThroughNotReplaced) {
    const std::string fifo = (dir_ / "pipe").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] {
        std::ifstream in(fifo);
        std::stringstream text;
        text << in.rdbuf();
        received = text.str();
    });
    {
        AtomicFile file(fifo);  // blocks until the reader opens its end
        EXPECT_TRUE(file.writes_through());
        file.write("through", 7);
        file.commit();
    }
    reader.join();
    EXPECT_EQ(received, "through");
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(files(), 2u);
}

// A device is written into, never replaced by a regular file, and its
// errors are reported: /dev/full is always full.
TEST_F(AtomicFileTest, ADeviceIsWrittenThroughAndItsErrorsReported) {
    {
        AtomicFile null("/dev/null");
        null.write("gone", 4);
        null.commit();
    }
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    try {
        AtomicFile full("/dev/full");
        full.write("x", 1);
        full.commit();
        FAIL() << "wrote to /dev/full";
    } catch (const AtomicFileError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write /dev/full: " + errno_text(ENOSPC)), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// A symbolic link stays a link: its regular target is replaced atomically,
// and a dangling link's target is created.
TEST_F(AtomicFileTest, ASymlinkKeepsBeingALink) {
    const fs::path link = dir_ / "link.bin";
    fs::create_symlink(path_, link);
    {
        AtomicFile file(link.string());
        EXPECT_FALSE(file.writes_through());
        EXPECT_EQ(fs::path(file.temporary()).parent_path(), fs::canonical(dir_));
        file.write("via link", 8);
        file.commit();
    }
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(contents(), "via link");
    const fs::path dangling = dir_ / "dangling.bin";
    fs::create_symlink(dir_ / "target.bin", dangling);
    {
        AtomicFile file(dangling.string());
        file.write("made", 4);
        file.commit();
    }
    EXPECT_TRUE(fs::is_symlink(dangling));
    std::ifstream made(dir_ / "target.bin");
    std::string text;
    made >> text;
    EXPECT_EQ(text, "made");
}

}  // namespace
}  // namespace refscope::format
