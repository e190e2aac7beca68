// SnapshotStreamCheck (snapshot_stream.h): the structural checks of the
// snapshot reader (docs/format.md, "Validation and limits") that need no
// decoding, done incrementally over a byte stream.
#include "refscope/protocol/snapshot_stream.h"

#include <algorithm>
#include <cstring>

#include "refscope/format/constants.h"

namespace refscope::protocol {

using namespace refscope::format;

bool SnapshotStreamCheck::fail(const std::string& message) {
    if (state_ != State::Failed) error_ = message;
    state_ = State::Failed;
    return false;
}

bool SnapshotStreamCheck::check_preamble() {
    if (std::memcmp(buffer_, kMagic, sizeof kMagic) != 0)
        return fail("the streamed snapshot does not start with the file magic \"RSCOPE\\r\\n\"");
    const uint16_t major = load_le16(buffer_ + 8);
    if (major > kFormatMajor || major < kOldestReadableMajor)
        return fail("the streamed snapshot is format " + std::to_string(major) +
                    ".x; this receiver reads " + std::to_string(kOldestReadableMajor) + ".x to " +
                    std::to_string(kFormatMajor) + ".x");
    state_ = State::Frame;
    return true;
}

bool SnapshotStreamCheck::check_frame() {
    const std::string at = "section frame at snapshot offset " + std::to_string(frame_offset_);
    if (!frame_checksum_ok(buffer_)) return fail(at + ": frame CRC-32C mismatch");
    frame_ = load_frame(buffer_);
    if (++sections_ > kMaxSections)
        return fail(at + ": more than " + std::to_string(kMaxSections) + " sections");
    if (frame_.stored_bytes > kMaxSectionBytes || frame_.raw_bytes > kMaxSectionBytes)
        return fail(at + ": section larger than the format's limit");
    if (frame_.id == static_cast<uint16_t>(SectionId::End) && frame_.stored_bytes != 0)
        return fail(at + ": the End section must be empty in this format version");
    payload_left_ = frame_.stored_bytes;
    payload_crc_ = 0;
    state_ = State::Payload;
    return true;
}

bool SnapshotStreamCheck::finish_section() {
    if (payload_crc_ != frame_.crc32c)
        return fail("section at snapshot offset " + std::to_string(frame_offset_) +
                    ": payload CRC-32C mismatch");
    state_ = frame_.id == static_cast<uint16_t>(SectionId::End) ? State::Done : State::Frame;
    return true;
}

bool SnapshotStreamCheck::feed(const uint8_t* data, size_t size) {
    while (size > 0) {
        switch (state_) {
            case State::Failed: return false;
            case State::Done:
                return fail("bytes after the End section (snapshot offset " + std::to_string(offset_) + ")");
            case State::Preamble:
            case State::Frame: {
                const size_t want = state_ == State::Preamble ? kPreambleBytes : kSectionFrameBytes;
                if (state_ == State::Frame && have_ == 0) frame_offset_ = offset_;
                const size_t n = std::min(size, want - have_);
                std::memcpy(buffer_ + have_, data, n);
                have_ += n;
                offset_ += n;
                data += n;
                size -= n;
                if (have_ < want) break;
                have_ = 0;
                if (!(state_ == State::Preamble ? check_preamble() : check_frame())) return false;
                if (state_ == State::Payload && payload_left_ == 0 && !finish_section()) return false;
                break;
            }
            case State::Payload: {
                const size_t n = static_cast<size_t>(std::min<uint64_t>(size, payload_left_));
                payload_crc_ = crc32c(data, n, payload_crc_);
                payload_left_ -= n;
                offset_ += n;
                data += n;
                size -= n;
                if (payload_left_ == 0 && !finish_section()) return false;
                break;
            }
        }
    }
    return state_ != State::Failed;
}

}  // namespace refscope::protocol
