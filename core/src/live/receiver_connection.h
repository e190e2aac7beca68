// ReceiverConnection: one probe's connection as the listener sees it: the
// handshake, the frames, the snapshot file being received, the outgoing
// commands, and every way the connection can end. Driven by the listener's
// poll loop (listener.cpp); never blocks except on local file writes.
//
// States:  Handshake --Hello ok--> Ready --EOF / error / Disconnect--> Closed
//              \--refused: Welcome(status) sent--> Closing --flushed--> Closed
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "refscope/protocol/frame_parser.h"
#include "refscope/live/listener.h"
#include "refscope/protocol/snapshot_stream.h"
#include "session_folder.h"

namespace refscope::live {

using Clock = std::chrono::steady_clock;

// Lines about connections that never authenticated (wrong token, garbage,
// silence): at most kBurst per kWindow, then one count of what was left out,
// so that a flood of strangers cannot fill the log (or the disk under it).
class StrangerLog {
public:
    static constexpr uint32_t kBurst = 5;
    static constexpr std::chrono::seconds kWindow{10};
    // The line to write now ("" = suppressed), with the count of lines
    // suppressed since the last one written.
    std::string admit(const std::string& line, Clock::time_point now) {
        if (now - window_start_ >= kWindow) {
            window_start_ = now;
            written_ = 0;
        }
        if (written_ >= kBurst) {
            ++suppressed_;
            return {};
        }
        ++written_;
        if (suppressed_ == 0) return line;
        std::string out = line + " (and " + std::to_string(suppressed_) +
                          " more lines about unauthenticated connections left out)";
        suppressed_ = 0;
        return out;
    }

private:
    Clock::time_point window_start_{};
    uint32_t written_ = 0;
    uint64_t suppressed_ = 0;
};

// What every connection shares with its listener.
struct ReceiverContext {
    const ListenerOptions& options;
    const uint8_t* token;              // kTokenBytes
    const SessionFolder& session;
    ListenerObserver& events;          // also records to the session folder
    size_t (*count_ready)(void* self); // processes connected now
    void* self;
    StrangerLog strangers{};
};

class ReceiverConnection {
public:
    ReceiverConnection(ConnectionId id, int fd, std::string transport, std::string peer, int64_t peer_pid,
                       int64_t peer_uid, ReceiverContext& context, Clock::time_point now);
    // Closes the socket; a partial snapshot is discarded (ListenerStopped).
    ~ReceiverConnection();
    ReceiverConnection(const ReceiverConnection&) = delete;
    ReceiverConnection& operator=(const ReceiverConnection&) = delete;

    int fd() const { return fd_; }
    bool wants_write() const { return out_sent_ < out_.size(); }
    bool ready() const { return phase_ == Phase::Ready; }
    // Still in its handshake (neither authenticated nor refused yet).
    bool pending() const { return phase_ == Phase::Handshake; }
    const std::string& transport() const { return info_.transport; }
    bool closed() const { return phase_ == Phase::Closed; }
    const ConnectionInfo& info() const { return info_; }

    void on_readable(Clock::time_point now);
    void on_writable(Clock::time_point now);
    void on_timer(Clock::time_point now);
    std::optional<Clock::time_point> next_deadline() const;

    void take_snapshot(uint64_t request_id, bool collect, const std::string& label, Clock::time_point now);
    void ping(uint64_t nonce, Clock::time_point now);
    void set_label(const std::string& label);
    void request_disconnect(const std::string& reason, Clock::time_point now);
    void close(DisconnectReason reason, const std::string& message);

private:
    enum class Phase { Handshake, Ready, Closing, Closed };

    struct Incoming {
        protocol::SnapshotBegin begin;
        int fd = -1;
        std::string partial_path;
        protocol::SnapshotStreamCheck check;
        uint64_t bytes = 0;
        std::string void_reason;  // set: the rest of this snapshot is ignored
    };

    void handle_frame(const protocol::Frame& frame, Clock::time_point now);
    void handle_hello(const protocol::Frame& frame);
    void refuse(protocol::WelcomeStatus status, const std::string& message);
    void snapshot_begin(const protocol::SnapshotBegin& begin);
    void snapshot_data(const uint8_t* data, size_t size);
    void snapshot_end(const protocol::SnapshotEnd& end, Clock::time_point now);
    void void_incoming(const std::string& reason);
    void discard(const std::string& message);
    void end_of_stream(const std::string& error);
    void protocol_failure(const protocol::ProtocolError& error);
    void send(protocol::MessageType type, const std::vector<uint8_t>& payload);
    void send_preamble();
    void log(LogLevel level, const std::string& line);
    std::string who() const;
    DisconnectReason reason_for_lost_connection(std::string& message);

    ConnectionId id_;
    int fd_;
    int pidfd_ = -1;
    ReceiverContext& context_;
    Phase phase_ = Phase::Handshake;
    protocol::FrameParser parser_;
    ConnectionInfo info_;
    std::vector<uint8_t> out_;
    size_t out_sent_ = 0;
    bool preamble_sent_ = false;
    bool announced_ = false;             // on_connected was called
    std::vector<uint8_t> read_buffer_;
    std::optional<Incoming> incoming_;
    std::map<uint64_t, std::pair<Clock::time_point, std::string>> requests_;  // id -> sent at, label
    std::map<uint64_t, Clock::time_point> pings_;
    Clock::time_point handshake_deadline_;
    Clock::time_point last_read_;
    Clock::time_point closing_deadline_;
    std::string goodbye_;                // the probe's Goodbye reason, if any
    DisconnectReason closing_reason_ = DisconnectReason::Refused;
    std::string closing_message_;
};

}  // namespace refscope::live
