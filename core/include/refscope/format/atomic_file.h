// Writing a file so that no reader ever sees half of it: the bytes go to a
// temporary file beside the final path, are flushed to disk, and the
// temporary is renamed over the path (atomic on one file system). A failure
// at any step removes the temporary and leaves whatever was at the path
// untouched. Snapshots, .heapsnapshot exports and rendered images are
// written this way.
//
// Only a regular file is replaced. A path that names something else — a
// FIFO, a device such as /dev/null or /dev/full, /dev/stdout — is written
// through, in place: replacing it would destroy the device node or the pipe
// (and as root, turn /dev/full into a regular file). A symbolic link is
// followed: its regular target is replaced atomically beside the target, so
// the link stays a link; a dangling link's target is created.
#pragma once

#include <stdexcept>
#include <string>

#include "refscope/format/errno_text.h"

namespace refscope::format {

// A step of AtomicFile failed; what() names the step, the file and errno's
// text ("cannot create out.png.tmp.12.0: Permission denied").
class AtomicFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class AtomicFile {
public:
    // Creates the temporary, mode 0644 (whatever the umask), with a name unique to this process
    // and call ("<path>.tmp.<pid>.<n>"), so concurrent writers never collide;
    // or, for a path that is not a regular file, opens it for writing
    // through. An empty path is refused.
    explicit AtomicFile(std::string path);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    // Not committed: closes and removes the temporary.
    ~AtomicFile();

    int fd() const { return fd_; }
    // The file being written: the temporary, or the path itself when
    // writing through.
    const std::string& temporary() const { return temporary_; }
    bool writes_through() const { return through_; }
    // Writes all of `size` bytes, retrying interrupted and short writes.
    void write(const void* data, size_t size);
    // fsync, close, rename over the path (writing through: close). Throws
    // AtomicFileError; the temporary is gone either way.
    void commit();

private:
    void discard() noexcept;
    std::string path_;
    std::string temporary_;
    int fd_ = -1;
    bool through_ = false;
};

}  // namespace refscope::format
