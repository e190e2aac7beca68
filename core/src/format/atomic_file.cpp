// AtomicFile (atomic_file.h): temporary beside the path, fsync, rename; or
// written through when the path is not a regular file.
#include "refscope/format/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace refscope::format {

namespace {

// Where a regular file at `path` lives: the path itself, or for a symbolic
// link its final target (so that the link is kept). Empty: not a regular
// file (a FIFO, a device, a dangling link), to be written through.
std::string replaceable_path(const std::string& path) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) return path;  // new: created beside
    if (S_ISREG(link.st_mode)) return path;
    if (!S_ISLNK(link.st_mode)) return "";
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0 || !S_ISREG(target.st_mode)) return "";
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) return "";
    std::string out(resolved);
    ::free(resolved);
    return out;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw AtomicFileError("no file name given");
    const std::string target = replaceable_path(path_);
    if (target.empty()) {
        // Not a regular file: write into it (O_NOCTTY: a terminal device
        // must not become our controlling terminal).
        through_ = true;
        temporary_ = path_;
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd_ < 0) {
            const int error = errno;
            throw AtomicFileError("cannot open " + path_ + " for writing: " + errno_text(error));
        }
        return;
    }
    path_ = target;
    static std::atomic<unsigned> counter{0};
    temporary_ = path_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        const int error = errno;
        throw AtomicFileError("cannot create " + temporary_ + ": " + errno_text(error));
    }
    // 0644 whatever the umask: a snapshot or an exported picture is for
    // sharing.
    if (::fchmod(fd_, 0644) != 0) {
        const int error = errno;
        discard();
        throw AtomicFileError("cannot set the permissions of " + temporary_ + ": " + errno_text(error));
    }
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
    if (fd_ < 0) return;
    ::close(fd_);
    if (!through_) ::unlink(temporary_.c_str());
    fd_ = -1;
}

void AtomicFile::write(const void* data, size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd_, bytes, size);
        if (n < 0) {
            const int error = errno;
            if (error == EINTR) continue;
            throw AtomicFileError("cannot write " + temporary_ + ": " + errno_text(error));
        }
        bytes += n;
        size -= static_cast<size_t>(n);
    }
}

void AtomicFile::commit() {
    if (through_) {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) {
            const int error = errno;
            throw AtomicFileError("cannot close " + path_ + ": " + errno_text(error));
        }
        return;
    }
    // Flushed before the rename: after a crash the path holds either the old
    // file or the complete new one.
    if (::fsync(fd_) != 0) {
        const int error = errno;
        discard();
        throw AtomicFileError("cannot sync " + temporary_ + ": " + errno_text(error));
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary_.c_str());
        throw AtomicFileError("cannot close " + temporary_ + ": " + errno_text(error));
    }
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary_.c_str());
        throw AtomicFileError("cannot rename " + temporary_ + " to " + path_ + ": " + errno_text(error));
    }
}

}  // namespace refscope::format
