// The receiving side (core/src/live/listener.cpp, receiver_connection.cpp)
// against fake probes written from the spec: handshake and refusals, every
// fault the receiver must survive (docs/protocol.md, "The conversation, and
// what ends it"), snapshots saved as valid files, partial ones discarded,
// several connections at once.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "live_test_support.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::live::testing {
namespace {

namespace fs = std::filesystem;
using protocol::MessageType;
using protocol::WelcomeStatus;

class ListenerTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/refscope-listener-test-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        root_ = pattern;
        options_.session_dir = root_ + "/session";
        options_.handshake_timeout = 2000ms;
        options_.stall_timeout = 2000ms;
    }
    void TearDown() override { fs::remove_all(root_); }

    std::vector<fs::path> files_in_session(const std::string& extension) {
        std::vector<fs::path> out;
        for (const auto& entry : fs::directory_iterator(options_.session_dir))
            if (entry.path().string().ends_with(extension)) out.push_back(entry.path());
        return out;
    }

    std::string root_;
    ListenerOptions options_;
    EventRecorder events_;
};

TEST_F(ListenerTest, PrivateDirectoryTokenFileAndSocket) {
    RunningListener run(options_, events_);
    Listener& l = run.listener;
    ASSERT_EQ(l.address(), l.unix_address());
    ASSERT_TRUE(l.unix_address().starts_with("unix:/"));
    EXPECT_EQ(l.token_hex().size(), 32u);
    const std::string socket = l.unix_address().substr(5);
    struct stat st {};
    ASSERT_EQ(::stat(fs::path(socket).parent_path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat(l.token_file().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    std::ifstream token(l.token_file());
    std::string line;
    std::getline(token, line);
    EXPECT_EQ(line, l.token_hex());
    ASSERT_EQ(::stat(options_.session_dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(ListenerTest, TwoListenersHaveDifferentRandomTokens) {
    Listener a(options_, events_);
    Listener b(options_, events_);
    EXPECT_NE(a.token_hex(), b.token_hex());
    EXPECT_NE(a.unix_address(), b.unix_address());
}

TEST_F(ListenerTest, DestructorRemovesSocketTokenAndDirectory) {
    std::string socket, token;
    {
        Listener l(options_, events_);
        socket = l.unix_address().substr(5);
        token = l.token_file();
        EXPECT_TRUE(fs::exists(socket));
    }
    EXPECT_FALSE(fs::exists(socket));
    EXPECT_FALSE(fs::exists(token));
    EXPECT_FALSE(fs::exists(fs::path(socket).parent_path()));
}

TEST_F(ListenerTest, RefusesASocketDirectoryOthersCanEnter) {
    const std::string open_dir = root_ + "/open";
    ASSERT_EQ(::mkdir(open_dir.c_str(), 0755), 0);
    ::chmod(open_dir.c_str(), 0755);
    options_.socket_dir = open_dir;
    try {
        Listener l(options_, events_);
        FAIL() << "listened in a 0755 directory";
    } catch (const ListenError& e) {
        EXPECT_NE(std::string(e.what()).find("private"), std::string::npos) << e.what();
    }
    options_.socket_dir = root_ + "/mine";  // created private
    Listener l(options_, events_);
    EXPECT_EQ(l.unix_address(), "unix:" + root_ + "/mine/live.sock");
}

TEST_F(ListenerTest, HandshakeDescribesTheProcess) {
    RunningListener run(options_, events_);
    FakeProbe probe(run.listener.address());
    const protocol::Welcome w = probe.handshake(hex_token(run.listener.token_hex()), 777);
    EXPECT_EQ(w.status, WelcomeStatus::Ok);
    const Event e = events_.wait_kind("connected");
    EXPECT_EQ(e.info.process.pid, 777);
    EXPECT_EQ(e.info.process.argv, (std::vector<std::string>{"fake_probe.py", "--flag"}));
    EXPECT_EQ(e.info.transport, "unix");
    EXPECT_EQ(e.info.peer_pid, ::getpid());  // SO_PEERCRED: the kernel's word, not the probe's
    EXPECT_EQ(e.info.peer_uid, static_cast<int64_t>(::getuid()));
    for (int i = 0; i < 100 && run.listener.connections().empty(); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(run.listener.connections().size(), 1u);
    EXPECT_EQ(run.listener.connections()[0].process.label, "fake");
}

TEST_F(ListenerTest, WrongAndMissingTokensAreRefusedAndLogged) {
    RunningListener run(options_, events_);
    std::vector<uint8_t> wrong = hex_token(run.listener.token_hex());
    wrong[5] ^= 1;
    FakeProbe bad(run.listener.address());
    EXPECT_EQ(bad.handshake(wrong).status, WelcomeStatus::WrongToken);
    EXPECT_TRUE(bad.wait_closed());
    events_.wait_log("wrong token");

    FakeProbe none(run.listener.address());
    EXPECT_EQ(none.handshake(std::vector<uint8_t>(16, 0)).status, WelcomeStatus::MissingToken);
    EXPECT_TRUE(none.wait_closed());
    events_.wait_log("no token");
    EXPECT_EQ(events_.count("refused"), 2u);
    EXPECT_EQ(events_.count("connected"), 0u);

    // The listener keeps serving.
    FakeProbe good(run.listener.address());
    EXPECT_EQ(good.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
}

TEST_F(ListenerTest, GarbageIsDroppedWithALogLine) {
    RunningListener run(options_, events_);
    FakeProbe good(run.listener.address());
    ASSERT_EQ(good.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    const ConnectionId good_id = events_.wait_kind("connected").id;

    FakeProbe http(run.listener.address());
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    http.send_bytes(std::vector<uint8_t>(request.begin(), request.end()));
    EXPECT_TRUE(http.wait_closed());
    events_.wait_log("not a refscope live connection");

    // A newer protocol major gets an answer it can show its user.
    FakeProbe newer(run.listener.address());
    std::vector<uint8_t> preamble(protocol::kPreambleBytes);
    protocol::store_preamble(preamble.data());
    format::store_le16(preamble.data() + 8, 9);
    newer.send_bytes(preamble);
    const auto f = newer.read_frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(protocol::decode_welcome(f->payload.data(), f->payload.size()).status,
              WelcomeStatus::UnsupportedProtocol);

    // A Hello that does not decode.
    FakeProbe malformed(run.listener.address());
    malformed.send_preamble();
    malformed.send_frame(MessageType::Hello, {1, 2, 3});
    const auto m = malformed.read_frame();
    ASSERT_TRUE(m);
    EXPECT_EQ(protocol::decode_welcome(m->payload.data(), m->payload.size()).status, WelcomeStatus::Malformed);

    // The first connection still answers.
    const uint64_t nonce = run.listener.ping(good_id);
    const auto ping = good.read_frame();
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->type, static_cast<uint16_t>(MessageType::Ping));
    good.send_frame(MessageType::Pong, ping->payload);
    EXPECT_EQ(events_.wait_kind("pong").number, nonce);
}

TEST_F(ListenerTest, OversizedFrameDropsOnlyThatConnection) {
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    FakeProbe other(run.listener.address());
    ASSERT_EQ(other.handshake(token).status, WelcomeStatus::Ok);
    FakeProbe big(run.listener.address());
    ASSERT_EQ(big.handshake(token).status, WelcomeStatus::Ok);
    uint8_t header[protocol::kFrameHeaderBytes];
    protocol::store_frame_header(header, static_cast<uint16_t>(MessageType::SnapshotData), 0, nullptr, 0);
    format::store_le32(header + 4, 0x7FFFFFFF);
    big.send_bytes(std::vector<uint8_t>(header, header + sizeof header));
    EXPECT_TRUE(big.wait_closed());
    events_.wait_log("oversized frame");
    const Event gone = events_.wait_kind("disconnected");
    EXPECT_EQ(gone.reason, DisconnectReason::ProtocolError);
    for (int i = 0; i < 100 && run.listener.connections().size() != 1; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(run.listener.connections().size(), 1u);
}

TEST_F(ListenerTest, SilentClientAndMidFrameStallAreDropped) {
    options_.handshake_timeout = 300ms;
    options_.stall_timeout = 300ms;
    RunningListener run(options_, events_);
    FakeProbe silent(run.listener.address());
    EXPECT_TRUE(silent.wait_closed(3s));
    events_.wait_log("no handshake within 0.3 s");

    FakeProbe stuck(run.listener.address());
    ASSERT_EQ(stuck.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    std::vector<uint8_t> frame;
    const auto payload = protocol::encode_nonce(5);
    protocol::append_frame(frame, MessageType::Pong, payload.data(), payload.size());
    frame.resize(7);  // stop mid-header
    stuck.send_bytes(frame);
    EXPECT_TRUE(stuck.wait_closed(3s));
    EXPECT_EQ(events_.wait_kind("disconnected").reason, DisconnectReason::Stalled);
    events_.wait_log("stalled for 0.3 s in the middle of a frame");
}

TEST_F(ListenerTest, SnapshotIsSavedAsAValidFile) {
    RunningListener run(options_, events_);
    FakeProbe probe(run.listener.address());
    ASSERT_EQ(probe.handshake(hex_token(run.listener.token_hex()), 31337).status, WelcomeStatus::Ok);
    const ConnectionId id = events_.wait_kind("connected").id;
    const uint64_t request = run.listener.request_snapshot(id, true, "baseline");
    const auto f = probe.read_frame();
    ASSERT_TRUE(f);
    ASSERT_EQ(f->type, static_cast<uint16_t>(MessageType::TakeSnapshot));
    const protocol::TakeSnapshot take = protocol::decode_take_snapshot(f->payload.data(), f->payload.size());
    EXPECT_EQ(take.request_id, request);
    EXPECT_EQ(take.flags, protocol::kSnapshotCollect);
    EXPECT_EQ(take.label, "baseline");

    const Snapshot original = refscope::testing::make_small_snapshot();
    const std::vector<uint8_t> bytes = format::encode_snapshot(original);
    probe.stream_snapshot(request, 7, bytes, 100);
    const Event saved = events_.wait_kind("saved");
    EXPECT_EQ(saved.number, request);
    EXPECT_EQ(saved.saved.sequence, 7u);
    EXPECT_EQ(saved.saved.bytes, bytes.size());
    EXPECT_EQ(saved.saved.label, "baseline");
    EXPECT_EQ(fs::path(saved.text).filename(), "pid31337-0007.rscope");
    struct stat st {};
    ASSERT_EQ(::stat(saved.text.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_TRUE(refscope::testing::same_snapshot(format::read_snapshot_file(saved.text), original));
    EXPECT_TRUE(files_in_session(".partial").empty());

    // The session index names the process and the file.
    std::ifstream index(options_.session_dir + "/session.jsonl");
    std::string all((std::istreambuf_iterator<char>(index)), std::istreambuf_iterator<char>());
    EXPECT_NE(all.find("\"event\":\"connected\""), std::string::npos) << all;
    EXPECT_NE(all.find("\"file\":\"pid31337-0007.rscope\""), std::string::npos) << all;
}

TEST_F(ListenerTest, PartialSnapshotOfAVanishedPeerIsDiscarded) {
    RunningListener run(options_, events_);
    FakeProbe probe(run.listener.address());
    ASSERT_EQ(probe.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    const ConnectionId id = events_.wait_kind("connected").id;
    const uint64_t request = run.listener.request_snapshot(id, false);
    ASSERT_TRUE(probe.read_frame());
    const std::vector<uint8_t> bytes = format::encode_snapshot(refscope::testing::make_small_snapshot());
    probe.send_frame(MessageType::SnapshotBegin, protocol::encode(protocol::SnapshotBegin{request, 1, false, 1, 2, 3}));
    std::vector<uint8_t> half;
    protocol::append_frame(half, MessageType::SnapshotData, bytes.data(), bytes.size() / 2);
    probe.send_bytes(half);
    events_.wait_kind("started");
    probe.close();
    const Event discarded = events_.wait_kind("discarded");
    EXPECT_EQ(discarded.number, request);
    EXPECT_NE(discarded.text.find("partial snapshot discarded"), std::string::npos) << discarded.text;
    const Event gone = events_.wait_kind("disconnected");
    // This test process is still alive: the connection was lost, not the process.
    EXPECT_EQ(gone.reason, DisconnectReason::ConnectionLost);
    EXPECT_TRUE(files_in_session(".rscope").empty());
    EXPECT_TRUE(files_in_session(".partial").empty());
}

TEST_F(ListenerTest, ProcessKilledMidSnapshotIsReportedAsExited) {
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    const std::string address = run.listener.address();
    const std::vector<uint8_t> bytes = format::encode_snapshot(refscope::testing::make_small_snapshot());
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The child: connect, start a snapshot, then wait to be killed.
        ::close(ready[0]);
        FakeProbe probe(address);
        probe.send_preamble();
        probe.send_hello(token, ::getpid());
        if (!probe.read_frame()) ::_exit(3);
        probe.send_frame(MessageType::SnapshotBegin, protocol::encode(protocol::SnapshotBegin{0, 1, false, 1, 2, 3}));
        std::vector<uint8_t> part;
        protocol::append_frame(part, MessageType::SnapshotData, bytes.data(), bytes.size() / 3);
        probe.send_bytes(part);
        (void)!::write(ready[1], "x", 1);
        ::pause();
        ::_exit(0);
    }
    ::close(ready[1]);
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    events_.wait_kind("started");
    ::kill(child, SIGKILL);
    const Event discarded = events_.wait_kind("discarded");
    EXPECT_NE(discarded.text.find("went away"), std::string::npos) << discarded.text;
    const Event gone = events_.wait_kind("disconnected");
    EXPECT_EQ(gone.reason, DisconnectReason::ProcessExited) << gone.text;
    EXPECT_NE(gone.text.find("exited"), std::string::npos);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(files_in_session(".partial").empty());
}

TEST_F(ListenerTest, DamagedSnapshotIsDiscardedAndTheConnectionKept) {
    RunningListener run(options_, events_);
    FakeProbe probe(run.listener.address());
    ASSERT_EQ(probe.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    const ConnectionId id = events_.wait_kind("connected").id;
    std::vector<uint8_t> bytes = format::encode_snapshot(refscope::testing::make_small_snapshot());
    bytes[bytes.size() / 2] ^= 0x20;
    probe.stream_snapshot(0, 1, bytes);
    EXPECT_NE(events_.wait_kind("discarded").text.find("damaged in transit"), std::string::npos);
    // Too short: ends before End.
    const std::vector<uint8_t> good = format::encode_snapshot(refscope::testing::make_small_snapshot());
    probe.stream_snapshot(0, 2, std::vector<uint8_t>(good.begin(), good.end() - 28));
    events_.wait_log("ended before its End section");
    // Then a good one is saved, on the same connection.
    probe.stream_snapshot(0, 3, good);
    EXPECT_TRUE(events_.wait_kind("saved").text.ends_with("-0003.rscope"));
    EXPECT_EQ(events_.count("disconnected"), 0u);
    (void)id;
}

TEST_F(ListenerTest, ProbeThatCannotSnapshotSaysSo) {
    RunningListener run(options_, events_);
    FakeProbe probe(run.listener.address());
    ASSERT_EQ(probe.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    const ConnectionId id = events_.wait_kind("connected").id;
    const uint64_t request = run.listener.request_snapshot(id, true);
    ASSERT_TRUE(probe.read_frame());
    probe.send_frame(MessageType::SnapshotFailed, protocol::encode(protocol::SnapshotFailed{request, "out of memory"}));
    const Event failed = events_.wait_kind("failed");
    EXPECT_EQ(failed.number, request);
    EXPECT_EQ(failed.text, "out of memory");
    // A request to a connection that does not exist fails at once.
    const uint64_t nowhere = run.listener.request_snapshot(999, false);
    EXPECT_EQ(events_.wait_for([&](const Event& e) { return e.kind == "failed" && e.number == nowhere; }).text,
              "not connected");
}

TEST_F(ListenerTest, UnexpectedMessagesAreProtocolErrors) {
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    FakeProbe a(run.listener.address());
    ASSERT_EQ(a.handshake(token).status, WelcomeStatus::Ok);
    a.send_frame(MessageType::SnapshotData, {1, 2, 3});
    EXPECT_TRUE(a.wait_closed());
    events_.wait_log("SnapshotData outside a snapshot");

    FakeProbe b(run.listener.address());
    ASSERT_EQ(b.handshake(token).status, WelcomeStatus::Ok);
    b.send_frame(MessageType::TakeSnapshot, protocol::encode(protocol::TakeSnapshot{1, 0, ""}));
    EXPECT_TRUE(b.wait_closed());
    events_.wait_log("not a message a connected probe sends");

    FakeProbe c(run.listener.address());
    ASSERT_EQ(c.handshake(token).status, WelcomeStatus::Ok);
    // An unknown optional frame is skipped; an unknown required one is not.
    std::vector<uint8_t> optional;
    protocol::append_frame(optional, static_cast<MessageType>(500), nullptr, 0, protocol::kFrameOptional);
    c.send_bytes(optional);
    c.send_frame(static_cast<MessageType>(501), {});
    EXPECT_TRUE(c.wait_closed());
    events_.wait_log("unknown message type 501");
}

TEST_F(ListenerTest, ManyConnectionsStreamAtOnce) {
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    constexpr int kProbes = 6;
    std::vector<std::unique_ptr<FakeProbe>> probes;
    for (int i = 0; i < kProbes; ++i) {
        probes.push_back(std::make_unique<FakeProbe>(run.listener.address()));
        ASSERT_EQ(probes.back()->handshake(token, 1000 + i).status, WelcomeStatus::Ok);
    }
    const Snapshot heap = refscope::testing::make_synthetic_heap(80000, 3);
    const std::vector<uint8_t> bytes = format::encode_snapshot(heap);
    ASSERT_GT(bytes.size(), 3 * protocol::kMaxSnapshotChunk / 4);
    // Interleave: every probe sends its frames in turn, chunk by chunk.
    for (int i = 0; i < kProbes; ++i)
        probes[static_cast<size_t>(i)]->send_frame(MessageType::SnapshotBegin,
                                                   protocol::encode(protocol::SnapshotBegin{0, 1, true, 1, 2, 3}));
    constexpr size_t kChunk = 64 * 1024;
    for (size_t at = 0; at < bytes.size(); at += kChunk) {
        for (auto& p : probes) {
            std::vector<uint8_t> out;
            protocol::append_frame(out, MessageType::SnapshotData, bytes.data() + at, std::min(kChunk, bytes.size() - at));
            p->send_bytes(out);
        }
    }
    for (auto& p : probes)
        p->send_frame(MessageType::SnapshotEnd, protocol::encode(protocol::SnapshotEnd{0, bytes.size(), 0}));
    for (int i = 0; i < kProbes; ++i)
        events_.wait_for([&](const Event& e) { return e.kind == "saved" && e.saved.pid == 1000 + i; });
    EXPECT_EQ(files_in_session(".rscope").size(), static_cast<size_t>(kProbes));
    EXPECT_TRUE(refscope::testing::same_snapshot(
        format::read_snapshot_file(options_.session_dir + "/pid1003-0001.rscope"), heap));
}

TEST_F(ListenerTest, DisconnectAndGoodbye) {
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    FakeProbe a(run.listener.address());
    ASSERT_EQ(a.handshake(token, 1).status, WelcomeStatus::Ok);
    const ConnectionId a_id = events_.wait_kind("connected").id;
    run.listener.set_label(a_id, "phase 2");
    const auto label = a.read_frame();
    ASSERT_TRUE(label);
    EXPECT_EQ(protocol::decode_text(label->payload.data(), label->payload.size(), "SetLabel"), "phase 2");
    run.listener.disconnect(a_id, "enough");
    const auto bye = a.read_frame();
    ASSERT_TRUE(bye);
    EXPECT_EQ(bye->type, static_cast<uint16_t>(MessageType::Disconnect));
    EXPECT_EQ(events_.wait_kind("disconnected").reason, DisconnectReason::DisconnectRequested);

    FakeProbe b(run.listener.address());
    ASSERT_EQ(b.handshake(token, 2).status, WelcomeStatus::Ok);
    b.send_frame(MessageType::Goodbye, protocol::encode_text("process exiting"));
    b.close();
    const Event e = events_.wait_for([](const Event& x) { return x.kind == "disconnected" && x.id != 1; });
    EXPECT_EQ(e.reason, DisconnectReason::Goodbye);
    EXPECT_EQ(e.text, "process exiting");
}

TEST_F(ListenerTest, TcpOnLoopback) {
    options_.unix_socket = false;
    options_.tcp_port = 0;
    RunningListener run(options_, events_);
    ASSERT_TRUE(run.listener.tcp_address().starts_with("tcp:127.0.0.1:"));
    EXPECT_EQ(run.listener.address(), run.listener.tcp_address());
    EXPECT_EQ(run.listener.unix_address(), "");
    FakeProbe probe(run.listener.address());
    EXPECT_EQ(probe.handshake(hex_token(run.listener.token_hex())).status, WelcomeStatus::Ok);
    EXPECT_EQ(events_.wait_kind("connected").info.transport, "tcp");
}

TEST_F(ListenerTest, TooManyConnections) {
    options_.max_connections = 2;
    RunningListener run(options_, events_);
    const auto token = hex_token(run.listener.token_hex());
    FakeProbe a(run.listener.address()), b(run.listener.address()), c(run.listener.address());
    EXPECT_EQ(a.handshake(token).status, WelcomeStatus::Ok);
    EXPECT_EQ(b.handshake(token).status, WelcomeStatus::Ok);
    EXPECT_EQ(c.handshake(token).status, WelcomeStatus::TooManyConnections);
}

TEST_F(ListenerTest, StopDisconnectsEveryone) {
    auto run = std::make_unique<RunningListener>(options_, events_);
    FakeProbe probe(run->listener.address());
    ASSERT_EQ(probe.handshake(hex_token(run->listener.token_hex())).status, WelcomeStatus::Ok);
    events_.wait_kind("connected");
    run.reset();
    EXPECT_TRUE(probe.wait_closed());
    EXPECT_EQ(events_.wait_kind("disconnected").reason, DisconnectReason::ListenerStopped);
}

}  // namespace
}  // namespace refscope::live::testing
