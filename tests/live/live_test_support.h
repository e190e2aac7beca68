// Helpers for the listener tests: an observer that records events and lets
// a test wait for them, a listener running on its own thread, and a fake
// probe speaking the protocol from C++ (blocking socket with timeouts).
#pragma once

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "refscope/protocol/address.h"
#include "refscope/protocol/frame_parser.h"
#include "refscope/live/listener.h"
#include "refscope/protocol/protocol.h"

namespace refscope::live::testing {

using namespace std::chrono_literals;

struct Event {
    std::string kind;  // connected, refused, started, saved, discarded, failed, pong, disconnected, log
    ConnectionId id = 0;
    uint64_t number = 0;  // request id / nonce
    std::string text;     // message, path, log line
    DisconnectReason reason = DisconnectReason::Goodbye;
    protocol::WelcomeStatus status = protocol::WelcomeStatus::Ok;
    ConnectionInfo info;
    SavedSnapshot saved;
};

class EventRecorder : public ListenerObserver {
public:
    static Event make(const char* kind, ConnectionId id = 0, uint64_t number = 0, std::string text = {}) {
        Event e;
        e.kind = kind;
        e.id = id;
        e.number = number;
        e.text = std::move(text);
        return e;
    }
    void on_connected(const ConnectionInfo& info) override {
        Event e = make("connected", info.id);
        e.info = info;
        push(e);
    }
    void on_refused(const std::string& peer, protocol::WelcomeStatus status, const std::string& message) override {
        Event e = make("refused", 0, 0, peer + ": " + message);
        e.status = status;
        push(e);
    }
    void on_snapshot_started(ConnectionId id, uint64_t request, uint64_t) override {
        push(make("started", id, request));
    }
    void on_snapshot_saved(const SavedSnapshot& s) override {
        Event e = make("saved", s.connection, s.request_id, s.path);
        e.saved = s;
        push(e);
    }
    void on_snapshot_discarded(ConnectionId id, uint64_t request, const std::string& message) override {
        push(make("discarded", id, request, message));
    }
    void on_snapshot_failed(ConnectionId id, uint64_t request, const std::string& reason) override {
        push(make("failed", id, request, reason));
    }
    void on_pong(ConnectionId id, uint64_t nonce, double) override { push(make("pong", id, nonce)); }
    void on_disconnected(ConnectionId id, DisconnectReason reason, const std::string& message) override {
        Event e = make("disconnected", id, 0, message);
        e.reason = reason;
        push(e);
    }
    void on_log(LogLevel, const std::string& line) override { push(make("log", 0, 0, line)); }

    // Waits until an event matching `match` has been recorded; returns it.
    Event wait_for(const std::function<bool(const Event&)>& match, std::chrono::milliseconds timeout = 10s) {
        std::unique_lock<std::mutex> lock(mutex_);
        Event found;
        const bool ok = cv_.wait_for(lock, timeout, [&] {
            for (const Event& e : events_)
                if (match(e)) {
                    found = e;
                    return true;
                }
            return false;
        });
        if (!ok) {
            std::string all;
            for (const Event& e : events_) all += "\n  " + e.kind + " " + std::to_string(e.id) + " " + e.text;
            ADD_FAILURE() << "timed out waiting for an event; recorded:" << all;
        }
        return found;
    }
    Event wait_kind(const std::string& kind, std::chrono::milliseconds timeout = 10s) {
        return wait_for([&](const Event& e) { return e.kind == kind; }, timeout);
    }
    Event wait_log(const std::string& part, std::chrono::milliseconds timeout = 10s) {
        return wait_for([&](const Event& e) { return e.kind == "log" && e.text.find(part) != std::string::npos; },
                        timeout);
    }
    size_t count(const std::string& kind) {
        std::lock_guard<std::mutex> lock(mutex_);
        size_t n = 0;
        for (const Event& e : events_) n += e.kind == kind;
        return n;
    }

private:
    void push(const Event& e) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            events_.push_back(e);
        }
        cv_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<Event> events_;
};

// A listener whose loop runs on a thread for the test's duration.
class RunningListener {
public:
    RunningListener(ListenerOptions options, EventRecorder& events)
        : listener(std::move(options), events), thread_([this] { listener.run(); }) {}
    ~RunningListener() {
        listener.stop();
        thread_.join();
    }
    Listener listener;

private:
    std::thread thread_;
};

inline std::vector<uint8_t> hex_token(const std::string& hex) {
    std::vector<uint8_t> t(protocol::kTokenBytes);
    EXPECT_TRUE(protocol::parse_token(hex, t.data()));
    return t;
}

// The probe's side of a connection, written from docs/protocol.md, blocking.
class FakeProbe {
public:
    explicit FakeProbe(const std::string& address) {
        std::string error;
        const auto a = protocol::parse_address(address, error);
        EXPECT_TRUE(a) << error;
        if (a->kind == protocol::Address::Kind::Unix) {
            fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            std::memcpy(addr.sun_path, a->path.c_str(), a->path.size() + 1);
            EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
        } else {
            fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in addr{};
            addr.sin_family = AF_INET;
            addr.sin_port = htons(a->port);
            addr.sin_addr.s_addr = htonl(a->ipv4);
            EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
        }
    }
    ~FakeProbe() { close(); }
    void close() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    int fd() const { return fd_; }

    void send_bytes(const std::vector<uint8_t>& bytes) {
        size_t at = 0;
        while (at < bytes.size()) {
            const ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
            if (n <= 0) return;  // the listener dropped us: the test checks events
            at += static_cast<size_t>(n);
        }
    }
    void send_frame(protocol::MessageType type, const std::vector<uint8_t>& payload) {
        std::vector<uint8_t> out;
        protocol::append_frame(out, type, payload.data(), payload.size());
        send_bytes(out);
    }
    void send_preamble() {
        std::vector<uint8_t> p(protocol::kPreambleBytes);
        protocol::store_preamble(p.data());
        send_bytes(p);
    }
    void send_hello(const std::vector<uint8_t>& token, int64_t pid = 4242, std::string label = "fake") {
        protocol::Hello hello;
        std::memcpy(hello.token, token.data(), protocol::kTokenBytes);
        hello.process.pid = pid;
        hello.process.argv = {"fake_probe.py", "--flag"};
        hello.process.python_version = "3.11.2 (fake)";
        hello.process.executable = "/usr/bin/python3";
        hello.process.label = std::move(label);
        send_frame(protocol::MessageType::Hello, protocol::encode(hello));
    }

    // Reads the next frame (the preamble first); nullopt on EOF, error or timeout.
    std::optional<protocol::Frame> read_frame(std::chrono::milliseconds timeout = 5s) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            if (parser_.has_frame()) {
                protocol::Frame f = parser_.frame();
                parser_.next();
                // Feed what is buffered behind the frame.
                feed_pending();
                return f;
            }
            if (parser_.failed()) return std::nullopt;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return std::nullopt;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
            uint8_t buf[65536];
            const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) return std::nullopt;
            pending_.insert(pending_.end(), buf, buf + n);
            feed_pending();
        }
    }
    // Waits until the listener closes the connection.
    bool wait_closed(std::chrono::milliseconds timeout = 5s) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0) {
                uint8_t buf[4096];
                const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
                if (n <= 0) return true;
            }
        }
        return false;
    }
    // Handshake with the listener's token; returns the Welcome.
    protocol::Welcome handshake(const std::vector<uint8_t>& token, int64_t pid = 4242) {
        send_preamble();
        send_hello(token, pid);
        const auto f = read_frame();
        EXPECT_TRUE(f.has_value());
        if (!f) return {protocol::WelcomeStatus::Malformed, "no answer"};
        EXPECT_EQ(f->type, static_cast<uint16_t>(protocol::MessageType::Welcome));
        return protocol::decode_welcome(f->payload.data(), f->payload.size());
    }
    // Sends one snapshot's frames for `request`.
    void stream_snapshot(uint64_t request, uint64_t sequence, const std::vector<uint8_t>& bytes,
                         size_t chunk = 1000) {
        send_frame(protocol::MessageType::SnapshotBegin,
                   protocol::encode(protocol::SnapshotBegin{request, sequence, true, 1, 2, 3}));
        for (size_t at = 0; at < bytes.size(); at += chunk) {
            const size_t n = std::min(chunk, bytes.size() - at);
            std::vector<uint8_t> out;
            protocol::append_frame(out, protocol::MessageType::SnapshotData, bytes.data() + at, n);
            send_bytes(out);
        }
        send_frame(protocol::MessageType::SnapshotEnd, protocol::encode(protocol::SnapshotEnd{request, bytes.size(), 0}));
    }

private:
    void feed_pending() {
        size_t used = 0;
        while (used < pending_.size() && !parser_.has_frame() && !parser_.failed())
            used += parser_.consume(pending_.data() + used, pending_.size() - used);
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(used));
    }
    int fd_ = -1;
    protocol::FrameParser parser_;
    std::vector<uint8_t> pending_;
};

}  // namespace refscope::live::testing
