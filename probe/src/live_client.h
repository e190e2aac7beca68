// LiveClient: the probe's end of a live connection (docs/protocol.md). The
// program connects out to a receiver (the app, `refscope-cli listen`); a
// background thread of its own then owns the socket and obeys a fixed set of
// commands: take a snapshot (with or without gc.collect()), ping, set the
// label, disconnect. Nothing received is ever executed.
//
// What keeps the target safe:
//   - the thread holds the GIL only for the walk (LiveSnapshotFunction);
//     encoding and sending run without it, so the program's threads wait at
//     most the snapshot pause, however slow the receiver;
//   - memory is bounded: one snapshot's columns, the encoder's current
//     section, and one chunk (256 KiB) of framed output at a time;
//   - a receiver that stops reading for send_stall_timeout, that sends bytes
//     which are not the protocol, or that disappears, costs the connection,
//     never a stall: the thread closes the socket and ends;
//   - stop requests (disconnect(), interpreter exit, fork) wake the thread
//     through an eventfd even in the middle of a send.
//
// This file knows nothing of Python: the walk is a function pointer
// (live_module.cpp provides it), which takes and releases the GIL itself.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "refscope/protocol/address.h"
#include "refscope/protocol/frame_parser.h"
#include "refscope/protocol/protocol.h"
#include "refscope/snapshot.h"

namespace refscope::probe {

// Takes one snapshot: acquires the GIL, walks, releases it. Returns false,
// with `error` set, when no snapshot could be taken.
using LiveSnapshotFunction = bool (*)(Snapshot& out, bool collect, uint64_t sequence, const std::string& label,
                                      std::string& error);

struct LiveSettings {
    protocol::Address address;
    uint8_t token[protocol::kTokenBytes] = {};
    protocol::ProcessDescription description;
    std::chrono::milliseconds connect_timeout{5000};
    // No byte accepted by the receiver for this long: drop the connection.
    std::chrono::milliseconds send_stall_timeout{10000};
    size_t chunk_bytes = 256 * 1024;
};

struct LiveStatus {
    bool connected = false;
    std::string address;
    std::string label;
    uint64_t requests = 0;
    uint64_t snapshots_sent = 0;
    uint64_t bytes_sent = 0;
    std::string last_error;     // the last snapshot failure or drop reason
    std::string closed_reason;  // why the connection ended ("" while open)
};

class ConnectError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The handshake's result: the connected socket and the parser, which may
// already hold bytes the receiver sent after its Welcome.
struct Handshake {
    int fd = -1;
    protocol::FrameParser parser{true};
    std::vector<uint8_t> leftover;
};

// Connects, sends the preamble and Hello, waits for the Welcome. Blocks for
// at most settings.connect_timeout; call it without the GIL. Throws
// ConnectError with one sentence ("the receiver refused the token").
Handshake connect_and_handshake(const LiveSettings& settings);

class LiveClient {
public:
    LiveClient(LiveSettings settings, Handshake handshake, LiveSnapshotFunction walk);
    // Stops and joins. Never destroy it on its own thread.
    ~LiveClient();
    LiveClient(const LiveClient&) = delete;
    LiveClient& operator=(const LiveClient&) = delete;

    void start();
    // Asks the thread to end; with a goodbye reason it tells the receiver
    // first (best effort, 250 ms at most). Returns at once.
    void request_stop(const std::string& goodbye);
    // Waits for the thread to end (call without the GIL: it may need it).
    void join();
    bool on_client_thread() const { return std::this_thread::get_id() == thread_id_.load(); }
    bool running() const { return running_.load(); }
    LiveStatus status() const;
    // In a child after fork(): the thread was not copied. Closes the
    // inherited descriptors (so the receiver never hears from the child) and
    // forgets everything else; the object is then leaked on purpose: its
    // mutex may have been held by the thread that no longer exists.
    void abandon_after_fork();

    // Used by the snapshot sink (live_client.cpp).
    void send_frame(protocol::MessageType type, const uint8_t* payload, size_t size);

private:
    void run();
    void serve();
    void handle_frame(const protocol::Frame& frame);
    void take_snapshot(const protocol::TakeSnapshot& request);
    void send_all(const uint8_t* data, size_t size, std::chrono::milliseconds stall_timeout,
                  bool while_stopping = false);
    void set_error(const std::string& message);
    void say_goodbye();

    LiveSettings settings_;
    int fd_;
    int wake_fd_ = -1;
    protocol::FrameParser parser_;
    std::vector<uint8_t> leftover_;
    LiveSnapshotFunction take_snapshot_;
    std::thread thread_;
    std::atomic<std::thread::id> thread_id_{};
    std::atomic<bool> stop_{false};
    std::atomic<bool> running_{false};
    std::string goodbye_;               // written before stop_ is set
    std::string label_;                 // the thread's own copy
    std::chrono::milliseconds stall_timeout_;

    mutable std::mutex status_mutex_;
    LiveStatus status_;
};

}  // namespace refscope::probe
