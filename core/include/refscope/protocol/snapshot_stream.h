// SnapshotStreamCheck: checks, as the bytes arrive, that a streamed snapshot
// is a complete .rscope file (docs/format.md): the file preamble with a
// readable major, then section frames whose frame and payload CRC-32Cs
// match, with lengths under the format's limits, ending with an End section
// and nothing after it. It does not decode the sections (the app does that
// with the full reader); it guarantees that what the receiver saves is a
// file the reader will not reject as truncated or damaged in transit, and
// it costs one CRC pass over the bytes, which are not kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "refscope/format/encoding.h"

namespace refscope::protocol {

class SnapshotStreamCheck {
public:
    // Feeds the next bytes; returns false (and sets error()) on the first
    // defect. After a defect every call returns false.
    bool feed(const uint8_t* data, size_t size);
    // True once the End section has been read completely.
    bool complete() const { return state_ == State::Done; }
    bool failed() const { return state_ == State::Failed; }
    const std::string& error() const { return error_; }
    uint64_t bytes() const { return offset_; }
    uint32_t sections() const { return sections_; }

private:
    enum class State { Preamble, Frame, Payload, Done, Failed };
    bool fail(const std::string& message);
    bool check_preamble();
    bool check_frame();
    bool finish_section();

    State state_ = State::Preamble;
    uint8_t buffer_[format::kSectionFrameBytes] = {};
    size_t have_ = 0;
    uint64_t offset_ = 0;
    uint64_t frame_offset_ = 0;
    format::SectionFrame frame_;
    uint64_t payload_left_ = 0;
    uint32_t payload_crc_ = 0;
    uint32_t sections_ = 0;
    std::string error_;
};

}  // namespace refscope::protocol
