// ReceiverConnection (receiver_connection.h).
#include "receiver_connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "refscope/format/errno_text.h"

namespace refscope::live {

using protocol::Frame;
using protocol::MessageType;
using protocol::ProtocolError;
using protocol::ProtocolErrorCode;
using protocol::WelcomeStatus;

namespace {

constexpr size_t kReadBuffer = 256 * 1024;
// Read at most this much from one connection per loop iteration, so that
// one probe streaming a large snapshot does not starve the others.
constexpr size_t kReadBudget = 4 * 1024 * 1024;
// Commands are tiny; a probe with this much unread is not reading.
constexpr size_t kMaxQueuedOut = 1024 * 1024;
// A refused or disconnected peer gets this long to read its last frame.
constexpr auto kClosingGrace = std::chrono::milliseconds(1000);
// How long to wait, after a connection drops, for the kernel to say that
// the process exited (its sockets close just before it is reaped).
constexpr int kExitWaitMs = 200;

using format::errno_text;

std::string megabytes(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return buf;
}

int64_t now_unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

int open_pidfd(int64_t pid) {
#ifdef SYS_pidfd_open
    if (pid > 0) return static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
#endif
    (void)pid;
    return -1;
}

bool all_zero(const uint8_t* p, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) acc = static_cast<uint8_t>(acc | p[i]);
    return acc == 0;
}

}  // namespace

ReceiverConnection::ReceiverConnection(ConnectionId id, int fd, std::string transport, std::string peer,
                                       int64_t peer_pid, int64_t peer_uid, ReceiverContext& context,
                                       Clock::time_point now)
    : id_(id), fd_(fd), context_(context), parser_(true) {
    info_.id = id;
    info_.transport = std::move(transport);
    info_.peer = std::move(peer);
    info_.peer_pid = peer_pid;
    info_.peer_uid = peer_uid;
    handshake_deadline_ = now + context_.options.handshake_timeout;
    last_read_ = now;
}

ReceiverConnection::~ReceiverConnection() {
    close(DisconnectReason::ListenerStopped, "the receiver stopped");
}

std::string ReceiverConnection::who() const {
    if (phase_ == Phase::Ready || announced_) {
        std::string name = info_.process.argv.empty() ? info_.process.executable : info_.process.argv[0];
        const size_t slash = name.rfind('/');
        if (slash != std::string::npos) name = name.substr(slash + 1);
        return "process " + std::to_string(info_.process.pid) + (name.empty() ? "" : " (" + name + ")") +
               " [connection " + std::to_string(id_) + "]";
    }
    return info_.transport + " peer " + info_.peer + " [connection " + std::to_string(id_) + "]";
}

void ReceiverConnection::log(LogLevel level, const std::string& line) {
    if (announced_) {
        context_.events.on_log(level, line);
        return;
    }
    // Never authenticated: rate-limited (StrangerLog).
    const std::string admitted = context_.strangers.admit(line, Clock::now());
    if (!admitted.empty()) context_.events.on_log(level, admitted);
}

// ---- output -----------------------------------------------------------------

void ReceiverConnection::send_preamble() {
    if (preamble_sent_) return;
    uint8_t preamble[protocol::kPreambleBytes];
    protocol::store_preamble(preamble);
    out_.insert(out_.end(), preamble, preamble + sizeof preamble);
    preamble_sent_ = true;
}

void ReceiverConnection::send(MessageType type, const std::vector<uint8_t>& payload) {
    if (phase_ == Phase::Closed) return;
    if (out_.size() - out_sent_ > kMaxQueuedOut) {
        log(LogLevel::Warning, "dropped " + who() + ": it has not read its commands (" +
                                   megabytes(out_.size() - out_sent_) + " queued)");
        close(DisconnectReason::NotReading, "the process stopped reading its commands");
        return;
    }
    protocol::append_frame(out_, type, payload.data(), payload.size());
    on_writable(Clock::now());  // commands go out at once; the loop finishes a partial write
}

void ReceiverConnection::on_writable(Clock::time_point now) {
    (void)now;
    while (out_sent_ < out_.size() && phase_ != Phase::Closed) {
        const ssize_t n = ::send(fd_, out_.data() + out_sent_, out_.size() - out_sent_, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            const std::string error = errno_text(errno);
            std::string message;
            const DisconnectReason reason = reason_for_lost_connection(message);
            close(phase_ == Phase::Closing ? closing_reason_ : reason, message + " (" + error + ")");
            return;
        }
        out_sent_ += static_cast<size_t>(n);
    }
    if (out_sent_ == out_.size()) {
        out_.clear();
        out_sent_ = 0;
        if (phase_ == Phase::Closing) close(closing_reason_, closing_message_);
    }
}

// ---- input ------------------------------------------------------------------

void ReceiverConnection::on_readable(Clock::time_point now) {
    std::vector<uint8_t>& buffer = read_buffer_;
    if (buffer.size() != kReadBuffer) buffer.resize(kReadBuffer);
    size_t budget = kReadBudget;
    while (budget > 0 && phase_ != Phase::Closed) {
        const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            const std::string error = errno_text(errno);
            end_of_stream(error);
            return;
        }
        if (n == 0) {
            end_of_stream("");
            return;
        }
        last_read_ = now;
        budget -= std::min(budget, static_cast<size_t>(n));
        if (phase_ == Phase::Closing) continue;  // refused: what it says no longer matters
        const uint8_t* p = buffer.data();
        size_t left = static_cast<size_t>(n);
        while (left > 0 && phase_ != Phase::Closed && phase_ != Phase::Closing) {
            const size_t used = parser_.consume(p, left);
            p += used;
            left -= used;
            if (parser_.failed()) {
                protocol_failure(parser_.error());
                return;
            }
            if (parser_.has_frame()) {
                try {
                    handle_frame(parser_.frame(), now);
                } catch (const ProtocolError& e) {
                    parser_.fail(e);
                    protocol_failure(e);
                    return;
                }
                parser_.next();
            }
        }
    }
}

void ReceiverConnection::end_of_stream(const std::string& error) {
    if (phase_ == Phase::Closing) {
        close(closing_reason_, closing_message_);
        return;
    }
    parser_.finish();
    if (phase_ == Phase::Handshake) {
        const std::string what = parser_.failed() ? parser_.error().what()
                                                  : std::string("closed before completing the handshake");
        log(LogLevel::Warning, "dropped " + who() + ": " + what);
        close(DisconnectReason::ConnectionLost, what);
        return;
    }
    if (!goodbye_.empty() && !parser_.failed() && error.empty()) {
        close(DisconnectReason::Goodbye, goodbye_);
        return;
    }
    std::string message;
    const DisconnectReason reason = reason_for_lost_connection(message);
    if (!error.empty()) message += " (" + error + ")";
    if (parser_.failed()) message += "; " + std::string(parser_.error().what());
    close(reason, message);
}

DisconnectReason ReceiverConnection::reason_for_lost_connection(std::string& message) {
    if (pidfd_ >= 0) {
        pollfd p{pidfd_, POLLIN, 0};
        if (::poll(&p, 1, kExitWaitMs) > 0) {
            message = "process " + std::to_string(info_.process.pid) + " exited";
            return DisconnectReason::ProcessExited;
        }
    }
    message = "connection lost without a goodbye";
    return DisconnectReason::ConnectionLost;
}

void ReceiverConnection::protocol_failure(const ProtocolError& error) {
    if (phase_ == Phase::Handshake && error.code() == ProtocolErrorCode::UnsupportedVersion) {
        refuse(WelcomeStatus::UnsupportedProtocol, error.what());
        return;
    }
    log(LogLevel::Warning, "dropped " + who() + ": " + to_string(error.code()) + ": " + error.what());
    close(DisconnectReason::ProtocolError, error.what());
}

void ReceiverConnection::handle_frame(const Frame& f, Clock::time_point now) {
    const uint8_t* p = f.payload.data();
    const size_t n = f.payload.size();
    const char* name = protocol::message_name(f.type);
    if (phase_ == Phase::Handshake) {
        if (f.type != static_cast<uint16_t>(MessageType::Hello))
            throw ProtocolError(ProtocolErrorCode::UnexpectedMessage,
                                std::string("expected Hello as the first frame, got ") +
                                    (name ? name : "type " + std::to_string(f.type)));
        handle_hello(f);
        return;
    }
    if (name == nullptr) {
        if (f.flags & protocol::kFrameOptional) return;  // a later minor's addition
        throw ProtocolError(ProtocolErrorCode::UnknownMessage,
                            "unknown message type " + std::to_string(f.type));
    }
    if (!protocol::sent_by_probe(f.type) || f.type == static_cast<uint16_t>(MessageType::Hello))
        throw ProtocolError(ProtocolErrorCode::UnexpectedMessage,
                            std::string(name) + " is not a message a connected probe sends");
    switch (static_cast<MessageType>(f.type)) {
        case MessageType::Pong: {
            const uint64_t nonce = protocol::decode_nonce(p, n);
            auto it = pings_.find(nonce);
            if (it != pings_.end()) {
                const double rtt = std::chrono::duration<double>(now - it->second).count();
                pings_.erase(it);
                context_.events.on_pong(id_, nonce, rtt);
            }
            break;
        }
        case MessageType::SnapshotBegin: {
            const protocol::SnapshotBegin begin = protocol::decode_snapshot_begin(p, n);
            if (incoming_)
                throw ProtocolError(ProtocolErrorCode::UnexpectedMessage,
                                    "SnapshotBegin while snapshot " + std::to_string(incoming_->begin.sequence) +
                                        " is still arriving");
            snapshot_begin(begin);
            break;
        }
        case MessageType::SnapshotData:
            if (!incoming_)
                throw ProtocolError(ProtocolErrorCode::UnexpectedMessage, "SnapshotData outside a snapshot");
            if (n == 0) throw ProtocolError(ProtocolErrorCode::Malformed, "empty SnapshotData frame");
            snapshot_data(p, n);
            break;
        case MessageType::SnapshotEnd: {
            const protocol::SnapshotEnd end = protocol::decode_snapshot_end(p, n);
            if (!incoming_)
                throw ProtocolError(ProtocolErrorCode::UnexpectedMessage, "SnapshotEnd outside a snapshot");
            if (end.request_id != incoming_->begin.request_id)
                throw ProtocolError(ProtocolErrorCode::Malformed,
                                    "SnapshotEnd for request " + std::to_string(end.request_id) +
                                        " ends the snapshot of request " +
                                        std::to_string(incoming_->begin.request_id));
            snapshot_end(end, now);
            break;
        }
        case MessageType::SnapshotFailed: {
            const protocol::SnapshotFailed failed = protocol::decode_snapshot_failed(p, n);
            if (incoming_) discard("the process gave up on it: " + failed.reason);
            requests_.erase(failed.request_id);
            log(LogLevel::Warning, who() + " could not take snapshot request " +
                                       std::to_string(failed.request_id) + ": " + failed.reason);
            context_.events.on_snapshot_failed(id_, failed.request_id, failed.reason);
            break;
        }
        case MessageType::Goodbye:
            goodbye_ = protocol::decode_text(p, n, "Goodbye");
            if (goodbye_.empty()) goodbye_ = "goodbye";
            break;
        default:
            break;
    }
}

void ReceiverConnection::handle_hello(const Frame& f) {
    protocol::Hello hello;
    try {
        hello = protocol::decode_hello(f.payload.data(), f.payload.size());
    } catch (const ProtocolError& e) {
        refuse(WelcomeStatus::Malformed, e.what());
        return;
    }
    info_.process = hello.process;
    if (all_zero(hello.token, protocol::kTokenBytes)) {
        refuse(WelcomeStatus::MissingToken,
               "no token: start the program with REFSCOPE_TOKEN or REFSCOPE_TOKEN_FILE set");
        return;
    }
    if (!protocol::tokens_equal(hello.token, context_.token)) {
        refuse(WelcomeStatus::WrongToken, "wrong token");
        return;
    }
    const uint16_t major = hello.process.format_major;
    if (major < format::kOldestReadableMajor || major > format::kFormatMajor) {
        refuse(WelcomeStatus::UnsupportedFormat,
               "the probe writes snapshot format " + std::to_string(major) + ".x; this receiver reads " +
                   std::to_string(format::kOldestReadableMajor) + ".x to " +
                   std::to_string(format::kFormatMajor) + ".x");
        return;
    }
    if (context_.count_ready(context_.self) >= context_.options.max_connections) {
        refuse(WelcomeStatus::TooManyConnections,
               "already serving " + std::to_string(context_.options.max_connections) + " processes");
        return;
    }
    send_preamble();
    send(MessageType::Welcome, protocol::encode(protocol::Welcome{WelcomeStatus::Ok, ""}));
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Ready;
    announced_ = true;
    info_.connected_unix_ns = now_unix_ns();
    info_.label = hello.process.label;
    pidfd_ = open_pidfd(info_.peer_pid > 0 ? info_.peer_pid : hello.process.pid);
    log(LogLevel::Info, "connected: " + who() + " over " + info_.transport + ", Python " +
                            hello.process.python_version.substr(0, hello.process.python_version.find(' ')));
    context_.events.on_connected(info_);
}

void ReceiverConnection::refuse(WelcomeStatus status, const std::string& message) {
    send_preamble();
    send(MessageType::Welcome, protocol::encode(protocol::Welcome{status, message}));
    if (phase_ == Phase::Closed) return;
    log(LogLevel::Warning, "refused " + who() + ": " + message);
    context_.events.on_refused(info_.peer, status, message);
    phase_ = Phase::Closing;
    closing_reason_ = DisconnectReason::Refused;
    closing_message_ = message;
    closing_deadline_ = Clock::now() + kClosingGrace;
    if (!wants_write()) close(closing_reason_, closing_message_);
}

// ---- snapshots --------------------------------------------------------------

void ReceiverConnection::snapshot_begin(const protocol::SnapshotBegin& begin) {
    incoming_.emplace();
    incoming_->begin = begin;
    try {
        incoming_->fd = context_.session.create_partial(info_.process.pid, begin.sequence, incoming_->partial_path);
    } catch (const ListenError& e) {
        incoming_->void_reason = e.what();
    }
    context_.events.on_snapshot_started(id_, begin.request_id, begin.sequence);
}

void ReceiverConnection::void_incoming(const std::string& reason) {
    if (!incoming_->void_reason.empty()) return;
    incoming_->void_reason = reason;
    if (incoming_->fd >= 0) {
        ::close(incoming_->fd);
        incoming_->fd = -1;
        ::unlink(incoming_->partial_path.c_str());
    }
}

void ReceiverConnection::snapshot_data(const uint8_t* data, size_t size) {
    Incoming& in = *incoming_;
    in.bytes += size;
    if (!in.void_reason.empty()) return;
    if (in.bytes > context_.options.max_snapshot_bytes) {
        void_incoming("larger than this receiver's limit of " + megabytes(context_.options.max_snapshot_bytes));
        return;
    }
    if (!in.check.feed(data, size)) {
        void_incoming("damaged in transit: " + in.check.error());
        return;
    }
    while (size > 0) {
        const ssize_t n = ::write(in.fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            void_incoming("cannot write " + in.partial_path + ": " + errno_text(errno));
            return;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

void ReceiverConnection::snapshot_end(const protocol::SnapshotEnd& end, Clock::time_point now) {
    Incoming& in = *incoming_;
    if (in.void_reason.empty() && end.total_bytes != in.bytes)
        void_incoming("the process announced " + std::to_string(end.total_bytes) + " bytes and sent " +
                      std::to_string(in.bytes));
    if (in.void_reason.empty() && !in.check.complete())
        void_incoming("the snapshot ended before its End section (" + std::to_string(in.bytes) + " bytes)");
    if (in.void_reason.empty() && ::fsync(in.fd) != 0)
        void_incoming("cannot sync " + in.partial_path + ": " + errno_text(errno));
    if (!in.void_reason.empty()) {
        discard(in.void_reason);
        return;
    }
    const int fd = in.fd;
    in.fd = -1;
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(in.partial_path.c_str());
        discard("cannot close " + in.partial_path + ": " + errno_text(err));
        return;
    }
    const std::string path = context_.session.final_path(info_.process.pid, in.begin.sequence);
    if (::rename(in.partial_path.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(in.partial_path.c_str());
        discard("cannot rename " + in.partial_path + ": " + errno_text(err));
        return;
    }
    SavedSnapshot saved;
    saved.connection = id_;
    saved.request_id = in.begin.request_id;
    saved.sequence = in.begin.sequence;
    saved.pid = info_.process.pid;
    saved.path = path;
    saved.bytes = in.bytes;
    saved.collected = in.begin.collected;
    saved.walk_ns = in.begin.walk_ns;
    saved.nodes = in.begin.nodes;
    saved.edges = in.begin.edges;
    auto request = requests_.find(in.begin.request_id);
    if (request != requests_.end()) {
        saved.seconds_since_request = std::chrono::duration<double>(now - request->second.first).count();
        saved.label = request->second.second;
        requests_.erase(request);
    }
    if (saved.label.empty()) saved.label = info_.label;
    incoming_.reset();
    context_.events.on_snapshot_saved(saved);
}

void ReceiverConnection::discard(const std::string& message) {
    if (!incoming_) return;
    Incoming& in = *incoming_;
    if (in.fd >= 0) ::close(in.fd);
    if (!in.partial_path.empty()) ::unlink(in.partial_path.c_str());
    const uint64_t request = in.begin.request_id;
    const std::string line = "discarded snapshot " + std::to_string(in.begin.sequence) + " of " + who() +
                             " after " + megabytes(in.bytes) + ": " + message;
    requests_.erase(request);
    incoming_.reset();
    log(LogLevel::Warning, line);
    context_.events.on_snapshot_discarded(id_, request, line);
}

// ---- commands ---------------------------------------------------------------

void ReceiverConnection::take_snapshot(uint64_t request_id, bool collect, const std::string& label,
                                       Clock::time_point now) {
    requests_[request_id] = {now, label};
    send(MessageType::TakeSnapshot,
         protocol::encode(protocol::TakeSnapshot{request_id, collect ? protocol::kSnapshotCollect : 0, label}));
}

void ReceiverConnection::ping(uint64_t nonce, Clock::time_point now) {
    pings_[nonce] = now;
    send(MessageType::Ping, protocol::encode_nonce(nonce));
}

void ReceiverConnection::set_label(const std::string& label) {
    info_.label = label;
    send(MessageType::SetLabel, protocol::encode_text(label));
}

void ReceiverConnection::request_disconnect(const std::string& reason, Clock::time_point now) {
    if (phase_ != Phase::Ready) return;
    send(MessageType::Disconnect, protocol::encode_text(reason));
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Closing;
    closing_reason_ = DisconnectReason::DisconnectRequested;
    closing_message_ = reason;
    closing_deadline_ = now + kClosingGrace;
    if (!wants_write()) close(closing_reason_, closing_message_);
}

// ---- time -------------------------------------------------------------------

std::optional<Clock::time_point> ReceiverConnection::next_deadline() const {
    switch (phase_) {
        case Phase::Handshake: return handshake_deadline_;
        case Phase::Closing: return closing_deadline_;
        case Phase::Ready:
            if (parser_.mid_frame() || incoming_) return last_read_ + context_.options.stall_timeout;
            return std::nullopt;
        case Phase::Closed: return std::nullopt;
    }
    return std::nullopt;
}

void ReceiverConnection::on_timer(Clock::time_point now) {
    const auto deadline = next_deadline();
    if (!deadline || now < *deadline) return;
    const auto seconds = [](std::chrono::milliseconds ms) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms.count()) / 1000.0);
        return std::string(buf);
    };
    switch (phase_) {
        case Phase::Handshake: {
            const std::string what = "no handshake within " + seconds(context_.options.handshake_timeout);
            log(LogLevel::Warning, "dropped " + who() + ": " + what);
            close(DisconnectReason::HandshakeTimeout, what);
            break;
        }
        case Phase::Ready: {
            const std::string what = std::string("stalled for ") + seconds(context_.options.stall_timeout) +
                                     " in the middle of " + (incoming_ ? "a snapshot" : "a frame");
            log(LogLevel::Warning, "dropped " + who() + ": " + what);
            close(DisconnectReason::Stalled, what);
            break;
        }
        case Phase::Closing: close(closing_reason_, closing_message_); break;
        case Phase::Closed: break;
    }
}

// ---- the end ----------------------------------------------------------------

void ReceiverConnection::close(DisconnectReason reason, const std::string& message) {
    if (phase_ == Phase::Closed) return;
    if (incoming_) {
        const std::string why = reason == DisconnectReason::ProcessExited ||
                                        reason == DisconnectReason::ConnectionLost
                                    ? "the process went away in the middle of it (" + message +
                                          "); partial snapshot discarded"
                                    : "the connection ended in the middle of it (" + message +
                                          "); partial snapshot discarded";
        discard(why);
    }
    phase_ = Phase::Closed;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
    if (pidfd_ >= 0) ::close(pidfd_);
    pidfd_ = -1;
    out_.clear();
    out_sent_ = 0;
    if (announced_) {
        log(reason == DisconnectReason::Goodbye || reason == DisconnectReason::DisconnectRequested ||
                    reason == DisconnectReason::ListenerStopped
                ? LogLevel::Info
                : LogLevel::Warning,
            "disconnected: " + who() + ": " + to_string(reason) + ": " + message);
        context_.events.on_disconnected(id_, reason, message);
    }
}

}  // namespace refscope::live
