// Listener (listener.h): sockets, the token, the private directory, the
// command queue and the poll() loop. Per-connection work is in
// receiver_connection.cpp, the session folder in session_folder.cpp.
#include "refscope/live/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "receiver_connection.h"
#include "refscope/format/errno_text.h"
#include "refscope/protocol/address.h"
#include "session_folder.h"

namespace refscope::live {

const char* to_string(DisconnectReason reason) {
    switch (reason) {
        case DisconnectReason::Goodbye: return "goodbye";
        case DisconnectReason::ProcessExited: return "process exited";
        case DisconnectReason::ConnectionLost: return "connection lost";
        case DisconnectReason::ProtocolError: return "protocol error";
        case DisconnectReason::Stalled: return "stalled";
        case DisconnectReason::HandshakeTimeout: return "handshake timeout";
        case DisconnectReason::Refused: return "refused";
        case DisconnectReason::NotReading: return "not reading";
        case DisconnectReason::DisconnectRequested: return "disconnect requested";
        case DisconnectReason::ListenerStopped: return "listener stopped";
    }
    return "unknown";
}

namespace {

using format::errno_text;

// Forwards to the user's observer and records in the session folder.
class RecordingObserver final : public ListenerObserver {
public:
    RecordingObserver(ListenerObserver& user, const SessionFolder& session) : user_(user), session_(session) {}
    void on_connected(const ConnectionInfo& info) override {
        note(session_.record_connected(info));
        user_.on_connected(info);
    }
    void on_refused(const std::string& peer, protocol::WelcomeStatus status, const std::string& message) override {
        user_.on_refused(peer, status, message);
    }
    void on_snapshot_started(ConnectionId id, uint64_t request, uint64_t sequence) override {
        user_.on_snapshot_started(id, request, sequence);
    }
    void on_snapshot_saved(const SavedSnapshot& saved) override {
        note(session_.record_snapshot(saved));
        user_.on_snapshot_saved(saved);
    }
    void on_snapshot_discarded(ConnectionId id, uint64_t request, const std::string& message) override {
        note(session_.record_discarded(id, request, message));
        user_.on_snapshot_discarded(id, request, message);
    }
    void on_snapshot_failed(ConnectionId id, uint64_t request, const std::string& reason) override {
        user_.on_snapshot_failed(id, request, reason);
    }
    void on_pong(ConnectionId id, uint64_t nonce, double rtt) override { user_.on_pong(id, nonce, rtt); }
    void on_disconnected(ConnectionId id, DisconnectReason reason, const std::string& message) override {
        note(session_.record_disconnected(id, reason, message));
        user_.on_disconnected(id, reason, message);
    }
    void on_log(LogLevel level, const std::string& line) override { user_.on_log(level, line); }

private:
    void note(const std::string& error) {
        if (!error.empty()) user_.on_log(LogLevel::Warning, "session index: " + error);
    }
    ListenerObserver& user_;
    const SessionFolder& session_;
};

std::string runtime_base() {
    for (const char* var : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
        const char* v = std::getenv(var);
        struct stat st {};
        if (v && *v == '/' && ::stat(v, &st) == 0 && S_ISDIR(st.st_mode) && ::access(v, W_OK | X_OK) == 0)
            return v;
    }
    return "/tmp";
}

// A directory only this user can enter: created if missing; refused if it
// belongs to someone else or others may enter it (they could replace the
// socket or read the token file).
void ensure_private_dir(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw ListenError("cannot create socket directory " + dir + ": " + errno_text(errno));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw ListenError("cannot inspect socket directory " + dir + ": " + errno_text(errno));
    if (!S_ISDIR(st.st_mode)) throw ListenError("socket directory " + dir + " is not a directory");
    if (st.st_uid != ::geteuid())
        throw ListenError("socket directory " + dir + " belongs to another user");
    if (st.st_mode & 077) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        throw ListenError("socket directory " + dir + " has mode " + mode +
                          "; it must be private (0700): others could replace the socket or read the token");
    }
}

struct Command {
    enum class Kind { Snapshot, Ping, Label, Disconnect } kind;
    ConnectionId id;
    uint64_t number;  // request id or nonce
    bool collect;
    std::string text;
};

}  // namespace

class Listener::Impl {
public:
    Impl(ListenerOptions o, ListenerObserver& user)
        : options(std::move(o)), session(options.session_dir), recorder(user, session) {
        make_token();
        try {
            wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (wake_fd < 0) throw ListenError("cannot create an eventfd: " + errno_text(errno));
            if (options.unix_socket) {
                make_private_dir();
                write_token_file();
                bind_unix();
            }
            if (options.tcp_port) bind_tcp(*options.tcp_port);
            if (unix_fd < 0 && tcp_fd < 0) throw ListenError("neither a Unix socket nor TCP was asked for");
        } catch (...) {
            cleanup_files();
            close_fds();
            throw;
        }
        address = !unix_address.empty() ? unix_address : tcp_address;
    }

    ~Impl() {
        connections.clear();  // each destructor closes and reports ListenerStopped
        close_fds();
        cleanup_files();
    }

    static size_t count_ready(void* self) {
        size_t n = 0;
        for (const auto& [id, c] : static_cast<Impl*>(self)->connections) n += c->ready() ? 1 : 0;
        return n;
    }

    void make_token() {
        if (!options.token_hex.empty()) {
            if (!protocol::parse_token(options.token_hex, token))
                throw ListenError("the token must be 32 hexadecimal digits");
        } else {
            size_t got = 0;
            while (got < protocol::kTokenBytes) {
                const ssize_t n = ::getrandom(token + got, protocol::kTokenBytes - got, 0);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    throw ListenError("cannot get random bytes for the token: " + errno_text(errno));
                }
                got += static_cast<size_t>(n);
            }
        }
        token_hex = protocol::token_to_hex(token);
    }

    void make_private_dir() {
        if (options.socket_dir.empty()) {
            std::string pattern = runtime_base() + "/refscope-XXXXXX";
            if (::mkdtemp(pattern.data()) == nullptr)
                throw ListenError("cannot create a private directory in " + runtime_base() + ": " +
                                  errno_text(errno));
            private_dir = pattern;
            created_private_dir = true;
        } else {
            private_dir = options.socket_dir;
            while (private_dir.size() > 1 && private_dir.back() == '/') private_dir.pop_back();
        }
        ensure_private_dir(private_dir);
    }

    void write_token_file() {
        token_file = private_dir + "/token";
        ::unlink(token_file.c_str());
        const int fd = ::open(token_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) throw ListenError("cannot create " + token_file + ": " + errno_text(errno));
        const std::string line = token_hex + "\n";
        const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
        ::close(fd);
        if (!ok) throw ListenError("cannot write " + token_file);
        wrote_token_file = true;
    }

    void bind_unix() {
        socket_path = private_dir + "/live.sock";
        if (socket_path.size() > protocol::kMaxUnixPathBytes)
            throw ListenError("socket path " + socket_path + " is longer than " +
                              std::to_string(protocol::kMaxUnixPathBytes) +
                              " bytes; choose a shorter socket directory");
        unix_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (unix_fd < 0) throw ListenError("cannot create a Unix socket: " + errno_text(errno));
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
        ::unlink(socket_path.c_str());  // a stale socket of an earlier run in our own directory
        if (::bind(unix_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
            throw ListenError("cannot bind " + socket_path + ": " + errno_text(errno));
        bound_socket = true;
        ::chmod(socket_path.c_str(), 0600);
        if (::listen(unix_fd, 64) != 0) throw ListenError("cannot listen on " + socket_path + ": " + errno_text(errno));
        unix_address = "unix:" + socket_path;
    }

    void bind_tcp(uint16_t port) {
        tcp_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (tcp_fd < 0) throw ListenError("cannot create a TCP socket: " + errno_text(errno));
        const int one = 1;
        ::setsockopt(tcp_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(port);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never any other interface
        if (::bind(tcp_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
            throw ListenError("cannot bind TCP 127.0.0.1:" + std::to_string(port) + ": " + errno_text(errno));
        if (::listen(tcp_fd, 64) != 0) throw ListenError("cannot listen on TCP: " + errno_text(errno));
        socklen_t len = sizeof addr;
        ::getsockname(tcp_fd, reinterpret_cast<sockaddr*>(&addr), &len);
        tcp_address = "tcp:127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
    }

    void close_fds() {
        for (int* fd : {&unix_fd, &tcp_fd, &wake_fd}) {
            if (*fd >= 0) ::close(*fd);
            *fd = -1;
        }
    }

    void cleanup_files() {
        if (bound_socket) ::unlink(socket_path.c_str());
        if (wrote_token_file) ::unlink(token_file.c_str());
        if (created_private_dir) ::rmdir(private_dir.c_str());
        bound_socket = wrote_token_file = created_private_dir = false;
    }

    void wake() {
        const uint64_t one = 1;
        (void)!::write(wake_fd, &one, sizeof one);
    }

    void queue(Command c) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            commands.push_back(std::move(c));
        }
        wake();
    }

    void accept_from(int listen_fd, bool is_unix, Clock::time_point now) {
        for (int i = 0; i < 64; ++i) {
            const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR) continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK)
                    recorder.on_log(LogLevel::Warning, std::string("accept failed: ") + errno_text(errno));
                return;
            }
            int64_t pid = -1;
            int64_t uid = -1;
            std::string peer;
            if (is_unix) {
                ucred cred{};
                socklen_t len = sizeof cred;
                if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
                    pid = cred.pid;
                    uid = cred.uid;
                }
                peer = "pid " + std::to_string(pid) + " uid " + std::to_string(uid);
            } else {
                sockaddr_in addr{};
                socklen_t len = sizeof addr;
                ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len);
                char host[INET_ADDRSTRLEN] = "?";
                ::inet_ntop(AF_INET, &addr.sin_addr, host, sizeof host);
                peer = std::string(host) + ":" + std::to_string(ntohs(addr.sin_port));
            }
            // Connections in their handshake are capped per transport: the
            // oldest one of this transport makes room (silent strangers
            // never finish; a probe sends its Hello at once). Authenticated
            // ones are capped at Hello (TooManyConnections), so the total
            // is bounded by both caps.
            const std::string transport = is_unix ? "unix" : "tcp";
            evict_oldest_pending(transport, now);
            const ConnectionId id = next_id++;
            connections.emplace(id, std::make_unique<ReceiverConnection>(
                                        id, fd, is_unix ? "unix" : "tcp", peer, pid, uid, context, now));
        }
    }

    void evict_oldest_pending(const std::string& transport, Clock::time_point now) {
        size_t pending = 0;
        ReceiverConnection* oldest = nullptr;  // connections are keyed by increasing id
        for (auto& [id, c] : connections) {
            if (!c->pending() || c->transport() != transport) continue;
            ++pending;
            if (oldest == nullptr) oldest = c.get();
        }
        if (pending < options.max_pending || oldest == nullptr) return;
        const std::string what = "evicted: " + std::to_string(pending) + " " + transport +
                                 " connections in their handshake, the limit";
        const std::string line = context.strangers.admit("dropped " + oldest->info().peer + ": " + what, now);
        if (!line.empty()) recorder.on_log(LogLevel::Warning, line);
        oldest->close(DisconnectReason::HandshakeTimeout, what);
    }

    void run_commands(Clock::time_point now) {
        std::vector<Command> batch;
        {
            std::lock_guard<std::mutex> lock(mutex);
            batch.swap(commands);
        }
        for (Command& c : batch) {
            auto it = connections.find(c.id);
            if (it == connections.end() || !it->second->ready()) {
                recorder.on_log(LogLevel::Warning, "connection " + std::to_string(c.id) +
                                                       " is not connected; command dropped");
                if (c.kind == Command::Kind::Snapshot)
                    recorder.on_snapshot_failed(c.id, c.number, "not connected");
                continue;
            }
            ReceiverConnection& conn = *it->second;
            switch (c.kind) {
                case Command::Kind::Snapshot: conn.take_snapshot(c.number, c.collect, c.text, now); break;
                case Command::Kind::Ping: conn.ping(c.number, now); break;
                case Command::Kind::Label: conn.set_label(c.text); break;
                case Command::Kind::Disconnect: conn.request_disconnect(c.text, now); break;
            }
        }
    }

    void publish_ready() {
        std::vector<ConnectionInfo> list;
        for (const auto& [id, c] : connections)
            if (c->ready()) list.push_back(c->info());
        std::lock_guard<std::mutex> lock(mutex);
        ready_list.swap(list);
    }

    bool run_once(std::chrono::milliseconds timeout) {
        if (stopping.load()) return false;
        Clock::time_point now = Clock::now();
        for (const auto& [id, c] : connections) {
            if (auto d = c->next_deadline()) {
                const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(*d - now) +
                                   std::chrono::milliseconds(1);
                timeout = std::max(std::chrono::milliseconds(0), std::min(timeout, until));
            }
        }
        std::vector<pollfd> fds;
        fds.push_back({wake_fd, POLLIN, 0});
        if (unix_fd >= 0) fds.push_back({unix_fd, POLLIN, 0});
        if (tcp_fd >= 0) fds.push_back({tcp_fd, POLLIN, 0});
        const size_t first_connection = fds.size();
        std::vector<ReceiverConnection*> polled;
        for (const auto& [id, c] : connections) {
            fds.push_back({c->fd(), static_cast<short>(POLLIN | (c->wants_write() ? POLLOUT : 0)), 0});
            polled.push_back(c.get());
        }
        const int n = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
        if (n < 0 && errno != EINTR) {
            recorder.on_log(LogLevel::Warning, std::string("poll failed: ") + errno_text(errno));
            return !stopping.load();
        }
        now = Clock::now();
        if (fds[0].revents & POLLIN) {
            uint64_t drained = 0;
            (void)!::read(wake_fd, &drained, sizeof drained);
        }
        run_commands(now);
        for (size_t i = 1; i < first_connection; ++i)
            if (fds[i].revents & POLLIN) accept_from(fds[i].fd, fds[i].fd == unix_fd, now);
        for (size_t i = 0; i < polled.size(); ++i) {
            ReceiverConnection& c = *polled[i];
            const short ev = fds[first_connection + i].revents;
            if (!c.closed() && (ev & POLLOUT)) c.on_writable(now);
            if (!c.closed() && (ev & (POLLIN | POLLHUP | POLLERR))) c.on_readable(now);
        }
        for (const auto& [id, c] : connections) c->on_timer(now);
        std::erase_if(connections, [](const auto& entry) { return entry.second->closed(); });
        publish_ready();
        return !stopping.load();
    }

    ListenerOptions options;
    SessionFolder session;
    RecordingObserver recorder;
    ReceiverContext context{options, token, session, recorder, &Impl::count_ready, this};
    uint8_t token[protocol::kTokenBytes] = {};
    std::string token_hex, token_file, private_dir, socket_path;
    std::string unix_address, tcp_address, address;
    bool created_private_dir = false, wrote_token_file = false, bound_socket = false;
    int unix_fd = -1, tcp_fd = -1, wake_fd = -1;
    std::map<ConnectionId, std::unique_ptr<ReceiverConnection>> connections;
    ConnectionId next_id = 1;
    std::atomic<uint64_t> next_number{1};
    std::atomic<bool> stopping{false};
    mutable std::mutex mutex;
    std::vector<Command> commands;
    std::vector<ConnectionInfo> ready_list;
};

Listener::Listener(ListenerOptions options, ListenerObserver& observer)
    : impl_(std::make_unique<Impl>(std::move(options), observer)) {}

Listener::~Listener() = default;

const std::string& Listener::unix_address() const { return impl_->unix_address; }
const std::string& Listener::tcp_address() const { return impl_->tcp_address; }
const std::string& Listener::address() const { return impl_->address; }
const std::string& Listener::token_hex() const { return impl_->token_hex; }
const std::string& Listener::token_file() const { return impl_->token_file; }
const std::string& Listener::session_dir() const { return impl_->session.dir(); }

uint64_t Listener::request_snapshot(ConnectionId id, bool collect, const std::string& label) {
    const uint64_t request = impl_->next_number.fetch_add(1);
    impl_->queue({Command::Kind::Snapshot, id, request, collect, label});
    return request;
}

uint64_t Listener::ping(ConnectionId id) {
    const uint64_t nonce = impl_->next_number.fetch_add(1);
    impl_->queue({Command::Kind::Ping, id, nonce, false, {}});
    return nonce;
}

void Listener::set_label(ConnectionId id, const std::string& label) {
    impl_->queue({Command::Kind::Label, id, 0, false, label});
}

void Listener::disconnect(ConnectionId id, const std::string& reason) {
    impl_->queue({Command::Kind::Disconnect, id, 0, false, reason});
}

void Listener::stop() {
    impl_->stopping.store(true);
    impl_->wake();
}

std::vector<ConnectionInfo> Listener::connections() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->ready_list;
}

void Listener::run() {
    while (impl_->run_once(std::chrono::milliseconds(1000))) {
    }
    // Each connection's destructor closes it and reports ListenerStopped.
    impl_->connections.clear();
    impl_->publish_ready();
}

bool Listener::run_once(std::chrono::milliseconds timeout) { return impl_->run_once(timeout); }

}  // namespace refscope::live
