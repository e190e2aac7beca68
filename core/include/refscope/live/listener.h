// Listener: the receiving side of the live connection, Qt-free, shared by
// the desktop app and `refscope-cli listen`.
//
// It listens on a Unix-domain socket in a private 0700 directory (and, if
// asked, on TCP 127.0.0.1:PORT), creates the random 128-bit token a probe
// must present, serves any number of probes at once from one poll() loop,
// and saves every complete snapshot a probe streams into the session folder
// as a valid .rscope file (written to a hidden temporary name, checked by
// SnapshotStreamCheck, fsynced and renamed). A snapshot cut short by a dying
// process is deleted, never saved, and reported with a clear message.
//
// Threads: run() (or run_once()) drives everything on the calling thread,
// and every ListenerObserver callback is made on that thread. The command
// methods (request_snapshot, ping, set_label, disconnect, stop) and the
// accessors may be called from any thread: commands are queued and the
// loop is woken. The app runs run() on a worker thread and forwards the
// callbacks to its GUI thread as queued signals.
//
//   struct Printer : ListenerObserver {
//       void on_snapshot_saved(const SavedSnapshot& s) override { ... }
//   } printer;
//   Listener listener(ListenerOptions{.session_dir = "session"}, printer);
//   // hand listener.unix_address() and listener.token_file() to the probe
//   std::thread loop([&] { listener.run(); });
//   listener.request_snapshot(id, /*collect=*/true);
//   ...
//   listener.stop();
//   loop.join();
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/protocol/protocol.h"

namespace refscope::live {

using ConnectionId = uint64_t;

struct ListenerOptions {
    // Where snapshots and session.json go; created (mode 0700) if missing.
    std::string session_dir;
    bool unix_socket = true;
    // The directory for the socket and the token file. Empty: a new private
    // directory refscope-XXXXXX under $XDG_RUNTIME_DIR, else $TMPDIR, else
    // /tmp, removed again by the destructor. Given: it is created if missing
    // and must be a directory owned by this user that no one else can enter.
    std::string socket_dir;
    // Also listen on TCP 127.0.0.1:tcp_port (0 = a free port).
    std::optional<uint16_t> tcp_port;
    // 32 hex digits; empty = 128 random bits from the kernel (getrandom).
    std::string token_hex;
    size_t max_connections = 64;
    // Connections still in their handshake, per transport (Unix socket,
    // TCP): a new one beyond this evicts the oldest, so that strangers
    // flooding the TCP port can neither exhaust descriptors nor crowd out a
    // probe connecting over the Unix socket (or over TCP: its Hello comes
    // at once, theirs never).
    size_t max_pending = 16;
    // A snapshot bigger than this is discarded (the probe's limit is the
    // format's; this protects the receiver's disk).
    uint64_t max_snapshot_bytes = 64ull << 30;
    // A connection must complete the handshake within this time.
    std::chrono::milliseconds handshake_timeout{5000};
    // A connection that stops in the middle of a frame or of a snapshot for
    // this long is dropped (an idle connection between snapshots is fine).
    std::chrono::milliseconds stall_timeout{30000};
};

// Facts the receiver knows about a connected process: the probe's own
// description (Hello) plus what the kernel says about the peer.
struct ConnectionInfo {
    ConnectionId id = 0;
    std::string transport;            // "unix" or "tcp"
    std::string peer;                 // "pid 1234 uid 1000" (Unix) or "127.0.0.1:51234"
    int64_t peer_pid = -1;            // SO_PEERCRED (Unix sockets only), else -1
    int64_t peer_uid = -1;
    protocol::ProcessDescription process;
    int64_t connected_unix_ns = 0;
    std::string label;                // last label set through set_label()
};

struct SavedSnapshot {
    ConnectionId connection = 0;
    uint64_t request_id = 0;          // 0 if the probe sent it unasked
    uint64_t sequence = 0;
    int64_t pid = 0;
    std::string path;                 // the saved .rscope file
    uint64_t bytes = 0;
    bool collected = false;
    uint64_t walk_ns = 0;             // GIL held for the walk, in the target
    uint64_t nodes = 0;
    uint64_t edges = 0;
    double seconds_since_request = 0; // request sent -> file saved (0 if unasked)
    std::string label;
};

enum class DisconnectReason {
    Goodbye,            // the probe said goodbye (disconnect(), process exiting)
    ProcessExited,      // the connection dropped and the process is gone
    ConnectionLost,     // the connection dropped, the process may still run
    ProtocolError,      // the peer sent bytes that are not the protocol
    Stalled,            // stopped mid-frame or mid-snapshot for stall_timeout
    HandshakeTimeout,   // no complete Hello within handshake_timeout
    Refused,            // handshake refused (token, version...)
    NotReading,         // the probe stopped reading its commands
    DisconnectRequested,// disconnect() was called
    ListenerStopped,    // stop() or the destructor
};
const char* to_string(DisconnectReason reason);

enum class LogLevel { Info, Warning };

class ListenerObserver {
public:
    virtual ~ListenerObserver() = default;
    virtual void on_connected(const ConnectionInfo&) {}
    // The handshake was refused; the connection never became a process.
    virtual void on_refused(const std::string& /*peer*/, protocol::WelcomeStatus,
                            const std::string& /*message*/) {}
    virtual void on_snapshot_started(ConnectionId, uint64_t /*request_id*/, uint64_t /*sequence*/) {}
    virtual void on_snapshot_saved(const SavedSnapshot&) {}
    // A snapshot was begun but not saved (process died, bad data, disk).
    virtual void on_snapshot_discarded(ConnectionId, uint64_t /*request_id*/,
                                       const std::string& /*message*/) {}
    // The probe could not take the snapshot requested.
    virtual void on_snapshot_failed(ConnectionId, uint64_t /*request_id*/,
                                    const std::string& /*reason*/) {}
    virtual void on_pong(ConnectionId, uint64_t /*nonce*/, double /*rtt_seconds*/) {}
    virtual void on_disconnected(ConnectionId, DisconnectReason, const std::string& /*message*/) {}
    // Every refusal, drop and discard is also logged as one line.
    virtual void on_log(LogLevel, const std::string& /*line*/) {}
};

class ListenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Listener {
public:
    // Creates the session folder, the private directory, the token and its
    // 0600 file, and binds the sockets. Throws ListenError with one sentence.
    Listener(ListenerOptions options, ListenerObserver& observer);
    // Stops (if running elsewhere, call stop() and join first), closes every
    // connection (discarding partial snapshots), removes the socket, the
    // token file and the private directory it created.
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    // "unix:/run/user/1000/refscope-Ab12Cd/live.sock" ("" without a Unix socket).
    const std::string& unix_address() const;
    // "tcp:127.0.0.1:40123" ("" without TCP).
    const std::string& tcp_address() const;
    // The address to give a probe: the Unix one when there is one.
    const std::string& address() const;
    const std::string& token_hex() const;
    // The token in a 0600 file in the private directory: hand a probe this
    // path (REFSCOPE_TOKEN_FILE) rather than the token on a command line.
    const std::string& token_file() const;
    const std::string& session_dir() const;

    // Commands, from any thread. request_snapshot returns the request id
    // that the resulting callbacks carry (never 0). A command for a
    // connection that is gone is dropped with an on_log line.
    uint64_t request_snapshot(ConnectionId id, bool collect, const std::string& label = {});
    uint64_t ping(ConnectionId id);
    void set_label(ConnectionId id, const std::string& label);
    void disconnect(ConnectionId id, const std::string& reason = "disconnect requested");
    // Makes run() return soon; connections are closed then.
    void stop();

    // The connected (handshake done) processes, from any thread.
    std::vector<ConnectionInfo> connections() const;

    // Runs the loop until stop(). Callbacks are made on this thread.
    void run();
    // One loop iteration: waits at most `timeout` for activity, handles it,
    // returns false once stop() was called.
    bool run_once(std::chrono::milliseconds timeout);

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace refscope::live
