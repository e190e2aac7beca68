// The live-connection wire protocol: what a probe inside a Python process and
// a receiver (the desktop app, `refscope-cli listen`) say to each other over a
// Unix-domain or TCP socket. docs/protocol.md describes every byte; this
// header is the one place the numbers are defined, and it borrows the
// snapshot format's constants and primitive encodings (format/constants.h,
// format/encoding.h) instead of redefining them:
//   - a streamed snapshot is the .rscope file's bytes (preamble, sections,
//     End), carried in SnapshotData frames, so saving them gives a valid file;
//   - integers inside payloads are the format's LEB128 varints and zigzag;
//   - frames are checksummed with the format's CRC-32C;
//   - the probe's process description reuses format::HeaderTag numbers for
//     the fields a snapshot header also has.
//
// Connection, either transport (the probe connects, the receiver listens):
//
//   probe                                          receiver
//     | -- preamble (12 bytes) ------------------------> |
//     | -- Hello frame: token + process description ---> |  checks magic,
//     | <------------------------- preamble (12 bytes) - |  versions, token
//     | <--------------------- Welcome frame: status --- |
//     |                  (status != Ok: receiver closes)  |
//     | <--- TakeSnapshot / Ping / SetLabel / Disconnect  |
//     | -- Pong, SnapshotBegin, SnapshotData..., -------> |
//     |    SnapshotEnd | SnapshotFailed, Goodbye          |
//
// Preamble, the first 12 bytes each side sends:
//
//   0                               8       10      12
//   +---+---+---+---+---+---+---+---+-------+-------+
//   | R | S | L | I | V | E |\r |\n | major | minor |
//   +---+---+---+---+---+---+---+---+-------+-------+
//
// Frame, everything after the preamble (all integers little-endian):
//
//   0       2       4               8               12
//   +-------+-------+---------------+---------------+------------------+
//   | type  | flags | payload length| CRC-32C       | payload ...      |
//   +-------+-------+---------------+---------------+------------------+
//   type:    MessageType (u16)
//   flags:   bit 0 kFrameOptional: a peer that does not know `type` skips
//            the frame (else it is a protocol error); bits 1..15 are 0
//   length:  payload bytes, at most max_payload(type)
//   CRC:     CRC-32C of frame bytes 0..7 followed by the payload, so that a
//            stream of garbage is refused at its first frame
//
// Kept free of any dependency beyond the standard library and the format's
// headers because the probe compiles it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/format/constants.h"
#include "refscope/format/encoding.h"

namespace refscope::protocol {

// "RSLIVE\r\n": the same shape as the file magic ("RSCOPE\r\n"), different
// letters, so that neither is ever mistaken for the other.
inline constexpr unsigned char kMagic[8] = {'R', 'S', 'L', 'I', 'V', 'E', 0x0D, 0x0A};
inline constexpr size_t kPreambleBytes = 12;

// Major changes break peers; minor changes only add optional frames, new
// Hello/Welcome tags and new trailing payload fields.
inline constexpr uint16_t kProtocolMajor = 1;
inline constexpr uint16_t kProtocolMinor = 0;

inline constexpr size_t kFrameHeaderBytes = 12;
inline constexpr uint16_t kFrameOptional = 0x0001;

// The token: 128 random bits created by the receiver, sent by the probe in
// Hello; written as 32 lowercase hex digits wherever a person or an
// environment variable handles it.
inline constexpr size_t kTokenBytes = 16;

// Payload limits, checked from the frame header before any payload byte is
// buffered: a peer can never make the other side allocate more than this
// per connection. Snapshot data travels in chunks of at most
// kMaxSnapshotChunk bytes; everything else is small.
inline constexpr uint32_t kMaxSnapshotChunk = 1u << 20;   // SnapshotData
inline constexpr uint32_t kMaxHelloPayload = 256u << 10;  // Hello (argv can be long)
inline constexpr uint32_t kMaxControlPayload = 64u << 10; // every other type
// A string inside a control payload (label, reason, message).
inline constexpr uint32_t kMaxTextBytes = 16u << 10;

enum class MessageType : uint16_t {
    // probe -> receiver
    Hello = 1,          // first frame: token, process description
    Pong = 2,           // answer to Ping
    SnapshotBegin = 3,  // a snapshot follows: request id, sequence, walk facts
    SnapshotData = 4,   // the next bytes of the .rscope file (1..kMaxSnapshotChunk)
    SnapshotEnd = 5,    // the snapshot is complete: request id, total bytes
    SnapshotFailed = 6, // no snapshot for this request (or the one begun is void)
    Goodbye = 7,        // the probe is closing the connection, and why
    // receiver -> probe
    Welcome = 16,       // first frame: status of the handshake
    TakeSnapshot = 17,  // request id, flags (collect first), label
    Ping = 18,          // nonce
    SetLabel = 19,      // label for the following snapshots
    Disconnect = 20,    // close the connection (the probe does not reconnect)
};

// The largest payload `type` may carry; unknown types get kMaxControlPayload.
uint32_t max_payload(uint16_t type);
// "Hello", "SnapshotData", ... or nullptr for an unknown type.
const char* message_name(uint16_t type);
// True for the types the probe sends (the receiver accepts only these), and
// the other way round.
bool sent_by_probe(uint16_t type);
bool sent_by_receiver(uint16_t type);

// Welcome status: whether the receiver accepts the connection. Every value
// but Ok is followed by the receiver closing the connection.
enum class WelcomeStatus : uint8_t {
    Ok = 0,
    MissingToken = 1,        // Hello carried an all-zero token
    WrongToken = 2,
    UnsupportedProtocol = 3, // preamble major not understood
    UnsupportedFormat = 4,   // the probe writes a snapshot format major the receiver cannot read
    Malformed = 5,           // the Hello frame could not be decoded
    TooManyConnections = 6,
    ShuttingDown = 7,
};
inline constexpr uint8_t kWelcomeStatusCount = 8;
const char* to_string(WelcomeStatus status);

// TakeSnapshot flags (varint).
inline constexpr uint64_t kSnapshotCollect = 0x01;  // gc.collect() before the walk

// The process description in Hello: tagged fields, `varint tag, varint
// length, value` like the snapshot header, so that new tags can be skipped.
// Tags shared with a snapshot header use format::HeaderTag's numbers.
enum class DescriptionTag : uint32_t {
    ProbeVersion = static_cast<uint32_t>(format::HeaderTag::ProbeVersion),         // string
    PythonVersion = static_cast<uint32_t>(format::HeaderTag::PythonVersion),       // string
    PythonHexVersion = static_cast<uint32_t>(format::HeaderTag::PythonHexVersion), // varint
    PythonBuild = static_cast<uint32_t>(format::HeaderTag::PythonBuild),           // string
    Pid = static_cast<uint32_t>(format::HeaderTag::Pid),                           // zigzag
    Executable = static_cast<uint32_t>(format::HeaderTag::Executable),             // string
    Argv = static_cast<uint32_t>(format::HeaderTag::Argv),     // varint count, then strings
    Label = static_cast<uint32_t>(format::HeaderTag::Label),                       // string
    Platform = static_cast<uint32_t>(format::HeaderTag::Platform),                 // string
    FormatMajor = 32,        // varint: snapshot format major the probe writes
    FormatMinor = 33,        // varint
    StartTimeUnixNs = 34,    // zigzag: when the process started
    ConnectTimeUnixNs = 35,  // zigzag: the probe's clock when it sent Hello
    Attached = 36,           // varint 0/1: connected by `refscope attach`, not by the program
};

// What a probe says about its process. Strings are raw bytes (UTF-8 from
// Python, not validated).
struct ProcessDescription {
    std::string probe_version;
    std::string python_version;     // sys.version
    uint64_t python_hexversion = 0;
    std::string python_build;
    std::string platform;
    int64_t pid = 0;
    std::string executable;
    std::vector<std::string> argv;
    std::string label;
    uint16_t format_major = format::kFormatMajor;
    uint16_t format_minor = format::kFormatMinor;
    int64_t start_time_unix_ns = 0;   // 0 = unknown
    int64_t connect_time_unix_ns = 0;
    bool attached = false;
};

struct Hello {
    uint8_t token[kTokenBytes] = {};
    ProcessDescription process;
};

struct Welcome {
    WelcomeStatus status = WelcomeStatus::Ok;
    std::string message;  // why, for people ("wrong token")
};

struct TakeSnapshot {
    uint64_t request_id = 0;
    uint64_t flags = 0;   // kSnapshot* bits
    std::string label;    // empty: the connection's label
};

struct SnapshotBegin {
    uint64_t request_id = 0;
    uint64_t sequence = 0;     // the snapshot header's sequence number
    bool collected = false;    // gc.collect() ran first
    uint64_t walk_ns = 0;      // GIL held for the walk
    uint64_t nodes = 0;
    uint64_t edges = 0;
};

struct SnapshotEnd {
    uint64_t request_id = 0;
    uint64_t total_bytes = 0;  // SnapshotData bytes since SnapshotBegin
    uint64_t encode_ns = 0;    // encoding and sending, GIL released
};

struct SnapshotFailed {
    uint64_t request_id = 0;
    std::string reason;
};

// What went wrong with the bytes a peer sent. Every value maps to one clear
// message and to dropping the connection.
enum class ProtocolErrorCode {
    BadMagic,            // not a refscope live connection
    UnsupportedVersion,  // preamble major not understood
    BadFlags,            // frame flag bits this version does not define
    Oversized,           // declared payload above the type's limit
    BadChecksum,         // frame CRC-32C mismatch
    Truncated,           // the stream ended inside a preamble or a frame
    UnknownMessage,      // unknown type without kFrameOptional
    UnexpectedMessage,   // a known type in the wrong direction or state
    Malformed,           // a payload that does not decode
};
const char* to_string(ProtocolErrorCode code);

class ProtocolError : public std::runtime_error {
public:
    ProtocolError(ProtocolErrorCode code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    ProtocolErrorCode code() const { return code_; }
private:
    ProtocolErrorCode code_;
};

struct FrameHeader {
    uint16_t type = 0;
    uint16_t flags = 0;
    uint32_t length = 0;
    uint32_t crc32c = 0;
};

// The 12-byte preamble for the current version.
void store_preamble(uint8_t out[kPreambleBytes]);
// Appends a complete frame (header with its CRC, then the payload).
void append_frame(std::vector<uint8_t>& out, MessageType type, const uint8_t* payload,
                  size_t size, uint16_t flags = 0);
// Writes the 12 header bytes for `payload` (the CRC covers it).
void store_frame_header(uint8_t out[kFrameHeaderBytes], uint16_t type, uint16_t flags,
                        const uint8_t* payload, uint32_t size);
// The frame CRC-32C: header bytes 0..7 (type, flags, length), then the payload.
uint32_t frame_crc32c(const uint8_t header[kFrameHeaderBytes], const uint8_t* payload, size_t size);

// Payload encoders (append the payload only; wrap with append_frame).
std::vector<uint8_t> encode(const Hello& m);
std::vector<uint8_t> encode(const Welcome& m);
std::vector<uint8_t> encode(const TakeSnapshot& m);
std::vector<uint8_t> encode(const SnapshotBegin& m);
std::vector<uint8_t> encode(const SnapshotEnd& m);
std::vector<uint8_t> encode(const SnapshotFailed& m);
std::vector<uint8_t> encode_nonce(uint64_t nonce);             // Ping, Pong
std::vector<uint8_t> encode_text(std::string_view text);      // SetLabel, Disconnect, Goodbye

// Payload decoders: strict about what they read (varints well formed,
// values in range, lengths inside the payload, Hello/Welcome tags at most
// once), and they ignore bytes after the last field they know, which is
// how a later minor extends a payload. Throw ProtocolError(Malformed)
// naming the field.
Hello decode_hello(const uint8_t* p, size_t n);
Welcome decode_welcome(const uint8_t* p, size_t n);
TakeSnapshot decode_take_snapshot(const uint8_t* p, size_t n);
SnapshotBegin decode_snapshot_begin(const uint8_t* p, size_t n);
SnapshotEnd decode_snapshot_end(const uint8_t* p, size_t n);
SnapshotFailed decode_snapshot_failed(const uint8_t* p, size_t n);
uint64_t decode_nonce(const uint8_t* p, size_t n);
std::string decode_text(const uint8_t* p, size_t n, const char* what);

// Token text: 32 hex digits <-> 16 bytes. parse_token() accepts upper or
// lower case and surrounding whitespace (a token file ends with a newline);
// returns false on anything else.
std::string token_to_hex(const uint8_t token[kTokenBytes]);
bool parse_token(std::string_view text, uint8_t token[kTokenBytes]);
// Compares without an early exit, so that timing says nothing about how
// much of a guessed token was right.
bool tokens_equal(const uint8_t a[kTokenBytes], const uint8_t b[kTokenBytes]);

}  // namespace refscope::protocol
