// Message payloads of the live protocol (docs/protocol.md, "Messages"):
// encoders and strict decoders. Layouts, all integers LEB128 varints unless
// said otherwise, "text" = varint byte length then the bytes:
//
//   Hello            16 bytes token, then tagged fields until the end:
//                    varint tag | varint length L | L bytes (DescriptionTag)
//   Welcome          varint status | text message | tagged fields (none in 1.0)
//   TakeSnapshot     varint request id | varint flags | text label
//   SnapshotBegin    varint request id | varint sequence | varint collected 0/1
//                    | varint walk ns | varint nodes | varint edges
//   SnapshotData     the next bytes of the .rscope file, as is
//   SnapshotEnd      varint request id | varint total bytes | varint encode ns
//   SnapshotFailed   varint request id | text reason
//   Ping, Pong       varint nonce
//   SetLabel, Disconnect, Goodbye    text
//
// Decoders ignore bytes after the fields they know (a later minor may append
// fields) but refuse anything malformed in the fields they read.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "refscope/protocol/protocol.h"

namespace refscope::protocol {

using format::append_varint;
using format::get_varint;
using format::zigzag_decode;
using format::zigzag_encode;

namespace {

void append_text(std::vector<uint8_t>& out, std::string_view text) {
    append_varint(out, text.size());
    out.insert(out.end(), text.begin(), text.end());
}

// Reads fields from one payload; every failure names the message and field.
class PayloadReader {
public:
    PayloadReader(const uint8_t* p, size_t n, const char* message)
        : p_(p), end_(p + n), begin_(p), message_(message) {}

    uint64_t varint(const char* field) {
        uint64_t v = 0;
        const size_t used = get_varint(p_, end_, v);
        if (used == 0) fail(field, "bad or missing varint");
        p_ += used;
        return v;
    }
    uint64_t varint_max(const char* field, uint64_t max) {
        const uint64_t v = varint(field);
        if (v > max) fail(field, "value " + std::to_string(v) + " out of range");
        return v;
    }
    bool boolean(const char* field) { return varint_max(field, 1) != 0; }
    std::string text(const char* field, uint64_t max = kMaxTextBytes) {
        const uint64_t size = varint(field);
        if (size > max) fail(field, "text of " + std::to_string(size) + " bytes, limit " + std::to_string(max));
        if (size > left()) fail(field, "text runs past the end of the payload");
        std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(size));
        p_ += size;
        return s;
    }
    // The rest of this reader's bytes as a string (a tagged text field).
    std::string text_rest() {
        std::string s(reinterpret_cast<const char*>(p_), left());
        p_ = end_;
        return s;
    }
    void bytes(uint8_t* out, size_t size, const char* field) {
        if (size > left()) fail(field, "payload too short");
        std::memcpy(out, p_, size);
        p_ += size;
    }
    // A tagged field's value: the next `size` bytes as their own reader,
    // whose errors still count bytes from the start of the payload.
    PayloadReader sub(size_t size, const char* field) {
        if (size > left()) fail(field, "field runs past the end of the payload");
        PayloadReader r(p_, size, message_);
        r.begin_ = begin_;
        p_ += size;
        return r;
    }
    size_t left() const { return static_cast<size_t>(end_ - p_); }
    bool done() const { return p_ == end_; }
    void expect_done(const char* field) {
        if (!done()) fail(field, std::to_string(left()) + " unexpected bytes in the field");
    }
    [[noreturn]] void fail(const char* field, const std::string& what) const {
        throw ProtocolError(ProtocolErrorCode::Malformed,
                            std::string(message_) + " payload byte " +
                                std::to_string(p_ - begin_) + ", " + field + ": " + what);
    }

private:
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* begin_;
    const char* message_;
};

// A tagged field: varint tag, then the value as length-prefixed bytes.
void tag_text(std::vector<uint8_t>& out, DescriptionTag tag, std::string_view value) {
    append_varint(out, static_cast<uint32_t>(tag));
    append_text(out, value);
}
void tag_bytes(std::vector<uint8_t>& out, DescriptionTag tag, const std::vector<uint8_t>& value) {
    tag_text(out, tag, std::string_view(reinterpret_cast<const char*>(value.data()), value.size()));
}
void tag_varint(std::vector<uint8_t>& out, DescriptionTag tag, uint64_t v) {
    std::vector<uint8_t> value;
    append_varint(value, v);
    tag_bytes(out, tag, value);
}

}  // namespace

// ---- limits and names ---------------------------------------------------

uint32_t max_payload(uint16_t type) {
    switch (static_cast<MessageType>(type)) {
        case MessageType::SnapshotData: return kMaxSnapshotChunk;
        case MessageType::Hello: return kMaxHelloPayload;
        default: return kMaxControlPayload;
    }
}

const char* message_name(uint16_t type) {
    switch (static_cast<MessageType>(type)) {
        case MessageType::Hello: return "Hello";
        case MessageType::Pong: return "Pong";
        case MessageType::SnapshotBegin: return "SnapshotBegin";
        case MessageType::SnapshotData: return "SnapshotData";
        case MessageType::SnapshotEnd: return "SnapshotEnd";
        case MessageType::SnapshotFailed: return "SnapshotFailed";
        case MessageType::Goodbye: return "Goodbye";
        case MessageType::Welcome: return "Welcome";
        case MessageType::TakeSnapshot: return "TakeSnapshot";
        case MessageType::Ping: return "Ping";
        case MessageType::SetLabel: return "SetLabel";
        case MessageType::Disconnect: return "Disconnect";
    }
    return nullptr;
}

bool sent_by_probe(uint16_t type) { return type >= 1 && type <= 7; }
bool sent_by_receiver(uint16_t type) { return type >= 16 && type <= 20; }

const char* to_string(WelcomeStatus status) {
    switch (status) {
        case WelcomeStatus::Ok: return "ok";
        case WelcomeStatus::MissingToken: return "missing token";
        case WelcomeStatus::WrongToken: return "wrong token";
        case WelcomeStatus::UnsupportedProtocol: return "unsupported protocol version";
        case WelcomeStatus::UnsupportedFormat: return "unsupported snapshot format version";
        case WelcomeStatus::Malformed: return "malformed handshake";
        case WelcomeStatus::TooManyConnections: return "too many connections";
        case WelcomeStatus::ShuttingDown: return "receiver shutting down";
    }
    return "unknown status";
}

const char* to_string(ProtocolErrorCode code) {
    switch (code) {
        case ProtocolErrorCode::BadMagic: return "bad magic";
        case ProtocolErrorCode::UnsupportedVersion: return "unsupported version";
        case ProtocolErrorCode::BadFlags: return "bad frame flags";
        case ProtocolErrorCode::Oversized: return "oversized frame";
        case ProtocolErrorCode::BadChecksum: return "bad checksum";
        case ProtocolErrorCode::Truncated: return "truncated";
        case ProtocolErrorCode::UnknownMessage: return "unknown message";
        case ProtocolErrorCode::UnexpectedMessage: return "unexpected message";
        case ProtocolErrorCode::Malformed: return "malformed message";
    }
    return "protocol error";
}

// ---- framing --------------------------------------------------------------

void store_preamble(uint8_t out[kPreambleBytes]) {
    std::memcpy(out, kMagic, sizeof kMagic);
    format::store_le16(out + 8, kProtocolMajor);
    format::store_le16(out + 10, kProtocolMinor);
}

void store_frame_header(uint8_t out[kFrameHeaderBytes], uint16_t type, uint16_t flags,
                        const uint8_t* payload, uint32_t size) {
    format::store_le16(out + 0, type);
    format::store_le16(out + 2, flags);
    format::store_le32(out + 4, size);
    format::store_le32(out + 8, frame_crc32c(out, payload, size));
}

uint32_t frame_crc32c(const uint8_t header[kFrameHeaderBytes], const uint8_t* payload, size_t size) {
    return format::crc32c(payload, size, format::crc32c(header, 8));
}

void append_frame(std::vector<uint8_t>& out, MessageType type, const uint8_t* payload, size_t size,
                  uint16_t flags) {
    uint8_t header[kFrameHeaderBytes];
    store_frame_header(header, static_cast<uint16_t>(type), flags, payload, static_cast<uint32_t>(size));
    out.insert(out.end(), header, header + kFrameHeaderBytes);
    if (size > 0) out.insert(out.end(), payload, payload + size);
}

// ---- encoders -------------------------------------------------------------

std::vector<uint8_t> encode(const Hello& m) {
    std::vector<uint8_t> out(m.token, m.token + kTokenBytes);
    const ProcessDescription& d = m.process;
    tag_text(out, DescriptionTag::ProbeVersion, d.probe_version);
    tag_text(out, DescriptionTag::PythonVersion, d.python_version);
    tag_varint(out, DescriptionTag::PythonHexVersion, d.python_hexversion);
    tag_text(out, DescriptionTag::PythonBuild, d.python_build);
    tag_text(out, DescriptionTag::Platform, d.platform);
    tag_varint(out, DescriptionTag::Pid, zigzag_encode(d.pid));
    tag_text(out, DescriptionTag::Executable, d.executable);
    std::vector<uint8_t> argv;
    append_varint(argv, d.argv.size());
    for (const std::string& a : d.argv) append_text(argv, a);
    tag_bytes(out, DescriptionTag::Argv, argv);
    tag_text(out, DescriptionTag::Label, d.label);
    tag_varint(out, DescriptionTag::FormatMajor, d.format_major);
    tag_varint(out, DescriptionTag::FormatMinor, d.format_minor);
    tag_varint(out, DescriptionTag::StartTimeUnixNs, zigzag_encode(d.start_time_unix_ns));
    tag_varint(out, DescriptionTag::ConnectTimeUnixNs, zigzag_encode(d.connect_time_unix_ns));
    tag_varint(out, DescriptionTag::Attached, d.attached ? 1 : 0);
    return out;
}

std::vector<uint8_t> encode(const Welcome& m) {
    std::vector<uint8_t> out;
    append_varint(out, static_cast<uint8_t>(m.status));
    append_text(out, m.message.substr(0, kMaxTextBytes));
    return out;
}

std::vector<uint8_t> encode(const TakeSnapshot& m) {
    std::vector<uint8_t> out;
    append_varint(out, m.request_id);
    append_varint(out, m.flags);
    append_text(out, m.label.substr(0, kMaxTextBytes));
    return out;
}

std::vector<uint8_t> encode(const SnapshotBegin& m) {
    std::vector<uint8_t> out;
    append_varint(out, m.request_id);
    append_varint(out, m.sequence);
    append_varint(out, m.collected ? 1 : 0);
    append_varint(out, m.walk_ns);
    append_varint(out, m.nodes);
    append_varint(out, m.edges);
    return out;
}

std::vector<uint8_t> encode(const SnapshotEnd& m) {
    std::vector<uint8_t> out;
    append_varint(out, m.request_id);
    append_varint(out, m.total_bytes);
    append_varint(out, m.encode_ns);
    return out;
}

std::vector<uint8_t> encode(const SnapshotFailed& m) {
    std::vector<uint8_t> out;
    append_varint(out, m.request_id);
    append_text(out, m.reason.substr(0, kMaxTextBytes));
    return out;
}

std::vector<uint8_t> encode_nonce(uint64_t nonce) {
    std::vector<uint8_t> out;
    append_varint(out, nonce);
    return out;
}

std::vector<uint8_t> encode_text(std::string_view text) {
    std::vector<uint8_t> out;
    append_text(out, text.substr(0, kMaxTextBytes));
    return out;
}

// ---- decoders -------------------------------------------------------------

Hello decode_hello(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "Hello");
    Hello m;
    r.bytes(m.token, kTokenBytes, "token");
    ProcessDescription& d = m.process;
    uint64_t seen = 0;  // bit per known tag (all known tags are < 64)
    while (!r.done()) {
        const uint64_t tag = r.varint("tag");
        const uint64_t size = r.varint("field length");
        PayloadReader v = r.sub(static_cast<size_t>(std::min<uint64_t>(size, SIZE_MAX)), "field");
        if (tag < 64) {
            if (seen & (uint64_t{1} << tag)) r.fail("tag", "tag " + std::to_string(tag) + " repeated");
            seen |= uint64_t{1} << tag;
        }
        auto whole_text = [&](std::string& out) {
            if (size > kMaxTextBytes) v.fail("field", "text of " + std::to_string(size) + " bytes");
            out = v.text_rest();
        };
        // A field holding one varint (at most `max`) and nothing else.
        auto whole_varint = [&](const char* field, uint64_t max = UINT64_MAX) {
            const uint64_t value = v.varint_max(field, max);
            v.expect_done(field);
            return value;
        };
        switch (static_cast<DescriptionTag>(tag)) {
            case DescriptionTag::ProbeVersion: whole_text(d.probe_version); break;
            case DescriptionTag::PythonVersion: whole_text(d.python_version); break;
            case DescriptionTag::PythonBuild: whole_text(d.python_build); break;
            case DescriptionTag::Platform: whole_text(d.platform); break;
            case DescriptionTag::Executable: whole_text(d.executable); break;
            case DescriptionTag::Label: whole_text(d.label); break;
            case DescriptionTag::PythonHexVersion: d.python_hexversion = whole_varint("python hexversion"); break;
            case DescriptionTag::Pid: d.pid = zigzag_decode(whole_varint("pid")); break;
            case DescriptionTag::Argv: {
                const uint64_t count = v.varint("argv count");
                // Each argument takes at least one byte: a count beyond the
                // field's bytes is a lie, refused before reserving anything.
                if (count > v.left()) v.fail("argv count", "more arguments than bytes");
                d.argv.reserve(static_cast<size_t>(count));
                for (uint64_t i = 0; i < count; ++i) d.argv.push_back(v.text("argv item"));
                v.expect_done("argv");
                break;
            }
            case DescriptionTag::FormatMajor:
                d.format_major = static_cast<uint16_t>(whole_varint("format major", 0xFFFF));
                break;
            case DescriptionTag::FormatMinor:
                d.format_minor = static_cast<uint16_t>(whole_varint("format minor", 0xFFFF));
                break;
            case DescriptionTag::StartTimeUnixNs:
                d.start_time_unix_ns = zigzag_decode(whole_varint("start time"));
                break;
            case DescriptionTag::ConnectTimeUnixNs:
                d.connect_time_unix_ns = zigzag_decode(whole_varint("connect time"));
                break;
            case DescriptionTag::Attached: d.attached = whole_varint("attached", 1) != 0; break;
            default:
                break;  // a tag from a later minor: skipped by its length
        }
    }
    return m;
}

Welcome decode_welcome(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "Welcome");
    Welcome m;
    m.status = static_cast<WelcomeStatus>(r.varint_max("status", kWelcomeStatusCount - 1));
    m.message = r.text("message");
    return m;
}

TakeSnapshot decode_take_snapshot(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "TakeSnapshot");
    TakeSnapshot m;
    m.request_id = r.varint("request id");
    m.flags = r.varint("flags");
    m.label = r.text("label");
    return m;
}

SnapshotBegin decode_snapshot_begin(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "SnapshotBegin");
    SnapshotBegin m;
    m.request_id = r.varint("request id");
    m.sequence = r.varint("sequence");
    m.collected = r.boolean("collected");
    m.walk_ns = r.varint("walk ns");
    m.nodes = r.varint("nodes");
    m.edges = r.varint("edges");
    return m;
}

SnapshotEnd decode_snapshot_end(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "SnapshotEnd");
    SnapshotEnd m;
    m.request_id = r.varint("request id");
    m.total_bytes = r.varint("total bytes");
    m.encode_ns = r.varint("encode ns");
    return m;
}

SnapshotFailed decode_snapshot_failed(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "SnapshotFailed");
    SnapshotFailed m;
    m.request_id = r.varint("request id");
    m.reason = r.text("reason");
    return m;
}

uint64_t decode_nonce(const uint8_t* p, size_t n) {
    PayloadReader r(p, n, "Ping/Pong");
    return r.varint("nonce");
}

std::string decode_text(const uint8_t* p, size_t n, const char* what) {
    PayloadReader r(p, n, what);
    return r.text("text");
}

// ---- tokens ---------------------------------------------------------------

std::string token_to_hex(const uint8_t token[kTokenBytes]) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(kTokenBytes * 2);
    for (size_t i = 0; i < kTokenBytes; ++i) {
        out.push_back(digits[token[i] >> 4]);
        out.push_back(digits[token[i] & 15]);
    }
    return out;
}

bool parse_token(std::string_view text, uint8_t token[kTokenBytes]) {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    if (text.size() != kTokenBytes * 2) return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    uint8_t out[kTokenBytes];
    for (size_t i = 0; i < kTokenBytes; ++i) {
        const int hi = nibble(text[2 * i]);
        const int lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    std::memcpy(token, out, kTokenBytes);
    return true;
}

bool tokens_equal(const uint8_t a[kTokenBytes], const uint8_t b[kTokenBytes]) {
    uint8_t diff = 0;
    for (size_t i = 0; i < kTokenBytes; ++i) diff = static_cast<uint8_t>(diff | (a[i] ^ b[i]));
    return diff == 0;
}

}  // namespace refscope::protocol
