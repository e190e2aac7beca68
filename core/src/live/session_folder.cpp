// SessionFolder (session_folder.h).
#include "session_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "refscope/format/errno_text.h"

namespace refscope::live {

namespace {

using format::errno_text;

int64_t now_unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string base_name(int64_t pid, uint64_t sequence) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "pid%lld-%04llu", static_cast<long long>(pid),
                  static_cast<unsigned long long>(sequence));
    return buf;
}

std::string file_name_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not valid.
size_t utf8_length(const std::string& s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t n = 0;
    uint32_t min = 0;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
    else return 0;
    if (i + n > s.size()) return 0;
    uint32_t cp = c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (b(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

std::string argv_json(const std::vector<std::string>& argv) {
    std::string out = "[";
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i) out += ",";
        out += json_string(argv[i]);
    }
    return out + "]";
}

}  // namespace

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const size_t n = utf8_length(text, i);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (n > 1) {
            out.append(text, i, n);
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
        i += n;
    }
    return out + "\"";
}

SessionFolder::SessionFolder(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty()) throw ListenError("no session folder given");
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    std::error_code ec;
    if (std::filesystem::exists(dir_, ec)) {
        if (!std::filesystem::is_directory(dir_, ec))
            throw ListenError("session folder " + dir_ + " exists and is not a directory");
    } else {
        // Parents with the default mode, the folder itself private.
        const std::filesystem::path parent = std::filesystem::path(dir_).parent_path();
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
            throw ListenError("cannot create session folder " + dir_ + ": " + errno_text(errno));
    }
    // Another user's folder (a world-writable one someone prepared, say)
    // would let its owner read the snapshots, or swap files under them.
    struct stat st {};
    if (::stat(dir_.c_str(), &st) == 0 && st.st_uid != ::geteuid())
        throw ListenError("session folder " + dir_ + " belongs to another user (uid " + std::to_string(st.st_uid) +
                          "), who could read or replace the snapshots: choose a folder of your own");
    if (::access(dir_.c_str(), W_OK | X_OK) != 0)
        throw ListenError("cannot write to session folder " + dir_ + ": " + errno_text(errno));
}

int SessionFolder::create_partial(int64_t pid, uint64_t sequence, std::string& path) const {
    for (int attempt = 0; attempt < 100; ++attempt) {
        path = dir_ + "/." + base_name(pid, sequence) +
               (attempt ? "-" + std::to_string(attempt) : std::string()) + ".rscope.partial";
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        if (errno != EEXIST)
            throw ListenError("cannot create " + path + ": " + errno_text(errno));
    }
    throw ListenError("cannot create a temporary file in " + dir_ + ": 100 names taken");
}

std::string SessionFolder::final_path(int64_t pid, uint64_t sequence) const {
    const std::string base = dir_ + "/" + base_name(pid, sequence);
    std::string path = base + ".rscope";
    for (int n = 2; ::access(path.c_str(), F_OK) == 0; ++n) path = base + "-" + std::to_string(n) + ".rscope";
    return path;
}

std::string SessionFolder::append_line(const std::string& json) const {
    const std::string path = dir_ + "/session.jsonl";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot open " + path + ": " + errno_text(errno);
    // One write() per line: with O_APPEND the line lands whole even when
    // two listeners share the folder.
    const std::string line = json + "\n";
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(line.size()))
        return "cannot append to " + path + ": " + (n < 0 ? errno_text(err) : "short write");
    return {};
}

std::string SessionFolder::record_connected(const ConnectionInfo& info) const {
    const protocol::ProcessDescription& p = info.process;
    return append_line(
        "{\"event\":\"connected\",\"time_unix_ns\":" + std::to_string(now_unix_ns()) +
        ",\"connection\":" + std::to_string(info.id) + ",\"transport\":" + json_string(info.transport) +
        ",\"peer\":" + json_string(info.peer) + ",\"pid\":" + std::to_string(p.pid) +
        ",\"argv\":" + argv_json(p.argv) + ",\"executable\":" + json_string(p.executable) +
        ",\"python_version\":" + json_string(p.python_version) +
        ",\"python_hexversion\":" + std::to_string(p.python_hexversion) +
        ",\"probe_version\":" + json_string(p.probe_version) + ",\"platform\":" + json_string(p.platform) +
        ",\"start_time_unix_ns\":" + std::to_string(p.start_time_unix_ns) +
        ",\"label\":" + json_string(p.label) + ",\"attached\":" + (p.attached ? "true" : "false") + "}");
}

std::string SessionFolder::record_snapshot(const SavedSnapshot& s) const {
    return append_line("{\"event\":\"snapshot\",\"time_unix_ns\":" + std::to_string(now_unix_ns()) +
                       ",\"connection\":" + std::to_string(s.connection) + ",\"pid\":" + std::to_string(s.pid) +
                       ",\"file\":" + json_string(file_name_of(s.path)) +
                       ",\"sequence\":" + std::to_string(s.sequence) +
                       ",\"request\":" + std::to_string(s.request_id) + ",\"bytes\":" + std::to_string(s.bytes) +
                       ",\"collected\":" + (s.collected ? "true" : "false") +
                       ",\"nodes\":" + std::to_string(s.nodes) + ",\"edges\":" + std::to_string(s.edges) +
                       ",\"walk_ns\":" + std::to_string(s.walk_ns) + ",\"label\":" + json_string(s.label) + "}");
}

std::string SessionFolder::record_discarded(ConnectionId id, uint64_t request_id,
                                            const std::string& message) const {
    return append_line("{\"event\":\"discarded\",\"time_unix_ns\":" + std::to_string(now_unix_ns()) +
                       ",\"connection\":" + std::to_string(id) + ",\"request\":" + std::to_string(request_id) +
                       ",\"message\":" + json_string(message) + "}");
}

std::string SessionFolder::record_disconnected(ConnectionId id, DisconnectReason reason,
                                               const std::string& message) const {
    return append_line("{\"event\":\"disconnected\",\"time_unix_ns\":" + std::to_string(now_unix_ns()) +
                       ",\"connection\":" + std::to_string(id) + ",\"reason\":" +
                       json_string(to_string(reason)) + ",\"message\":" + json_string(message) + "}");
}

}  // namespace refscope::live
