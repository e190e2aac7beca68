// Bounded random mutations of valid connection streams (fixed seeds, a few
// seconds), through the same driver as the libFuzzer target: whatever the
// bytes, the parser and decoders give frames or one ProtocolError, never a
// crash, a hang or an allocation beyond the frame limits (ASan checks the
// rest in the asan build).
//
// REFSCOPE_PROTOCOL_CORPUS=DIR writes the seed streams to DIR, to start a
// libFuzzer run from (docs/protocol.md, "Fuzzing").
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include "protocol_fuzz_driver.h"
#include "refscope/format/snapshot_io.h"
#include "test_support.h"

namespace refscope::protocol {
namespace {

std::vector<uint8_t> with_piece_byte(std::vector<uint8_t> stream, uint8_t piece) {
    stream.insert(stream.begin(), piece);
    return stream;
}

std::vector<uint8_t> probe_seed() {
    std::vector<uint8_t> out(kPreambleBytes);
    store_preamble(out.data());
    Hello hello;
    hello.token[0] = 1;
    hello.process.pid = 12;
    hello.process.argv = {"a.py", "-v"};
    hello.process.python_version = "3.11.2";
    auto p = encode(hello);
    append_frame(out, MessageType::Hello, p.data(), p.size());
    p = encode(SnapshotBegin{1, 1, true, 100, 60, 70});
    append_frame(out, MessageType::SnapshotBegin, p.data(), p.size());
    const std::vector<uint8_t> snap = format::encode_snapshot(testing::make_small_snapshot(), {false, 0});
    for (size_t at = 0; at < snap.size(); at += 300) {
        const size_t n = std::min<size_t>(300, snap.size() - at);
        append_frame(out, MessageType::SnapshotData, snap.data() + at, n);
    }
    p = encode(SnapshotEnd{1, snap.size(), 9});
    append_frame(out, MessageType::SnapshotEnd, p.data(), p.size());
    p = encode_nonce(77);
    append_frame(out, MessageType::Pong, p.data(), p.size());
    p = encode(SnapshotFailed{2, "walk failed"});
    append_frame(out, MessageType::SnapshotFailed, p.data(), p.size());
    p = encode_text("process exiting");
    append_frame(out, MessageType::Goodbye, p.data(), p.size());
    return out;
}

std::vector<uint8_t> receiver_seed() {
    std::vector<uint8_t> out(kPreambleBytes);
    store_preamble(out.data());
    auto p = encode(Welcome{WelcomeStatus::Ok, ""});
    append_frame(out, MessageType::Welcome, p.data(), p.size());
    p = encode(TakeSnapshot{5, kSnapshotCollect, "baseline"});
    append_frame(out, MessageType::TakeSnapshot, p.data(), p.size());
    p = encode_nonce(1);
    append_frame(out, MessageType::Ping, p.data(), p.size());
    p = encode_text("label");
    append_frame(out, MessageType::SetLabel, p.data(), p.size());
    p = encode_text("bye");
    append_frame(out, MessageType::Disconnect, p.data(), p.size());
    // An optional frame of an unknown type, which a peer skips.
    append_frame(out, static_cast<MessageType>(300), p.data(), p.size(), kFrameOptional);
    return out;
}

void mutate(std::vector<uint8_t>& b, std::mt19937_64& rng) {
    auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
        const size_t at = pick(b.size());
        switch (rng() % 6) {
            case 0:
                if (!b.empty()) b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
                break;
            case 1:
                if (!b.empty()) b[at] = static_cast<uint8_t>(rng());
                break;
            case 2: b.insert(b.begin() + static_cast<ptrdiff_t>(at), static_cast<uint8_t>(rng())); break;
            case 3:
                if (!b.empty()) b.erase(b.begin() + static_cast<ptrdiff_t>(at));
                break;
            case 4: {
                const uint8_t edge[] = {0x00, 0x7F, 0x80, 0xFF};
                if (!b.empty()) b[at] = edge[rng() % 4];
                break;
            }
            case 5:  // cut the stream: a peer that stops mid-frame
                b.resize(at);
                break;
        }
    }
}

TEST(ProtocolMutation, SeedsDecodeCompletely) {
    const auto probe = with_piece_byte(probe_seed(), 16);
    const auto receiver = with_piece_byte(receiver_seed(), 3);
    // Every frame decodes, except the unknown optional one, which the driver skips.
    EXPECT_EQ(fuzzing::run_one(probe.data(), probe.size()), 6u + (format::encode_snapshot(
        testing::make_small_snapshot(), {false, 0}).size() + 299) / 300);
    EXPECT_EQ(fuzzing::run_one(receiver.data(), receiver.size()), 6u);
    if (const char* dir = std::getenv("REFSCOPE_PROTOCOL_CORPUS")) {
        std::ofstream(std::string(dir) + "/probe-seed", std::ios::binary)
            .write(reinterpret_cast<const char*>(probe.data()), static_cast<std::streamsize>(probe.size()));
        std::ofstream(std::string(dir) + "/receiver-seed", std::ios::binary)
            .write(reinterpret_cast<const char*>(receiver.data()),
                   static_cast<std::streamsize>(receiver.size()));
    }
}

TEST(ProtocolMutation, MutatedStreamsGiveFramesOrOneError) {
    const std::vector<std::vector<uint8_t>> seeds = {with_piece_byte(probe_seed(), 16),
                                                     with_piece_byte(receiver_seed(), 3)};
    std::mt19937_64 rng(20240611);
    size_t decoded = 0;
    for (int round = 0; round < 40000; ++round) {
        std::vector<uint8_t> b = seeds[static_cast<size_t>(round) % seeds.size()];
        mutate(b, rng);
        decoded += fuzzing::run_one(b.data(), b.size());
        const std::vector<uint8_t> fixed = fuzzing::with_fixed_checksums(b.data(), b.size());
        decoded += fuzzing::run_one(fixed.data(), fixed.size());
    }
    // The checksum-fixed copies must reach the decoders most of the time.
    EXPECT_GT(decoded, 40000u);
}

TEST(ProtocolMutation, RandomBytesAreRefusedQuickly) {
    std::mt19937_64 rng(99);
    for (int round = 0; round < 2000; ++round) {
        std::vector<uint8_t> b(1 + rng() % 2000);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        FrameParser parser;
        const size_t used = parser.consume(b.data(), b.size());
        // Random bytes almost never start with the magic: refused at once.
        if (b[0] != kMagic[0]) {
            EXPECT_TRUE(parser.failed());
            EXPECT_EQ(used, 1u);
        }
    }
}

}  // namespace
}  // namespace refscope::protocol
