// FrameParser: turns the bytes a peer sends, in whatever pieces the socket
// delivers them, into the preamble's version and then one frame at a time
// (protocol.h). It never buffers more than one frame header plus the
// declared payload of the current frame, and the declared length is checked
// against max_payload(type) before any payload byte is kept, so garbage,
// oversized or truncated input gives one ProtocolError and bounded memory.
//
//   FrameParser parser;
//   while (n > 0) {                        // bytes just read from the socket
//       size_t used = parser.consume(p, n);
//       p += used; n -= used;
//       if (parser.failed()) { log(parser.error().what()); drop(); break; }
//       if (parser.has_frame()) { handle(parser.frame()); parser.next(); }
//   }
//   ... on end of stream: parser.finish() reports a cut frame.
//
// After an error the parser stays failed: every later call consumes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "refscope/protocol/protocol.h"

namespace refscope::protocol {

struct Frame {
    uint16_t type = 0;
    uint16_t flags = 0;
    std::vector<uint8_t> payload;
};

class FrameParser {
public:
    // With expect_preamble, the stream must start with a 12-byte preamble
    // whose magic is checked byte by byte (garbage fails at its first byte)
    // and whose major must be kProtocolMajor.
    explicit FrameParser(bool expect_preamble = true);

    // Consumes bytes up to the end of the next complete frame (so that a
    // frame is handled before the bytes after it are parsed). Returns how
    // many bytes were used; 0 once failed or while a frame waits for next().
    size_t consume(const uint8_t* data, size_t size);

    bool has_frame() const { return state_ == State::FrameReady; }
    const Frame& frame() const { return frame_; }
    // Releases the current frame's payload and starts on the next one.
    void next();

    // The stream has ended: an error if it ended inside a preamble or frame.
    void finish();

    bool failed() const { return error_.has_value(); }
    const ProtocolError& error() const { return *error_; }
    // Marks the stream failed from outside (a frame that decoded badly), so
    // that the connection's one error is kept in one place.
    void fail(const ProtocolError& error);

    bool preamble_done() const { return state_ != State::Preamble; }
    uint16_t peer_major() const { return peer_major_; }
    uint16_t peer_minor() const { return peer_minor_; }
    // True while part of a preamble or frame is buffered: a peer that goes
    // quiet now is stuck mid-frame.
    bool mid_frame() const;
    uint64_t frames_parsed() const { return frames_; }
    uint64_t bytes_consumed() const { return consumed_; }

private:
    enum class State { Preamble, Header, Payload, FrameReady, Failed };

    size_t consume_preamble(const uint8_t* data, size_t size);
    size_t consume_header(const uint8_t* data, size_t size);
    size_t consume_payload(const uint8_t* data, size_t size);
    void check_header();

    State state_;
    uint8_t buffer_[kFrameHeaderBytes] = {};  // preamble or frame header so far
    size_t have_ = 0;
    FrameHeader header_;
    Frame frame_;
    uint16_t peer_major_ = 0;
    uint16_t peer_minor_ = 0;
    uint64_t frames_ = 0;
    uint64_t consumed_ = 0;
    std::optional<ProtocolError> error_;
};

}  // namespace refscope::protocol
