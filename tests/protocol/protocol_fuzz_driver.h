// One input through everything a receiver or a probe does with bytes from
// its peer: the frame parser (fed in pieces whose sizes come from the input),
// the payload decoder of every frame's type, and the streamed-snapshot check
// on SnapshotData. Shared by the libFuzzer target (fuzz_frame_parser.cpp)
// and the bounded mutation test (protocol_mutation_test.cpp). Any outcome
// but frames or one ProtocolError is a bug: the driver aborts on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "refscope/protocol/frame_parser.h"
#include "refscope/protocol/protocol.h"
#include "refscope/protocol/snapshot_stream.h"

namespace refscope::protocol::fuzzing {

inline void decode_frame(const Frame& f, SnapshotStreamCheck& stream) {
    const uint8_t* p = f.payload.data();
    const size_t n = f.payload.size();
    if (n > max_payload(f.type)) std::abort();  // the parser let an oversized frame through
    switch (static_cast<MessageType>(f.type)) {
        case MessageType::Hello: (void)decode_hello(p, n); break;
        case MessageType::Welcome: (void)decode_welcome(p, n); break;
        case MessageType::TakeSnapshot: (void)decode_take_snapshot(p, n); break;
        case MessageType::SnapshotBegin: (void)decode_snapshot_begin(p, n); break;
        case MessageType::SnapshotEnd: (void)decode_snapshot_end(p, n); break;
        case MessageType::SnapshotFailed: (void)decode_snapshot_failed(p, n); break;
        case MessageType::Ping:
        case MessageType::Pong: (void)decode_nonce(p, n); break;
        case MessageType::SetLabel:
        case MessageType::Disconnect:
        case MessageType::Goodbye: (void)decode_text(p, n, "text"); break;
        case MessageType::SnapshotData: (void)stream.feed(p, n); break;
        default: break;
    }
}

// Returns the number of frames that decoded.
inline size_t run_one(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    // The first byte picks the piece sizes: 1..256 bytes per consume() call.
    const size_t piece = 1 + data[0];
    ++data;
    --size;
    FrameParser parser;
    SnapshotStreamCheck stream;
    size_t decoded = 0;
    size_t at = 0;
    while (at < size && !parser.failed()) {
        const size_t n = piece < size - at ? piece : size - at;
        size_t done = 0;
        while (done < n) {
            const size_t used = parser.consume(data + at + done, n - done);
            done += used;
            if (parser.failed()) break;
            if (parser.has_frame()) {
                try {
                    decode_frame(parser.frame(), stream);
                    ++decoded;
                } catch (const ProtocolError&) {
                }
                parser.next();
            } else if (used == 0) {
                std::abort();  // no progress, no frame, no error: a hang
            }
        }
        at += n;
    }
    parser.finish();
    return decoded;
}

// Recomputes the CRC of every frame whose header can be read, so that
// mutations inside payloads reach the decoders instead of the checksum.
inline std::vector<uint8_t> with_fixed_checksums(const uint8_t* data, size_t size) {
    std::vector<uint8_t> b(data, data + size);
    // b[0] is the piece-size byte; the stream starts after it.
    size_t at = 1 + kPreambleBytes;
    while (at + kFrameHeaderBytes <= b.size()) {
        const uint32_t length = format::load_le32(b.data() + at + 4);
        if (length > max_payload(format::load_le16(b.data() + at))) break;
        if (length > b.size() - at - kFrameHeaderBytes) break;
        store_frame_header(b.data() + at, format::load_le16(b.data() + at),
                           format::load_le16(b.data() + at + 2), b.data() + at + kFrameHeaderBytes, length);
        at += kFrameHeaderBytes + length;
    }
    return b;
}

}  // namespace refscope::protocol::fuzzing
