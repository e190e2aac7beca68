// The live verbs: `listen` (a headless receiver on refscope_live's Listener,
// the same one the app uses) and `processes` (the Python processes one could
// attach to). They take their own options, parsed here, because they read no
// snapshot file.
//
// listen prints how to connect, then one line per event on standard output
// (JSON Lines with --json, schema in docs/protocol.md), log lines on standard
// error, and reads commands from standard input, one per line:
//   snapshot ID|all     take a snapshot            ping ID|all
//   collect ID|all      gc.collect(), then snapshot label ID TEXT
//   disconnect ID|all   close that connection      quit
// ID is the connection number printed by "connected".
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands_live.h"
#include "json_writer.h"
#include "refscope/format/snapshot_io.h"
#include "refscope/analysis/display_text.h"
#include "refscope/live/connect_command.h"
#include "refscope/live/listener.h"
#include "refscope/live/process_list.h"

namespace refscope::cli {

namespace {

using namespace std::chrono_literals;
using live::ConnectionId;

struct ListenOptions {
    live::ListenerOptions listener;
    double every_seconds = 0;     // 0: no automatic snapshots
    bool collect = false;         // automatic and on-connect snapshots collect first
    bool on_connect = false;
    uint64_t count = 0;           // 0: no limit
    double timeout_seconds = 0;   // 0: none
    bool exit_when_idle = false;  // after the last process disconnects
    bool verify = false;          // decode every saved snapshot
    bool json = false;
};

double parse_seconds(const std::string& option, const std::string& value) {
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !(v > 0) || v > 1e7)
        throw UsageError(Verb::Listen, option + " takes a number of seconds, not '" + value + "'");
    return v;
}

uint64_t parse_number(const std::string& option, const std::string& value, uint64_t max) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty() || v > max)
        throw UsageError(Verb::Listen, option + " takes a number up to " + std::to_string(max) + ", not '" +
                                           value + "'");
    return v;
}

ListenOptions parse_listen(const CliOptions& cli) {
    ListenOptions o;
    o.json = cli.json;
    const std::vector<std::string>& a = cli.live_args;
    for (size_t i = 0; i < a.size(); ++i) {
        std::string word = a[i];
        std::string value;
        const size_t eq = word.find('=');
        const bool has_inline = word.starts_with("--") && eq != std::string::npos;
        if (has_inline) {
            value = word.substr(eq + 1);
            word = word.substr(0, eq);
        }
        auto next = [&]() -> std::string {
            if (has_inline) return value;
            if (i + 1 >= a.size()) throw UsageError(Verb::Listen, "option " + word + " needs a value");
            return a[++i];
        };
        auto flag = [&] {
            if (has_inline) throw UsageError(Verb::Listen, "option " + word + " takes no value");
        };
        if (word == "--dir") o.listener.session_dir = next();
        else if (word == "--socket-dir") o.listener.socket_dir = next();
        else if (word == "--tcp") o.listener.tcp_port = static_cast<uint16_t>(parse_number(word, next(), 65535));
        else if (word == "--no-unix") { flag(); o.listener.unix_socket = false; }
        else if (word == "--token") o.listener.token_hex = next();
        else if (word == "--every") o.every_seconds = parse_seconds(word, next());
        else if (word == "--collect") { flag(); o.collect = true; }
        else if (word == "--on-connect") { flag(); o.on_connect = true; }
        else if (word == "--count") o.count = parse_number(word, next(), 1'000'000'000);
        else if (word == "--timeout") o.timeout_seconds = parse_seconds(word, next());
        else if (word == "--exit-when-idle") { flag(); o.exit_when_idle = true; }
        else if (word == "--verify") { flag(); o.verify = true; }
        else if (word == "--json") { flag(); o.json = true; }
        else if (word == "--max-connections") o.listener.max_connections = parse_number(word, next(), 100000);
        else if (word == "--handshake-timeout")
            o.listener.handshake_timeout = std::chrono::milliseconds(
                static_cast<int64_t>(parse_seconds(word, next()) * 1000));
        else if (word == "--stall-timeout")
            o.listener.stall_timeout = std::chrono::milliseconds(
                static_cast<int64_t>(parse_seconds(word, next()) * 1000));
        else throw UsageError(Verb::Listen, "unknown option or argument '" + a[i] + "' for 'listen'");
    }
    if (o.listener.session_dir.empty()) {
        char name[64];
        const std::time_t now = std::time(nullptr);
        std::strftime(name, sizeof name, "refscope-session-%Y%m%d-%H%M%S", std::localtime(&now));
        o.listener.session_dir = name;
    }
    if (!o.listener.unix_socket && !o.listener.tcp_port)
        throw UsageError(Verb::Listen, "--no-unix needs --tcp PORT");
    return o;
}

// Text a peer or another process supplied (argv, labels, messages), as it
// may reach a terminal or log: control characters and invalid UTF-8
// escaped, so that no one can forge a line or move the cursor.
std::string peer_text(std::string_view text, size_t max_bytes = 4096) {
    return analysis::escape_text(text, max_bytes);
}

std::string argv_text(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& a : argv) out += (out.empty() ? "" : " ") + peer_text(a);
    return out;
}

volatile sig_atomic_t g_interrupted = 0;
void on_signal(int) { g_interrupted = 1; }

// Prints events (listener thread) and keeps the counters the main loop
// checks. Output lines are whole: one mutex around every write.
class ListenPrinter final : public live::ListenerObserver {
public:
    ListenPrinter(const ListenOptions& options, std::ostream& out) : options_(options), out_(out) {}
    void attach(live::Listener& listener) { listener_ = &listener; }

    void on_connected(const live::ConnectionInfo& c) override {
        connected_.fetch_add(1);
        const auto& p = c.process;
        if (options_.json) {
            event("connected", [&](JsonWriter& json) {
                json.field("connection", c.id);
                json.field("pid", p.pid);
                json.field("peer_pid", c.peer_pid);
                json.field("argv", p.argv);
                json.field("executable", p.executable);
                json.field("python_version", p.python_version);
                json.field("start_time_unix_ns", p.start_time_unix_ns);
                json.field("label", p.label);
                json.field("attached", p.attached);
                json.field("transport", c.transport);
            });
        } else {
            line("connected " + std::to_string(c.id) + ": pid " + std::to_string(p.pid) + ", Python " +
                 peer_text(p.python_version.substr(0, p.python_version.find(' ')), 40) + ", " + argv_text(p.argv));
        }
        if (options_.on_connect && listener_) listener_->request_snapshot(c.id, options_.collect, "on connect");
    }
    void on_refused(const std::string& peer, protocol::WelcomeStatus status, const std::string& message) override {
        if (options_.json) {
            event("refused", [&](JsonWriter& json) {
                json.field("peer", peer);
                json.field("status", protocol::to_string(status));
                json.field("message", message);
            });
        }
    }
    void on_snapshot_started(ConnectionId id, uint64_t request, uint64_t sequence) override {
        if (options_.json) {
            event("started", [&](JsonWriter& json) {
                json.field("connection", id);
                json.field("request", request);
                json.field("sequence", sequence);
            });
        }
    }
    void on_snapshot_saved(const live::SavedSnapshot& s) override {
        std::string verified;
        if (options_.verify) {
            try {
                const Snapshot snap = format::read_snapshot_file(s.path);
                verified = std::to_string(snap.node_count()) + " objects decoded";
            } catch (const std::exception& e) {
                verified = std::string("DECODE FAILED: ") + e.what();
            }
        }
        if (options_.json) {
            event("saved", [&](JsonWriter& json) {
                json.field("connection", s.connection);
                json.field("request", s.request_id);
                json.field("pid", s.pid);
                json.field("sequence", s.sequence);
                json.field("path", s.path);
                json.field("bytes", s.bytes);
                json.field("nodes", s.nodes);
                json.field("edges", s.edges);
                json.field("walk_ns", s.walk_ns);
                json.field("collected", s.collected);
                json.key("seconds_since_request").value_fixed(s.seconds_since_request, 6);
                json.field("label", s.label);
                if (options_.verify) json.field("verified", verified);
            });
        } else {
            char facts[160];
            std::snprintf(facts, sizeof facts, "%.1f MB, %llu objects, walk %.0f ms, %.2f s after the request",
                          static_cast<double>(s.bytes) / 1e6, static_cast<unsigned long long>(s.nodes),
                          static_cast<double>(s.walk_ns) / 1e6, s.seconds_since_request);
            line("saved " + std::to_string(s.connection) + ": " + s.path + " (" + facts + ")" +
                 (verified.empty() ? "" : "; " + verified));
        }
        saved_.fetch_add(1);
    }
    void on_snapshot_discarded(ConnectionId id, uint64_t request, const std::string& message) override {
        if (options_.json) {
            event("discarded", [&](JsonWriter& json) {
                json.field("connection", id);
                json.field("request", request);
                json.field("message", message);
            });
        } else {
            line("discarded " + std::to_string(id) + ": " + peer_text(message));
        }
    }
    void on_snapshot_failed(ConnectionId id, uint64_t request, const std::string& reason) override {
        if (options_.json) {
            event("failed", [&](JsonWriter& json) {
                json.field("connection", id);
                json.field("request", request);
                json.field("reason", reason);
            });
        } else {
            line("failed " + std::to_string(id) + ": " + peer_text(reason));
        }
    }
    void on_pong(ConnectionId id, uint64_t nonce, double rtt) override {
        if (options_.json) {
            event("pong", [&](JsonWriter& json) {
                json.field("connection", id);
                json.field("nonce", nonce);
                json.key("rtt_seconds").value_fixed(rtt, 6);
            });
        } else {
            line("pong " + std::to_string(id) + ": " + std::to_string(rtt * 1000) + " ms");
        }
    }
    void on_disconnected(ConnectionId id, live::DisconnectReason reason, const std::string& message) override {
        if (options_.json) {
            event("disconnected", [&](JsonWriter& json) {
                json.field("connection", id);
                json.field("reason", live::to_string(reason));
                json.field("message", message);
            });
        } else {
            line("disconnected " + std::to_string(id) + ": " + live::to_string(reason) + ": " + peer_text(message));
        }
        disconnected_.fetch_add(1);
    }
    void on_log(live::LogLevel, const std::string& text) override {
        std::lock_guard<std::mutex> lock(mutex_);
        std::cerr << "refscope-cli: " << peer_text(text) << std::endl;
    }

    void line(const std::string& text) { write(text + '\n'); }

    // One --json event: {"event":NAME, then what `fields` writes}, compact,
    // so that it is exactly one line of JSON Lines.
    template <typename Fields>
    void event(std::string_view name, const Fields& fields) {
        std::ostringstream text;
        {
            JsonWriter json(text, JsonStyle::Compact);
            json.begin_object();
            json.field("event", name);
            fields(json);
            json.end_object();
        }  // the writer's destructor ends the line
        write(text.str());
    }

    uint64_t saved() const { return saved_.load(); }
    uint64_t connected() const { return connected_.load(); }
    uint64_t disconnected() const { return disconnected_.load(); }

private:
    const ListenOptions& options_;
    std::ostream& out_;
    live::Listener* listener_ = nullptr;
    std::mutex mutex_;
    std::atomic<uint64_t> saved_{0}, connected_{0}, disconnected_{0};

    // Whole lines under one lock: events come from the listener thread,
    // stdin warnings from the main one.
    void write(const std::string& text) {
        std::lock_guard<std::mutex> lock(mutex_);
        out_ << text << std::flush;  // scripts read events as they happen
    }
};

// One command line from standard input.
bool run_stdin_command(const std::string& text, live::Listener& listener, ListenPrinter& printer) {
    std::istringstream words(text);
    std::string verb, target;
    words >> verb >> target;
    if (verb.empty()) return true;
    if (verb == "quit" || verb == "exit") return false;
    std::vector<ConnectionId> ids;
    if (target == "all") {
        for (const auto& c : listener.connections()) ids.push_back(c.id);
    } else {
        uint64_t id = 0;
        const auto [end, ec] = std::from_chars(target.data(), target.data() + target.size(), id);
        if (ec != std::errc() || end != target.data() + target.size()) {
            printer.on_log(live::LogLevel::Warning, "stdin: '" + text + "': expected a connection number or 'all'");
            return true;
        }
        ids.push_back(id);
    }
    std::string rest;
    std::getline(words, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    for (ConnectionId id : ids) {
        if (verb == "snapshot") listener.request_snapshot(id, false, rest);
        else if (verb == "collect") listener.request_snapshot(id, true, rest);
        else if (verb == "ping") listener.ping(id);
        else if (verb == "label") listener.set_label(id, rest);
        else if (verb == "disconnect") listener.disconnect(id, rest.empty() ? "disconnect requested" : rest);
        else {
            printer.on_log(live::LogLevel::Warning, "stdin: unknown command '" + verb +
                                                        "' (snapshot, collect, ping, label, disconnect, quit)");
            break;
        }
    }
    return true;
}

void print_how_to_connect(const live::Listener& l, const ListenOptions& o, ListenPrinter& printer) {
    if (o.json) {
        printer.event("listening", [&](JsonWriter& json) {
            json.field("address", l.address());
            json.field("unix_address", l.unix_address());
            json.field("tcp_address", l.tcp_address());
            json.field("token_file", l.token_file());
            json.field("token", l.token_hex());
            json.field("session_dir", l.session_dir());
            json.field("pid", ::getpid());
        });
        return;
    }
    const live::ConnectCommands connect =
        live::connect_commands({l.address(), l.token_file(), l.token_hex(), {}});
    std::string text = "listening on " + l.address() + "\n";
    if (!l.unix_address().empty() && !l.tcp_address().empty()) text += "also on " + l.tcp_address() + "\n";
    if (!l.token_file().empty()) text += "token file: " + l.token_file() + " (mode 0600)\n";
    else text += "token: " + l.token_hex() + "\n";
    text += "session folder: " + l.session_dir() + "\n";
    // Shell-quoted: a --socket-dir with spaces still pastes as one word.
    text += "connect a program:\n  " + connect.run + "\n";
    text += "or a running one:\n  " + connect.attach + "\n";
    text += "commands on stdin: snapshot ID|all, collect ID|all, ping ID|all, label ID TEXT, disconnect ID|all, quit";
    printer.line(text);
}

void run_listen(const CliOptions& cli, std::ostream& out) {
    const ListenOptions o = parse_listen(cli);
    // Before anything is printed: a script may signal as soon as it reads
    // the address, and the private directory must still be removed.
    struct sigaction action {};
    action.sa_handler = on_signal;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGHUP, &action, nullptr);  // the terminal closed: clean up the same way
    ListenPrinter printer(o, out);
    live::Listener listener(o.listener, printer);
    printer.attach(listener);
    print_how_to_connect(listener, o, printer);

    std::thread loop([&] { listener.run(); });
    const auto start = std::chrono::steady_clock::now();
    auto next_auto = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(o.every_seconds));
    bool stdin_open = true;
    std::string pending;
    std::string failure;
    for (;;) {
        if (g_interrupted) break;
        if (o.count && printer.saved() >= o.count) break;
        if (o.exit_when_idle && printer.connected() > 0 && printer.disconnected() >= printer.connected() &&
            listener.connections().empty())
            break;
        const auto now = std::chrono::steady_clock::now();
        if (o.timeout_seconds > 0 && now - start > std::chrono::duration<double>(o.timeout_seconds)) {
            if (o.count) {
                char seconds[32];
                std::snprintf(seconds, sizeof seconds, "%g", o.timeout_seconds);
                failure = std::string("timed out after ") + seconds + " s with " +
                          std::to_string(printer.saved()) + " of " + std::to_string(o.count) + " snapshots saved";
            }
            break;
        }
        if (o.every_seconds > 0 && now >= next_auto) {
            for (const auto& c : listener.connections()) listener.request_snapshot(c.id, o.collect, "every");
            next_auto += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(o.every_seconds));
        }
        pollfd in{STDIN_FILENO, POLLIN, 0};
        const int ready = ::poll(&in, stdin_open ? 1 : 0, 50);
        if (ready > 0 && (in.revents & (POLLIN | POLLHUP))) {
            char buf[4096];
            const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
            if (n <= 0) {
                stdin_open = false;  // EOF: keep listening, without commands
                continue;
            }
            pending.append(buf, static_cast<size_t>(n));
            bool quit = false;
            for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
                const std::string command = pending.substr(0, nl);
                pending.erase(0, nl + 1);
                if (!run_stdin_command(command, listener, printer)) quit = true;
            }
            if (quit) break;
        }
    }
    listener.stop();
    loop.join();
    if (!failure.empty()) throw live::ListenError(failure);
}

void run_processes(const CliOptions& cli, std::ostream& out) {
    bool json = cli.json;
    for (const std::string& word : cli.live_args) {
        if (word != "--json")
            throw UsageError(Verb::Processes, "unknown option or argument '" + word + "' for 'processes'");
        json = true;
    }
    const std::vector<live::PythonProcess> list = live::list_python_processes();
    if (json) {
        JsonWriter w(out);
        w.begin_object();
        w.key("processes");
        w.begin_array();
        for (const live::PythonProcess& p : list) {
            w.begin_object();
            w.field("pid", p.pid);
            w.field("uid", p.uid);
            w.field("user", p.user);
            w.field("python_version", p.python_version);
            w.field("executable", p.executable);
            w.field("argv", p.argv);
            w.field("embedded", p.embedded);
            w.field("start_time_unix_ns", p.start_time_unix_ns);
            w.field("attachable", p.attachable);
            w.end_object();
        }
        w.end_array();
        w.end_object();
        return;
    }
    out << "    PID  PYTHON  USER      COMMAND\n";
    for (const live::PythonProcess& p : list) {
        char head[64];
        std::snprintf(head, sizeof head, "%7lld  %-6s  %-8s  ", static_cast<long long>(p.pid),
                      p.python_version.empty() ? "?" : peer_text(p.python_version, 6).c_str(),
                      peer_text(p.user, 8).c_str());
        std::string command = argv_text(p.argv);
        if (command.size() > 100) command = command.substr(0, 97) + "...";
        out << head << command << (p.attachable ? "" : "  (another user's)") << '\n';
    }
    if (list.empty()) out << "(no Python processes)\n";
}

}  // namespace

void run_live_verb(const CliOptions& options, std::ostream& out) {
    if (options.verb == Verb::Listen) run_listen(options, out);
    else if (options.verb == Verb::Processes) run_processes(options, out);
}

}  // namespace refscope::cli
