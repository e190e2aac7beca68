// The wire protocol (core/src/protocol): message round trips, the frame
// parser fed in every possible split, each error it must report, the
// streamed-snapshot check, tokens and addresses.
#include <gtest/gtest.h>

#include <random>

#include "refscope/format/snapshot_io.h"
#include "refscope/protocol/address.h"
#include "refscope/protocol/frame_parser.h"
#include "refscope/protocol/protocol.h"
#include "refscope/protocol/snapshot_stream.h"
#include "test_support.h"

namespace refscope::protocol {
namespace {

Hello sample_hello() {
    Hello h;
    for (size_t i = 0; i < kTokenBytes; ++i) h.token[i] = static_cast<uint8_t>(0xA0 + i);
    ProcessDescription& d = h.process;
    d.probe_version = "0.1.0";
    d.python_version = "3.11.2 (main, Mar 13 2023) [GCC 12.2.0]";
    d.python_hexversion = 0x030B02F0;
    d.python_build = "CPython release GCC 12.2.0";
    d.platform = "linux x86_64";
    d.pid = 4242;
    d.executable = "/usr/bin/python3";
    d.argv = {"app.py", "--port", "8080", "", "ünïcode"};
    d.label = "worker 3";
    d.format_major = 1;
    d.format_minor = 0;
    d.start_time_unix_ns = 1'700'000'000'000'000'000;
    d.connect_time_unix_ns = 1'700'000'100'000'000'000;
    d.attached = true;
    return h;
}

std::vector<uint8_t> preamble() {
    std::vector<uint8_t> out(kPreambleBytes);
    store_preamble(out.data());
    return out;
}

void add_frame(std::vector<uint8_t>& out, MessageType type, const std::vector<uint8_t>& payload,
               uint16_t flags = 0) {
    append_frame(out, type, payload.data(), payload.size(), flags);
}

// Feeds `bytes` in pieces of `piece` bytes; collects frames until done or failed.
std::vector<Frame> parse_all(FrameParser& parser, const std::vector<uint8_t>& bytes, size_t piece) {
    std::vector<Frame> frames;
    size_t at = 0;
    while (at < bytes.size() && !parser.failed()) {
        const size_t n = std::min(piece, bytes.size() - at);
        size_t done = 0;
        while (done < n && !parser.failed()) {
            done += parser.consume(bytes.data() + at + done, n - done);
            if (parser.has_frame()) {
                frames.push_back(parser.frame());
                parser.next();
            }
        }
        at += n;
    }
    return frames;
}

TEST(Messages, HelloRoundTrip) {
    const Hello h = sample_hello();
    const std::vector<uint8_t> payload = encode(h);
    const Hello back = decode_hello(payload.data(), payload.size());
    EXPECT_TRUE(tokens_equal(back.token, h.token));
    EXPECT_EQ(back.process.probe_version, h.process.probe_version);
    EXPECT_EQ(back.process.python_version, h.process.python_version);
    EXPECT_EQ(back.process.python_hexversion, h.process.python_hexversion);
    EXPECT_EQ(back.process.python_build, h.process.python_build);
    EXPECT_EQ(back.process.platform, h.process.platform);
    EXPECT_EQ(back.process.pid, 4242);
    EXPECT_EQ(back.process.executable, h.process.executable);
    EXPECT_EQ(back.process.argv, h.process.argv);
    EXPECT_EQ(back.process.label, "worker 3");
    EXPECT_EQ(back.process.start_time_unix_ns, h.process.start_time_unix_ns);
    EXPECT_EQ(back.process.connect_time_unix_ns, h.process.connect_time_unix_ns);
    EXPECT_TRUE(back.process.attached);
}

TEST(Messages, HelloSkipsUnknownTagsAndRefusesRepeatedOnes) {
    std::vector<uint8_t> payload = encode(sample_hello());
    // An unknown tag 200 with 3 bytes: skipped by its length.
    format::append_varint(payload, 200);
    payload.insert(payload.end(), {3, 'a', 'b', 'c'});
    EXPECT_EQ(decode_hello(payload.data(), payload.size()).process.pid, 4242);
    // Pid again: refused.
    payload.insert(payload.end(), {5, 1, 2});
    try {
        decode_hello(payload.data(), payload.size());
        FAIL() << "a repeated tag decoded";
    } catch (const ProtocolError& e) {
        EXPECT_EQ(e.code(), ProtocolErrorCode::Malformed);
        EXPECT_NE(std::string(e.what()).find("repeated"), std::string::npos) << e.what();
    }
}

TEST(Messages, HelloRefusesLies) {
    // Token cut short.
    std::vector<uint8_t> shorty(10, 1);
    EXPECT_THROW(decode_hello(shorty.data(), shorty.size()), ProtocolError);
    // An argv count far beyond the field's bytes.
    // assign, not the sized constructor: GCC 16 warns, wrongly, on a push_back after that.
    std::vector<uint8_t> p;
    p.assign(kTokenBytes, 7);
    p.push_back(static_cast<uint8_t>(DescriptionTag::Argv));
    std::vector<uint8_t> argv;
    format::append_varint(argv, uint64_t{1} << 40);
    p.push_back(static_cast<uint8_t>(argv.size()));
    p.insert(p.end(), argv.begin(), argv.end());
    try {
        decode_hello(p.data(), p.size());
        FAIL();
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("argv count"), std::string::npos) << e.what();
    }
    // A field length running past the payload.
    std::vector<uint8_t> q(kTokenBytes, 7);
    q.insert(q.end(), {static_cast<uint8_t>(DescriptionTag::Executable), 50, 'x'});
    EXPECT_THROW(decode_hello(q.data(), q.size()), ProtocolError);
    // A pid field with bytes after its varint.
    std::vector<uint8_t> r(kTokenBytes, 7);
    r.insert(r.end(), {static_cast<uint8_t>(DescriptionTag::Pid), 2, 4, 4});
    EXPECT_THROW(decode_hello(r.data(), r.size()), ProtocolError);
}

TEST(Messages, ControlRoundTrips) {
    Welcome w{WelcomeStatus::WrongToken, "wrong token"};
    auto wp = encode(w);
    Welcome wb = decode_welcome(wp.data(), wp.size());
    EXPECT_EQ(wb.status, WelcomeStatus::WrongToken);
    EXPECT_EQ(wb.message, "wrong token");

    TakeSnapshot t{77, kSnapshotCollect, "after warm-up"};
    auto tp = encode(t);
    TakeSnapshot tb = decode_take_snapshot(tp.data(), tp.size());
    EXPECT_EQ(tb.request_id, 77u);
    EXPECT_EQ(tb.flags, kSnapshotCollect);
    EXPECT_EQ(tb.label, "after warm-up");

    SnapshotBegin b{77, 5, true, 123456789, 1'100'000, 2'900'000};
    auto bp = encode(b);
    SnapshotBegin bb = decode_snapshot_begin(bp.data(), bp.size());
    EXPECT_EQ(bb.request_id, 77u);
    EXPECT_EQ(bb.sequence, 5u);
    EXPECT_TRUE(bb.collected);
    EXPECT_EQ(bb.walk_ns, 123456789u);
    EXPECT_EQ(bb.nodes, 1'100'000u);
    EXPECT_EQ(bb.edges, 2'900'000u);

    SnapshotEnd e{77, 15'000'000, 4321};
    auto ep = encode(e);
    SnapshotEnd eb = decode_snapshot_end(ep.data(), ep.size());
    EXPECT_EQ(eb.total_bytes, 15'000'000u);
    EXPECT_EQ(eb.encode_ns, 4321u);

    SnapshotFailed f{77, "out of memory"};
    auto fp = encode(f);
    EXPECT_EQ(decode_snapshot_failed(fp.data(), fp.size()).reason, "out of memory");

    auto np = encode_nonce(0xFFFFFFFFFFFFFFFFull);
    EXPECT_EQ(decode_nonce(np.data(), np.size()), 0xFFFFFFFFFFFFFFFFull);
    auto xp = encode_text("bye");
    EXPECT_EQ(decode_text(xp.data(), xp.size(), "Goodbye"), "bye");
}

TEST(Messages, StrictValuesAndTrailingBytes) {
    // Welcome status out of range.
    std::vector<uint8_t> w = {kWelcomeStatusCount, 0};
    EXPECT_THROW(decode_welcome(w.data(), w.size()), ProtocolError);
    // collected must be 0 or 1.
    std::vector<uint8_t> b = {1, 1, 2, 0, 0, 0};
    EXPECT_THROW(decode_snapshot_begin(b.data(), b.size()), ProtocolError);
    // A text longer than the limit.
    std::vector<uint8_t> t;
    format::append_varint(t, kMaxTextBytes + 1);
    t.resize(t.size() + kMaxTextBytes + 1, 'x');
    EXPECT_THROW(decode_text(t.data(), t.size(), "SetLabel"), ProtocolError);
    // Bytes after the known fields: a later minor's additions, ignored.
    auto e = encode(SnapshotEnd{1, 2, 3});
    e.push_back(9);
    EXPECT_EQ(decode_snapshot_end(e.data(), e.size()).total_bytes, 2u);
    // Empty payloads where fields are required.
    EXPECT_THROW(decode_nonce(nullptr, 0), ProtocolError);
}

// An error inside a tagged Hello field names its byte in the payload, not
// in the field (a 20 KB label was "payload byte 0").
TEST(Messages, ErrorsInsideAHelloFieldCountFromThePayloadStart) {
    Hello h;
    h.process.label = std::string(kMaxTextBytes + 1, 'x');
    const std::vector<uint8_t> bytes = encode(h);
    try {
        decode_hello(bytes.data(), bytes.size());
        FAIL() << "a label over the limit decoded";
    } catch (const ProtocolError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find("payload byte 0,"), std::string::npos) << what;
        // The label is the last field: its value starts a few bytes before the end.
        const size_t at = what.find("payload byte ");
        ASSERT_NE(at, std::string::npos) << what;
        const size_t byte = std::stoul(what.substr(at + 13));
        EXPECT_GT(byte, kTokenBytes) << what;
        EXPECT_LT(byte, bytes.size()) << what;
    }
}

TEST(Messages, NamesLimitsAndDirections) {
    EXPECT_STREQ(message_name(static_cast<uint16_t>(MessageType::SnapshotData)), "SnapshotData");
    EXPECT_EQ(message_name(999), nullptr);
    EXPECT_EQ(max_payload(static_cast<uint16_t>(MessageType::SnapshotData)), kMaxSnapshotChunk);
    EXPECT_EQ(max_payload(static_cast<uint16_t>(MessageType::Hello)), kMaxHelloPayload);
    EXPECT_EQ(max_payload(static_cast<uint16_t>(MessageType::Ping)), kMaxControlPayload);
    EXPECT_EQ(max_payload(999), kMaxControlPayload);
    for (uint16_t t = 0; t < 64; ++t) {
        EXPECT_FALSE(sent_by_probe(t) && sent_by_receiver(t)) << t;
        if (sent_by_probe(t) || sent_by_receiver(t)) {
            EXPECT_NE(message_name(t), nullptr) << t;
        }
    }
}

// The bytes of docs/protocol.md's annotated example: the document and the
// code must not drift apart.
TEST(Messages, AnnotatedExampleBytes) {
    std::vector<uint8_t> pre(kPreambleBytes);
    store_preamble(pre.data());
    EXPECT_EQ(pre, (std::vector<uint8_t>{0x52, 0x53, 0x4C, 0x49, 0x56, 0x45, 0x0D, 0x0A, 0x01, 0x00, 0x00, 0x00}));

    Hello h;
    for (size_t i = 0; i < kTokenBytes; ++i) h.token[i] = static_cast<uint8_t>(0x11 * i);
    h.process.probe_version = "0.1.0";
    h.process.python_version = "3.11.2";
    h.process.python_hexversion = 0x030B02F0;
    h.process.pid = 4242;
    h.process.executable = "/usr/bin/python3";
    h.process.argv = {"app.py"};
    std::vector<uint8_t> frame;
    const std::vector<uint8_t> hello = encode(h);
    append_frame(frame, MessageType::Hello, hello.data(), hello.size());
    const std::vector<uint8_t> expected_hello = {
        0x01, 0x00, 0x00, 0x00, 0x5A, 0x00, 0x00, 0x00, 0x69, 0x6D, 0x05, 0x73, 0x00, 0x11, 0x22, 0x33,
        0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01, 0x05, 0x30, 0x2E,
        0x31, 0x2E, 0x30, 0x02, 0x06, 0x33, 0x2E, 0x31, 0x31, 0x2E, 0x32, 0x03, 0x04, 0xF0, 0x85, 0xAC,
        0x18, 0x04, 0x00, 0x0D, 0x00, 0x05, 0x02, 0xA4, 0x42, 0x06, 0x10, 0x2F, 0x75, 0x73, 0x72, 0x2F,
        0x62, 0x69, 0x6E, 0x2F, 0x70, 0x79, 0x74, 0x68, 0x6F, 0x6E, 0x33, 0x07, 0x08, 0x01, 0x06, 0x61,
        0x70, 0x70, 0x2E, 0x70, 0x79, 0x0B, 0x00, 0x20, 0x01, 0x01, 0x21, 0x01, 0x03, 0x22, 0x01, 0x00,
        0x23, 0x01, 0x00, 0x24, 0x01, 0x00};
    EXPECT_EQ(frame, expected_hello);

    frame.clear();
    const std::vector<uint8_t> welcome = encode(Welcome{WelcomeStatus::Ok, ""});
    append_frame(frame, MessageType::Welcome, welcome.data(), welcome.size());
    EXPECT_EQ(frame, (std::vector<uint8_t>{0x10, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0xB4, 0x86, 0xE4,
                                           0xB5, 0x00, 0x00}));
    frame.clear();
    const std::vector<uint8_t> take = encode(TakeSnapshot{7, kSnapshotCollect, ""});
    append_frame(frame, MessageType::TakeSnapshot, take.data(), take.size());
    EXPECT_EQ(frame, (std::vector<uint8_t>{0x11, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x16, 0x75, 0x67,
                                           0xBF, 0x07, 0x01, 0x00}));
    frame.clear();
    const std::vector<uint8_t> ping = encode_nonce(300);
    append_frame(frame, MessageType::Ping, ping.data(), ping.size());
    EXPECT_EQ(frame, (std::vector<uint8_t>{0x12, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x67, 0xCC, 0x49,
                                           0x90, 0xAC, 0x02}));
}

TEST(Tokens, HexRoundTripAndStrictParsing) {
    uint8_t token[kTokenBytes];
    for (size_t i = 0; i < kTokenBytes; ++i) token[i] = static_cast<uint8_t>(i * 17);
    const std::string hex = token_to_hex(token);
    EXPECT_EQ(hex.size(), 32u);
    uint8_t back[kTokenBytes] = {};
    ASSERT_TRUE(parse_token(hex, back));
    EXPECT_TRUE(tokens_equal(token, back));
    ASSERT_TRUE(parse_token("  " + hex + "\n", back));
    std::string upper = hex;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ASSERT_TRUE(parse_token(upper, back));
    EXPECT_TRUE(tokens_equal(token, back));
    EXPECT_FALSE(parse_token(hex.substr(1), back));
    EXPECT_FALSE(parse_token(hex + "0", back));
    EXPECT_FALSE(parse_token(hex.substr(0, 31) + "g", back));
    EXPECT_FALSE(parse_token("", back));
    back[3] ^= 1;
    EXPECT_FALSE(tokens_equal(token, back));
}

TEST(Addresses, ParseAndRefuse) {
    std::string error;
    auto u = parse_address("unix:/tmp/refscope-x/live.sock", error);
    ASSERT_TRUE(u) << error;
    EXPECT_EQ(u->kind, Address::Kind::Unix);
    EXPECT_EQ(u->path, "/tmp/refscope-x/live.sock");
    EXPECT_EQ(u->to_string(), "unix:/tmp/refscope-x/live.sock");
    auto bare = parse_address("/tmp/s.sock", error);
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->to_string(), "unix:/tmp/s.sock");
    auto t = parse_address("tcp:127.0.0.1:40123", error);
    ASSERT_TRUE(t) << error;
    EXPECT_EQ(t->kind, Address::Kind::Tcp);
    EXPECT_EQ(t->ipv4, 0x7F000001u);
    EXPECT_EQ(t->port, 40123);
    EXPECT_EQ(t->to_string(), "tcp:127.0.0.1:40123");
    auto l = parse_address("tcp:localhost:9", error);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->to_string(), "tcp:127.0.0.1:9");

    EXPECT_FALSE(parse_address("tcp:10.0.0.1:80", error));
    EXPECT_NE(error.find("loopback"), std::string::npos) << error;
    EXPECT_FALSE(parse_address("tcp:127.0.0.1:0", error));
    EXPECT_FALSE(parse_address("tcp:127.0.0.1:65536", error));
    EXPECT_FALSE(parse_address("tcp:127.0.0:80", error));
    EXPECT_FALSE(parse_address("tcp:127.0.0.1.5:80", error));
    EXPECT_FALSE(parse_address("tcp:127.0.0.256:80", error));
    EXPECT_FALSE(parse_address("tcp:example.com:80", error));
    EXPECT_FALSE(parse_address("unix:relative.sock", error));
    EXPECT_FALSE(parse_address("unix:/" + std::string(200, 'a'), error));
    EXPECT_NE(error.find("longer"), std::string::npos) << error;
    EXPECT_FALSE(parse_address("http://127.0.0.1/", error));
    EXPECT_FALSE(parse_address("", error));
}

// A connection's worth of bytes from the probe: preamble, Hello, a snapshot.
std::vector<uint8_t> probe_stream(const std::vector<uint8_t>& snapshot_bytes, size_t chunk) {
    std::vector<uint8_t> out = preamble();
    add_frame(out, MessageType::Hello, encode(sample_hello()));
    add_frame(out, MessageType::SnapshotBegin, encode(SnapshotBegin{1, 1, true, 10, 20, 30}));
    for (size_t at = 0; at < snapshot_bytes.size(); at += chunk) {
        const size_t n = std::min(chunk, snapshot_bytes.size() - at);
        append_frame(out, MessageType::SnapshotData, snapshot_bytes.data() + at, n);
    }
    add_frame(out, MessageType::SnapshotEnd, encode(SnapshotEnd{1, snapshot_bytes.size(), 5}));
    add_frame(out, MessageType::Goodbye, encode_text("done"));
    return out;
}

TEST(FrameParser, EverySplitGivesTheSameFrames) {
    const std::vector<uint8_t> snap = format::encode_snapshot(testing::make_small_snapshot());
    const std::vector<uint8_t> stream = probe_stream(snap, 100);
    for (size_t piece : {size_t{1}, size_t{2}, size_t{7}, size_t{12}, size_t{13}, size_t{4096}, stream.size()}) {
        FrameParser parser;
        const std::vector<Frame> frames = parse_all(parser, stream, piece);
        ASSERT_FALSE(parser.failed()) << piece << ": " << parser.error().what();
        parser.finish();
        EXPECT_FALSE(parser.failed());
        EXPECT_EQ(parser.peer_major(), kProtocolMajor);
        ASSERT_EQ(frames.size(), 3 + (snap.size() + 99) / 100 + 1) << piece;
        EXPECT_EQ(frames[0].type, static_cast<uint16_t>(MessageType::Hello));
        std::vector<uint8_t> data;
        for (const Frame& f : frames)
            if (f.type == static_cast<uint16_t>(MessageType::SnapshotData))
                data.insert(data.end(), f.payload.begin(), f.payload.end());
        EXPECT_EQ(data, snap) << piece;
        EXPECT_EQ(parser.bytes_consumed(), stream.size());
    }
}

TEST(FrameParser, StopsAfterEachFrameUntilNext) {
    std::vector<uint8_t> stream = preamble();
    add_frame(stream, MessageType::Ping, encode_nonce(1));
    add_frame(stream, MessageType::Ping, encode_nonce(2));
    FrameParser parser;
    size_t used = parser.consume(stream.data(), stream.size());
    ASSERT_TRUE(parser.has_frame());
    EXPECT_LT(used, stream.size());
    EXPECT_EQ(parser.consume(stream.data() + used, stream.size() - used), 0u);  // waits for next()
    EXPECT_EQ(decode_nonce(parser.frame().payload.data(), parser.frame().payload.size()), 1u);
    parser.next();
    used += parser.consume(stream.data() + used, stream.size() - used);
    ASSERT_TRUE(parser.has_frame());
    EXPECT_EQ(decode_nonce(parser.frame().payload.data(), parser.frame().payload.size()), 2u);
    EXPECT_EQ(used, stream.size());
}

ProtocolError parse_error(const std::vector<uint8_t>& bytes, bool finish = false) {
    FrameParser parser;
    parse_all(parser, bytes, 3);
    if (finish) parser.finish();
    if (!parser.failed()) throw std::runtime_error("no error");
    return parser.error();
}

TEST(FrameParser, GarbageFailsAtTheFirstByte) {
    const std::string http = "GET / HTTP/1.1\r\n\r\n";
    FrameParser parser;
    EXPECT_EQ(parser.consume(reinterpret_cast<const uint8_t*>(http.data()), http.size()), 1u);
    ASSERT_TRUE(parser.failed());
    EXPECT_EQ(parser.error().code(), ProtocolErrorCode::BadMagic);
    EXPECT_NE(std::string(parser.error().what()).find("not a refscope live connection"), std::string::npos);
    // Failed for good.
    EXPECT_EQ(parser.consume(reinterpret_cast<const uint8_t*>(http.data()), http.size()), 0u);
    // The snapshot file magic is not the connection magic either.
    std::vector<uint8_t> file(format::kMagic, format::kMagic + 8);
    EXPECT_EQ(parse_error(file).code(), ProtocolErrorCode::BadMagic);
}

TEST(FrameParser, NewerMajorIsRefusedWithAnUpgradeHint) {
    std::vector<uint8_t> bytes = preamble();
    format::store_le16(bytes.data() + 8, 2);
    const ProtocolError e = parse_error(bytes);
    EXPECT_EQ(e.code(), ProtocolErrorCode::UnsupportedVersion);
    EXPECT_NE(std::string(e.what()).find("upgrade"), std::string::npos) << e.what();
}

TEST(FrameParser, OversizedIsRefusedBeforeThePayload) {
    std::vector<uint8_t> bytes = preamble();
    uint8_t header[kFrameHeaderBytes];
    store_frame_header(header, static_cast<uint16_t>(MessageType::Ping), 0, nullptr, 0);
    format::store_le32(header + 4, kMaxControlPayload + 1);
    bytes.insert(bytes.end(), header, header + kFrameHeaderBytes);
    FrameParser parser;
    EXPECT_EQ(parser.consume(bytes.data(), bytes.size()), bytes.size());
    ASSERT_TRUE(parser.failed());
    EXPECT_EQ(parser.error().code(), ProtocolErrorCode::Oversized);
    EXPECT_NE(std::string(parser.error().what()).find("65537 bytes declared"), std::string::npos)
        << parser.error().what();
    // A data frame may be 1 MiB, not one byte more; 4 GiB is refused outright.
    std::vector<uint8_t> data = preamble();
    store_frame_header(header, static_cast<uint16_t>(MessageType::SnapshotData), 0, nullptr, 0);
    format::store_le32(header + 4, 0xFFFFFFFFu);
    data.insert(data.end(), header, header + kFrameHeaderBytes);
    EXPECT_EQ(parse_error(data).code(), ProtocolErrorCode::Oversized);
}

TEST(FrameParser, FlagsChecksumAndTruncation) {
    std::vector<uint8_t> flagged = preamble();
    add_frame(flagged, MessageType::Ping, encode_nonce(1), 0x0004);
    EXPECT_EQ(parse_error(flagged).code(), ProtocolErrorCode::BadFlags);

    std::vector<uint8_t> damaged = preamble();
    add_frame(damaged, MessageType::Ping, encode_nonce(300));
    damaged.back() ^= 0x40;
    EXPECT_EQ(parse_error(damaged).code(), ProtocolErrorCode::BadChecksum);
    std::vector<uint8_t> damaged_type = preamble();
    add_frame(damaged_type, MessageType::Ping, encode_nonce(300));
    damaged_type[kPreambleBytes] ^= 0x01;  // type Ping -> Pong: the CRC catches it too
    EXPECT_EQ(parse_error(damaged_type).code(), ProtocolErrorCode::BadChecksum);

    std::vector<uint8_t> whole = preamble();
    add_frame(whole, MessageType::SetLabel, encode_text("a label"));
    for (size_t cut = 1; cut < whole.size(); ++cut) {
        if (cut == kPreambleBytes) continue;  // a clean end after the preamble
        std::vector<uint8_t> prefix(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(cut));
        const ProtocolError e = parse_error(prefix, true);
        EXPECT_EQ(e.code(), ProtocolErrorCode::Truncated) << cut << ": " << e.what();
    }
    // A clean end between frames is not an error.
    FrameParser parser;
    parse_all(parser, whole, 5);
    parser.finish();
    EXPECT_FALSE(parser.failed());
}

TEST(FrameParser, EmptyPayloadAndMidFrameState) {
    std::vector<uint8_t> bytes = preamble();
    add_frame(bytes, MessageType::SnapshotEnd, {});
    FrameParser parser;
    EXPECT_FALSE(parser.mid_frame());
    parser.consume(bytes.data(), 5);
    EXPECT_TRUE(parser.mid_frame());
    parser.consume(bytes.data() + 5, bytes.size() - 5);
    ASSERT_TRUE(parser.has_frame());
    EXPECT_TRUE(parser.frame().payload.empty());
    parser.next();
    EXPECT_FALSE(parser.mid_frame());
}

TEST(SnapshotStream, AcceptsTheFileInAnySplit) {
    for (bool compress : {true, false}) {
        const std::vector<uint8_t> snap =
            format::encode_snapshot(testing::make_small_snapshot(), {compress, 3});
        std::mt19937 rng(7);
        for (int round = 0; round < 20; ++round) {
            SnapshotStreamCheck check;
            size_t at = 0;
            while (at < snap.size()) {
                const size_t n = std::min<size_t>(1 + rng() % 40, snap.size() - at);
                ASSERT_TRUE(check.feed(snap.data() + at, n)) << check.error();
                at += n;
            }
            EXPECT_TRUE(check.complete());
            EXPECT_EQ(check.bytes(), snap.size());
            EXPECT_EQ(check.sections(), 8u);
        }
    }
}

TEST(SnapshotStream, RefusesWhatTheReaderWould) {
    const std::vector<uint8_t> snap = format::encode_snapshot(testing::make_small_snapshot());
    {  // every proper prefix is incomplete, never failed
        for (size_t cut = 0; cut < snap.size(); cut += 7) {
            SnapshotStreamCheck check;
            EXPECT_TRUE(check.feed(snap.data(), cut));
            EXPECT_FALSE(check.complete()) << cut;
        }
    }
    {
        std::vector<uint8_t> bad = snap;
        bad[2] = 'X';
        SnapshotStreamCheck check;
        EXPECT_FALSE(check.feed(bad.data(), bad.size()));
        EXPECT_NE(check.error().find("magic"), std::string::npos);
    }
    {
        std::vector<uint8_t> bad = snap;
        bad[bad.size() / 2] ^= 0x10;
        SnapshotStreamCheck check;
        EXPECT_FALSE(check.feed(bad.data(), bad.size()));
        EXPECT_NE(check.error().find("CRC"), std::string::npos) << check.error();
    }
    {
        std::vector<uint8_t> bad = snap;
        format::store_le16(bad.data() + 8, format::kFormatMajor + 1);
        SnapshotStreamCheck check;
        EXPECT_FALSE(check.feed(bad.data(), bad.size()));
    }
    {
        std::vector<uint8_t> bad = snap;
        bad.push_back(0);
        SnapshotStreamCheck check;
        EXPECT_FALSE(check.feed(bad.data(), bad.size()));
        EXPECT_NE(check.error().find("after the End"), std::string::npos);
    }
}

}  // namespace
}  // namespace refscope::protocol
