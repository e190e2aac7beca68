// Where a writer's bytes go. One interface for every writer that streams its
// output instead of building it in memory: the snapshot writer (.rscope
// files and encode_snapshot), the .heapsnapshot exporter, and the probe's
// live client, which cuts a snapshot's bytes into SnapshotData frames
// (probe/src/live_client.cpp). The sinks every writer needs are here too.
//
// A sink throws on failure and never reports a short write: WriteError for a
// FILE* or a stream, AtomicFileError for an AtomicFile. Writers turn these
// into their own error types where their callers expect one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iosfwd>
#include <stdexcept>
#include <vector>

#include "refscope/format/atomic_file.h"

namespace refscope::format {

class WriteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ByteSink {
public:
    virtual ~ByteSink() = default;
    virtual void write(const void* data, size_t size) = 0;
};

// Appends to a vector (encode_snapshot, tests).
class VectorSink final : public ByteSink {
public:
    explicit VectorSink(std::vector<uint8_t>& out) : out_(out) {}
    void write(const void* data, size_t size) override {
        const auto* p = static_cast<const uint8_t*>(data);
        out_.insert(out_.end(), p, p + size);
    }

private:
    std::vector<uint8_t>& out_;
};

// Into an AtomicFile's temporary; the caller commits it.
class AtomicFileSink final : public ByteSink {
public:
    explicit AtomicFileSink(AtomicFile& file) : file_(file) {}
    void write(const void* data, size_t size) override { file_.write(data, size); }

private:
    AtomicFile& file_;
};

// Into an open FILE* (stdout for `-o -`); WriteError with errno's text.
class FileSink final : public ByteSink {
public:
    explicit FileSink(std::FILE* file) : file_(file) {}
    void write(const void* data, size_t size) override;

private:
    std::FILE* file_;
};

// Into a std::ostream; WriteError when the stream fails.
class StreamSink final : public ByteSink {
public:
    explicit StreamSink(std::ostream& out) : out_(out) {}
    void write(const void* data, size_t size) override;

private:
    std::ostream& out_;
};

}  // namespace refscope::format
