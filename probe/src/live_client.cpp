// LiveClient (live_client.h): connecting, the command loop, and streaming a
// snapshot as SnapshotBegin, SnapshotData..., SnapshotEnd frames whose data
// bytes are exactly the .rscope file (format::write_snapshot through a sink).
#include "live_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "refscope/format/errno_text.h"
#include "refscope/format/snapshot_io.h"
#include "walked_snapshot_options.h"

namespace refscope::probe {

using protocol::Frame;
using protocol::MessageType;
using Clock = std::chrono::steady_clock;

namespace {

// Snapshots of this process over every connection it makes: a snapshot's
// header sequence never repeats within one process.
std::atomic<uint64_t> g_live_sequence{0};

constexpr auto kGoodbyeTimeout = std::chrono::milliseconds(250);

using format::errno_text;

// A send that failed: the connection is over. Derived from WriteError so
// that format::write_snapshot passes it through unchanged.
class ConnectionBroken : public format::WriteError {
public:
    using format::WriteError::WriteError;
};

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left);
}

void send_with_deadline(int fd, const uint8_t* data, size_t size, Clock::time_point deadline) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            size -= static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            throw ConnectError("cannot send the handshake: " + errno_text(errno));
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, remaining_ms(deadline)) == 0) throw ConnectError("timed out sending the handshake");
    }
}

// Bytes the socket delivered, fed to the handshake's parser until one frame
// is complete; what follows it stays in `leftover`.
Frame read_frame_with_deadline(Handshake& h, Clock::time_point deadline) {
    uint8_t buf[16384];
    for (;;) {
        size_t used = 0;
        while (used < h.leftover.size() && !h.parser.has_frame() && !h.parser.failed())
            used += h.parser.consume(h.leftover.data() + used, h.leftover.size() - used);
        h.leftover.erase(h.leftover.begin(), h.leftover.begin() + static_cast<ptrdiff_t>(used));
        if (h.parser.failed()) throw ConnectError(std::string("the receiver's answer is not the protocol: ") +
                                                  h.parser.error().what());
        if (h.parser.has_frame()) {
            Frame f = h.parser.frame();
            h.parser.next();
            return f;
        }
        pollfd p{h.fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready == 0) throw ConnectError("the receiver did not answer the handshake in time");
        if (ready < 0 && errno != EINTR) throw ConnectError("poll failed: " + errno_text(errno));
        const ssize_t n = ::recv(h.fd, buf, sizeof buf, 0);
        if (n == 0) throw ConnectError("the receiver closed the connection during the handshake");
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            throw ConnectError("cannot read the handshake: " + errno_text(errno));
        }
        h.leftover.insert(h.leftover.end(), buf, buf + n);
    }
}

}  // namespace

Handshake connect_and_handshake(const LiveSettings& settings) {
    const auto deadline = Clock::now() + settings.connect_timeout;
    const protocol::Address& a = settings.address;
    const std::string where = a.to_string();
    Handshake h;
    const bool is_unix = a.kind == protocol::Address::Kind::Unix;
    h.fd = ::socket(is_unix ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (h.fd < 0) throw ConnectError("cannot create a socket: " + errno_text(errno));
    try {
        int rc = 0;
        if (is_unix) {
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
            rc = ::connect(h.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        } else {
            sockaddr_in addr{};
            addr.sin_family = AF_INET;
            addr.sin_port = htons(a.port);
            addr.sin_addr.s_addr = htonl(a.ipv4);
            rc = ::connect(h.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
            const int one = 1;
            ::setsockopt(h.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        if (rc != 0 && errno != EINPROGRESS && errno != EAGAIN)
            throw ConnectError("cannot connect to " + where + ": " + errno_text(errno) +
                               (errno == ENOENT || errno == ECONNREFUSED ? " (is the receiver running?)" : ""));
        if (rc != 0) {
            pollfd p{h.fd, POLLOUT, 0};
            if (::poll(&p, 1, remaining_ms(deadline)) <= 0)
                throw ConnectError("timed out connecting to " + where);
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(h.fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err != 0) throw ConnectError("cannot connect to " + where + ": " + errno_text(err));
        }
        std::vector<uint8_t> hello(protocol::kPreambleBytes);
        protocol::store_preamble(hello.data());
        protocol::Hello message;
        std::memcpy(message.token, settings.token, protocol::kTokenBytes);
        message.process = settings.description;
        const std::vector<uint8_t> payload = protocol::encode(message);
        if (payload.size() > protocol::kMaxHelloPayload)
            throw ConnectError("the process description is too large to send");
        protocol::append_frame(hello, MessageType::Hello, payload.data(), payload.size());
        send_with_deadline(h.fd, hello.data(), hello.size(), deadline);

        const Frame welcome = read_frame_with_deadline(h, deadline);
        if (welcome.type != static_cast<uint16_t>(MessageType::Welcome))
            throw ConnectError("the receiver answered with something other than a Welcome");
        protocol::Welcome w;
        try {
            w = protocol::decode_welcome(welcome.payload.data(), welcome.payload.size());
        } catch (const protocol::ProtocolError& e) {
            throw ConnectError(std::string("the receiver's Welcome does not decode: ") + e.what());
        }
        if (w.status != protocol::WelcomeStatus::Ok)
            throw ConnectError("the receiver at " + where + " refused the connection: " +
                               protocol::to_string(w.status) + (w.message.empty() ? "" : " (" + w.message + ")"));
    } catch (...) {
        ::close(h.fd);
        h.fd = -1;
        throw;
    }
    return h;
}

// ---- the snapshot sink ------------------------------------------------------

namespace {

// Cuts the encoder's output into SnapshotData frames of at most chunk bytes.
class SnapshotFrameSink final : public format::ByteSink {
public:
    SnapshotFrameSink(LiveClient& client, size_t chunk) : client_(client), chunk_(chunk) { buffer_.reserve(chunk); }
    void write(const void* data, size_t size) override {
        const auto* p = static_cast<const uint8_t*>(data);
        total_ += size;
        while (size > 0) {
            if (buffer_.empty() && size >= chunk_) {
                client_.send_frame(MessageType::SnapshotData, p, chunk_);  // large payloads: no copy
                p += chunk_;
                size -= chunk_;
                continue;
            }
            const size_t n = std::min(size, chunk_ - buffer_.size());
            buffer_.insert(buffer_.end(), p, p + n);
            p += n;
            size -= n;
            if (buffer_.size() == chunk_) flush();
        }
    }
    void flush() {
        if (buffer_.empty()) return;
        client_.send_frame(MessageType::SnapshotData, buffer_.data(), buffer_.size());
        buffer_.clear();
    }
    uint64_t total() const { return total_; }

private:
    LiveClient& client_;
    size_t chunk_;
    std::vector<uint8_t> buffer_;
    uint64_t total_ = 0;
};

}  // namespace

// ---- LiveClient ---------------------------------------------------------------

LiveClient::LiveClient(LiveSettings settings, Handshake handshake, LiveSnapshotFunction walk)
    : settings_(std::move(settings)),
      fd_(handshake.fd),
      parser_(std::move(handshake.parser)),
      leftover_(std::move(handshake.leftover)),
      take_snapshot_(walk),
      label_(settings_.description.label),
      stall_timeout_(settings_.send_stall_timeout) {
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    status_.connected = true;
    status_.address = settings_.address.to_string();
    status_.label = label_;
}

LiveClient::~LiveClient() {
    request_stop("");
    join();
    if (fd_ >= 0) ::close(fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

void LiveClient::start() {
    running_.store(true);
    thread_ = std::thread([this] { run(); });
}

void LiveClient::request_stop(const std::string& goodbye) {
    if (stop_.load()) return;
    goodbye_ = goodbye;
    stop_.store(true);
    const uint64_t one = 1;
    if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
}

void LiveClient::join() {
    if (thread_.joinable() && !on_client_thread()) thread_.join();
}

LiveStatus LiveClient::status() const {
    std::lock_guard<std::mutex> lock(status_mutex_);
    return status_;
}

void LiveClient::abandon_after_fork() {
    // Only plain system calls: this runs in a fork child, where the other
    // threads' locks may be held forever.
    if (fd_ >= 0) ::close(fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    fd_ = -1;
    wake_fd_ = -1;
}

void LiveClient::set_error(const std::string& message) {
    std::lock_guard<std::mutex> lock(status_mutex_);
    status_.last_error = message;
}

void LiveClient::run() {
    thread_id_.store(std::this_thread::get_id());
    // Shown by top -H, gdb and /proc/PID/task/*/comm: whose thread this is.
    ::pthread_setname_np(::pthread_self(), "refscope-live");
    std::string ended;
    try {
        serve();
        ended = stop_.load() ? "disconnected" : "";
    } catch (const ConnectionBroken& e) {
        ended = e.what();
    } catch (const protocol::ProtocolError& e) {
        ended = std::string("the receiver sent something that is not the protocol: ") + e.what();
    } catch (const std::bad_alloc&) {
        ended = "out of memory";
    } catch (const std::exception& e) {
        ended = e.what();
    } catch (...) {
        ended = "unknown error";
    }
    if (stop_.load() && !goodbye_.empty()) say_goodbye();
    // Tell the receiver at once: shutdown() reaches it even while a forked
    // child still holds a copy of the socket.
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
    {
        std::lock_guard<std::mutex> lock(status_mutex_);
        status_.connected = false;
        status_.closed_reason = ended.empty() ? "closed" : ended;
        if (!ended.empty() && ended != "disconnected") status_.last_error = ended;
    }
    running_.store(false);
}

void LiveClient::say_goodbye() {
    try {
        const std::vector<uint8_t> payload = protocol::encode_text(goodbye_);
        std::vector<uint8_t> frame;
        protocol::append_frame(frame, MessageType::Goodbye, payload.data(), payload.size());
        uint64_t drained = 0;
        (void)!::read(wake_fd_, &drained, sizeof drained);
        send_all(frame.data(), frame.size(), kGoodbyeTimeout, /*while_stopping=*/true);
    } catch (...) {
    }
}

void LiveClient::serve() {
    std::vector<uint8_t> buffer(65536);
    for (;;) {
        // Frames already buffered (after the Welcome, or several per read).
        while (!leftover_.empty() && !stop_.load()) {
            const size_t used = parser_.consume(leftover_.data(), leftover_.size());
            leftover_.erase(leftover_.begin(), leftover_.begin() + static_cast<ptrdiff_t>(used));
            if (parser_.failed()) throw parser_.error();
            if (parser_.has_frame()) {
                const Frame frame = parser_.frame();
                parser_.next();
                handle_frame(frame);
            } else if (used == 0) {
                break;
            }
        }
        if (stop_.load()) return;
        pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
        const int ready = ::poll(fds, 2, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            throw ConnectionBroken("poll failed: " + errno_text(errno));
        }
        if (fds[1].revents & POLLIN) {
            uint64_t drained = 0;
            (void)!::read(wake_fd_, &drained, sizeof drained);
        }
        if (stop_.load()) return;
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
            if (n == 0) {
                parser_.finish();
                throw ConnectionBroken("the receiver closed the connection");
            }
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
                throw ConnectionBroken("the connection to the receiver failed: " + errno_text(errno));
            }
            leftover_.insert(leftover_.end(), buffer.data(), buffer.data() + n);
        }
    }
}

void LiveClient::handle_frame(const Frame& f) {
    const uint8_t* p = f.payload.data();
    const size_t n = f.payload.size();
    const char* name = protocol::message_name(f.type);
    if (name == nullptr) {
        if (f.flags & protocol::kFrameOptional) return;
        throw protocol::ProtocolError(protocol::ProtocolErrorCode::UnknownMessage,
                                      "unknown message type " + std::to_string(f.type));
    }
    switch (static_cast<MessageType>(f.type)) {
        case MessageType::Ping: {
            const std::vector<uint8_t> pong = protocol::encode_nonce(protocol::decode_nonce(p, n));
            send_frame(MessageType::Pong, pong.data(), pong.size());
            break;
        }
        case MessageType::TakeSnapshot: take_snapshot(protocol::decode_take_snapshot(p, n)); break;
        case MessageType::SetLabel: {
            label_ = protocol::decode_text(p, n, "SetLabel");
            std::lock_guard<std::mutex> lock(status_mutex_);
            status_.label = label_;
            break;
        }
        case MessageType::Disconnect: {
            const std::string reason = protocol::decode_text(p, n, "Disconnect");
            throw ConnectionBroken("the receiver closed the connection" +
                                   (reason.empty() ? std::string() : ": " + reason));
        }
        default:
            // Welcome after the handshake, or a message only a probe sends.
            throw protocol::ProtocolError(protocol::ProtocolErrorCode::UnexpectedMessage,
                                          std::string(name) + " is not a message a receiver sends now");
    }
}

void LiveClient::take_snapshot(const protocol::TakeSnapshot& request) {
    {
        std::lock_guard<std::mutex> lock(status_mutex_);
        ++status_.requests;
    }
    const bool collect = request.flags & protocol::kSnapshotCollect;
    const uint64_t sequence = g_live_sequence.fetch_add(1) + 1;
    const std::string label = request.label.empty() ? label_ : request.label;
    std::string error;
    bool ok = false;
    {
        Snapshot snapshot;
        try {
            ok = take_snapshot_(snapshot, collect, sequence, label, error);
        } catch (const std::bad_alloc&) {
            error = "out of memory while walking the heap";
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (ok && stop_.load()) return;  // disconnecting: do not start sending
        if (ok) {
            protocol::SnapshotBegin begin;
            begin.request_id = request.request_id;
            begin.sequence = sequence;
            begin.collected = snapshot.header.collected_first;
            begin.walk_ns = snapshot.header.walk_ns;
            begin.nodes = snapshot.node_count();
            begin.edges = snapshot.edge_count();
            const std::vector<uint8_t> b = protocol::encode(begin);
            send_frame(MessageType::SnapshotBegin, b.data(), b.size());
            const auto start = Clock::now();
            SnapshotFrameSink sink(*this, settings_.chunk_bytes);
            try {
                format::write_snapshot(snapshot, sink, walked_snapshot_options());
                sink.flush();
            } catch (const ConnectionBroken&) {
                throw;
            } catch (const std::bad_alloc&) {
                ok = false;
                error = "out of memory while encoding the snapshot";
            } catch (const std::exception& e) {
                ok = false;
                error = e.what();
            }
            if (ok) {
                protocol::SnapshotEnd end;
                end.request_id = request.request_id;
                end.total_bytes = sink.total();
                end.encode_ns = static_cast<uint64_t>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
                const std::vector<uint8_t> e = protocol::encode(end);
                send_frame(MessageType::SnapshotEnd, e.data(), e.size());
                std::lock_guard<std::mutex> lock(status_mutex_);
                ++status_.snapshots_sent;
                return;
            }
        }
    }
    // No snapshot (or a void one after SnapshotBegin): say why.
    set_error(error);
    const std::vector<uint8_t> failed = protocol::encode(protocol::SnapshotFailed{request.request_id, error});
    send_frame(MessageType::SnapshotFailed, failed.data(), failed.size());
}

void LiveClient::send_frame(MessageType type, const uint8_t* payload, size_t size) {
    uint8_t header[protocol::kFrameHeaderBytes];
    protocol::store_frame_header(header, static_cast<uint16_t>(type), 0, payload, static_cast<uint32_t>(size));
    send_all(header, sizeof header, stall_timeout_);
    if (size > 0) send_all(payload, size, stall_timeout_);
}

void LiveClient::send_all(const uint8_t* data, size_t size, std::chrono::milliseconds stall_timeout,
                          bool while_stopping) {
    auto deadline = Clock::now() + stall_timeout;
    while (size > 0) {
        if (stop_.load() && !while_stopping) throw ConnectionBroken("disconnected while sending");
        const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            size -= static_cast<size_t>(n);
            {
                std::lock_guard<std::mutex> lock(status_mutex_);
                status_.bytes_sent += static_cast<uint64_t>(n);
            }
            deadline = Clock::now() + stall_timeout;  // progress: the receiver reads
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            throw ConnectionBroken("the connection to the receiver failed: " + errno_text(errno));
        pollfd fds[2] = {{fd_, POLLOUT, 0}, {wake_fd_, POLLIN, 0}};
        const int ready = ::poll(fds, 2, remaining_ms(deadline));
        if (ready < 0 && errno != EINTR) throw ConnectionBroken("poll failed: " + errno_text(errno));
        if (ready > 0 && (fds[1].revents & POLLIN) && while_stopping) {
            uint64_t drained = 0;
            (void)!::read(wake_fd_, &drained, sizeof drained);
        }
        if (ready == 0) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.1f s", static_cast<double>(stall_timeout.count()) / 1000);
            throw ConnectionBroken(std::string("the receiver stopped reading for ") + seconds +
                                   ": connection dropped so that the program is not held up");
        }
        if (fds[0].revents & (POLLERR | POLLHUP))
            throw ConnectionBroken("the receiver closed the connection");
    }
}

}  // namespace refscope::probe
