// FrameParser (frame_parser.h): a state machine over preamble, frame header
// and payload. The layouts it reads are drawn in protocol.h.
#include "refscope/protocol/frame_parser.h"

#include <algorithm>
#include <cstring>

namespace refscope::protocol {

namespace {

std::string hex_byte(uint8_t b) {
    static const char digits[] = "0123456789ABCDEF";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

std::string type_text(uint16_t type) {
    const char* name = message_name(type);
    return name ? std::string(name) : "type " + std::to_string(type);
}

}  // namespace

FrameParser::FrameParser(bool expect_preamble)
    : state_(expect_preamble ? State::Preamble : State::Header) {}

void FrameParser::fail(const ProtocolError& error) {
    if (!error_) error_ = error;
    state_ = State::Failed;
    frame_.payload = std::vector<uint8_t>();  // give the memory back now
}

bool FrameParser::mid_frame() const {
    switch (state_) {
        case State::Preamble:
        case State::Header: return have_ > 0;
        case State::Payload: return true;
        default: return false;
    }
}

size_t FrameParser::consume(const uint8_t* data, size_t size) {
    size_t used = 0;
    while (used < size) {
        size_t n = 0;
        switch (state_) {
            case State::Preamble: n = consume_preamble(data + used, size - used); break;
            case State::Header: n = consume_header(data + used, size - used); break;
            case State::Payload: n = consume_payload(data + used, size - used); break;
            case State::FrameReady:
            case State::Failed: consumed_ += used; return used;
        }
        used += n;
        if (state_ == State::Failed) break;
    }
    consumed_ += used;
    return used;
}

size_t FrameParser::consume_preamble(const uint8_t* data, size_t size) {
    const size_t n = std::min(size, kPreambleBytes - have_);
    for (size_t i = 0; i < n; ++i) {
        const size_t at = have_ + i;
        // The magic is checked byte by byte: a client speaking something
        // else (HTTP, a shell's echo) is refused at its first wrong byte.
        if (at < sizeof kMagic && data[i] != kMagic[at]) {
            fail(ProtocolError(ProtocolErrorCode::BadMagic,
                               "not a refscope live connection: byte " + std::to_string(at) + " is " +
                                   hex_byte(data[i]) + ", expected " + hex_byte(kMagic[at]) +
                                   " (the preamble starts with \"RSLIVE\\r\\n\")"));
            return i + 1;
        }
    }
    std::memcpy(buffer_ + have_, data, n);
    have_ += n;
    if (have_ == kPreambleBytes) {
        peer_major_ = format::load_le16(buffer_ + 8);
        peer_minor_ = format::load_le16(buffer_ + 10);
        have_ = 0;
        if (peer_major_ != kProtocolMajor) {
            fail(ProtocolError(ProtocolErrorCode::UnsupportedVersion,
                               "peer speaks protocol " + std::to_string(peer_major_) + "." +
                                   std::to_string(peer_minor_) + "; this side speaks " +
                                   std::to_string(kProtocolMajor) + ".x" +
                                   (peer_major_ > kProtocolMajor ? ": upgrade refscope" : "")));
            return n;
        }
        state_ = State::Header;
    }
    return n;
}

size_t FrameParser::consume_header(const uint8_t* data, size_t size) {
    const size_t n = std::min(size, kFrameHeaderBytes - have_);
    std::memcpy(buffer_ + have_, data, n);
    have_ += n;
    if (have_ == kFrameHeaderBytes) check_header();
    return n;
}

void FrameParser::check_header() {
    header_.type = format::load_le16(buffer_ + 0);
    header_.flags = format::load_le16(buffer_ + 2);
    header_.length = format::load_le32(buffer_ + 4);
    header_.crc32c = format::load_le32(buffer_ + 8);
    const std::string at = "frame " + std::to_string(frames_ + 1) + " (" + type_text(header_.type) + ")";
    if (header_.flags & ~kFrameOptional) {
        fail(ProtocolError(ProtocolErrorCode::BadFlags,
                           at + ": flag bits " + hex_byte(static_cast<uint8_t>(header_.flags >> 8)) +
                               hex_byte(static_cast<uint8_t>(header_.flags)).substr(2) +
                               " are not defined in protocol 1.x"));
        return;
    }
    // The limit is checked before a single payload byte is buffered.
    const uint32_t limit = max_payload(header_.type);
    if (header_.length > limit) {
        fail(ProtocolError(ProtocolErrorCode::Oversized,
                           at + ": oversized frame, " + std::to_string(header_.length) +
                               " bytes declared, limit " + std::to_string(limit)));
        return;
    }
    frame_.type = header_.type;
    frame_.flags = header_.flags;
    frame_.payload.clear();
    frame_.payload.reserve(header_.length);
    have_ = 0;
    state_ = State::Payload;
    if (header_.length == 0) consume_payload(nullptr, 0);
}

size_t FrameParser::consume_payload(const uint8_t* data, size_t size) {
    const size_t n = std::min(size, static_cast<size_t>(header_.length) - frame_.payload.size());
    if (n > 0) frame_.payload.insert(frame_.payload.end(), data, data + n);
    if (frame_.payload.size() == header_.length) {
        if (frame_crc32c(buffer_, frame_.payload.data(), frame_.payload.size()) != header_.crc32c) {
            fail(ProtocolError(ProtocolErrorCode::BadChecksum,
                               "frame " + std::to_string(frames_ + 1) + " (" + type_text(header_.type) +
                                   ", " + std::to_string(header_.length) +
                                   " bytes): CRC-32C mismatch, the stream is damaged or not a refscope peer"));
            return n;
        }
        ++frames_;
        state_ = State::FrameReady;
    }
    return n;
}

void FrameParser::next() {
    if (state_ != State::FrameReady) return;
    frame_.payload.clear();
    // Keep a small buffer for the next control frame; give back a big one.
    if (frame_.payload.capacity() > kMaxControlPayload) frame_.payload.shrink_to_fit();
    have_ = 0;
    state_ = State::Header;
}

void FrameParser::finish() {
    if (failed()) return;
    switch (state_) {
        case State::Preamble:
            if (have_ > 0)
                fail(ProtocolError(ProtocolErrorCode::Truncated,
                                   "connection closed " + std::to_string(have_) +
                                       " bytes into the 12-byte preamble"));
            break;
        case State::Header:
            if (have_ > 0)
                fail(ProtocolError(ProtocolErrorCode::Truncated,
                                   "connection closed " + std::to_string(have_) +
                                       " bytes into the 12-byte header of frame " +
                                       std::to_string(frames_ + 1)));
            break;
        case State::Payload:
            fail(ProtocolError(ProtocolErrorCode::Truncated,
                               "connection closed in the middle of frame " + std::to_string(frames_ + 1) +
                                   " (" + type_text(header_.type) + "): " +
                                   std::to_string(frame_.payload.size()) + " of " +
                                   std::to_string(header_.length) + " payload bytes received"));
            break;
        default:
            break;
    }
}

}  // namespace refscope::protocol
