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

void add_frame(std::vector<uint8_t>& out, MessageType type, const std::vector<uint8_t>& payload,
               uint16_t flags = 0) {
    append_frame(out, type, payload.data(), payload.size(), flags);
}

std::vector<uint8_t> probe_seed() {
    std::vector<uint8_t> out(kPreambleBytes);
    store_preamble(out.data());
    Hello hello;
    hello.token[0] = 1;
    hello.process.pid = 12;
    hello.process.argv = {"a.py", "-v"};
    hello.process.python_version = "3.11.2";
    add_frame(out, MessageType::Hello, encode(hello));
    add_frame(out, MessageType::SnapshotBegin, encode(SnapshotBegin{1, 1, true, 100, 60, 70}));
    const std::vector<uint8_t> snap = format::encode_snapshot(testing::make_small_snapshot(), {false, 0});
    for (size_t at = 0; at < snap.size(); at += 300) {
        const size_t n = std::min<size_t>(300, snap.size() - at);
        append_frame(out, MessageType::SnapshotData, snap.data() + at, n);
    }
    add_frame(out, MessageType::SnapshotEnd, encode(SnapshotEnd{1, snap.size(), 9}));
    add_frame(out, MessageType::Pong, encode_nonce(77));
    add_frame(out, MessageType::SnapshotFailed, encode(SnapshotFailed{2, "walk failed"}));
    add_frame(out, MessageType::Goodbye, encode_text("process exiting"));
    return out;
}

std::vector<uint8_t> receiver_seed() {
    std::vector<uint8_t> out(kPreambleBytes);
    store_preamble(out.data());
    add_frame(out, MessageType::Welcome, encode(Welcome{WelcomeStatus::Ok, ""}));
    add_frame(out, MessageType::TakeSnapshot, encode(TakeSnapshot{5, kSnapshotCollect, "baseline"}));
    add_frame(out, MessageType::Ping, encode_nonce(1));
    add_frame(out, MessageType::SetLabel, encode_text("label"));
    add_frame(out, MessageType::Disconnect, encode_text("bye"));
    // An optional frame of an unknown type, which a peer skips.
    add_frame(out, static_cast<MessageType>(300), encode_text("bye"), kFrameOptional);
    return out;
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
        testing::mutate_bytes(b, rng, /*may_cut=*/true);
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
