// The Python process list (process_list.h), read from /proc.
#include "refscope/live/process_list.h"
#include "refscope/protocol/process_facts.h"

#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace refscope::live {

namespace {

std::string read_file(const std::string& path, size_t limit = 1 << 20) {
    std::ifstream in(path, std::ios::binary);
    std::string data;
    if (!in) return data;
    data.resize(limit);
    in.read(data.data(), static_cast<std::streamsize>(limit));
    data.resize(static_cast<size_t>(in.gcount()));
    return data;
}

std::string read_link(const std::string& path) {
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return {};
    std::string s(buf, static_cast<size_t>(n));
    const std::string deleted = " (deleted)";
    if (s.ends_with(deleted)) s.resize(s.size() - deleted.size());
    return s;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "python", "python3", "python3.11", "python3.11d": a Python executable.
bool is_python_executable_name(const std::string& name) {
    if (!name.starts_with("python")) return false;
    for (size_t i = 6; i < name.size(); ++i) {
        const char c = name[i];
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && !(i + 1 == name.size() && (c == 'd' || c == 'm')))
            return false;
    }
    return true;
}

std::string user_name(int64_t uid) {
    passwd entry{};
    passwd* found = nullptr;
    char buf[1024];
    if (::getpwuid_r(static_cast<uid_t>(uid), &entry, buf, sizeof buf, &found) == 0 && found) return entry.pw_name;
    return std::to_string(uid);
}

// libpython3.X in the process's mappings: "3.X", else "".
std::string mapped_libpython(int64_t pid) {
    std::istringstream maps(read_file("/proc/" + std::to_string(pid) + "/maps", 4 << 20));
    std::string line;
    while (std::getline(maps, line)) {
        const size_t at = line.find("libpython3.");
        if (at == std::string::npos) continue;
        const std::string v = python_version_from_name(line.substr(at));
        if (!v.empty()) return v;
    }
    return {};
}

}  // namespace

std::string python_version_from_name(const std::string& file_name) {
    const std::string name = base_name(file_name);
    size_t at = 0;
    if (name.starts_with("libpython")) at = 9;
    else if (name.starts_with("python")) at = 6;
    else return {};
    // "3.11", then anything but a digit.
    size_t end = at;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == at || end >= name.size() || name[end] != '.') return {};
    size_t minor_end = end + 1;
    while (minor_end < name.size() && std::isdigit(static_cast<unsigned char>(name[minor_end]))) ++minor_end;
    if (minor_end == end + 1) return {};
    return name.substr(at, minor_end - at);
}

std::optional<PythonProcess> describe_python_process(int64_t pid, std::string& why) {
    const std::string dir = "/proc/" + std::to_string(pid);
    struct stat st {};
    if (pid <= 0 || ::stat(dir.c_str(), &st) != 0) {
        why = "no process " + std::to_string(pid);
        return std::nullopt;
    }
    PythonProcess p;
    p.pid = pid;
    p.uid = st.st_uid;
    p.user = user_name(p.uid);
    p.executable = read_link(dir + "/exe");
    const std::string cmdline = read_file(dir + "/cmdline");
    for (size_t at = 0; at < cmdline.size();) {
        const size_t end = cmdline.find('\0', at);
        p.argv.push_back(cmdline.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    // The executable's name when readable (same user), else argv[0]'s.
    const std::string exe_name = base_name(!p.executable.empty() ? p.executable
                                                                 : (p.argv.empty() ? std::string() : p.argv[0]));
    const bool python_named = is_python_executable_name(exe_name);
    p.python_version = python_version_from_name(exe_name);
    if (p.python_version.empty()) {
        // "python3" resolved nowhere (unreadable exe), or an embedding
        // program: the mapped libpython tells (readable for our own user).
        p.python_version = mapped_libpython(pid);
        if (!python_named && !p.python_version.empty()) p.embedded = true;
    }
    if (!python_named && !p.embedded) {
        why = "process " + std::to_string(pid) + " (" + exe_name + ") is not a Python process";
        return std::nullopt;
    }
    p.start_time_unix_ns = protocol::process_start_time_unix_ns(pid);
    p.attachable = ::geteuid() == 0 || static_cast<int64_t>(::geteuid()) == p.uid;
    return p;
}

std::vector<PythonProcess> list_python_processes() {
    std::vector<PythonProcess> out;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return out;
    const int64_t self = ::getpid();
    while (dirent* entry = ::readdir(proc)) {
        const std::string name = entry->d_name;
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            continue;
        const int64_t pid = std::stoll(name);
        if (pid == self) continue;
        std::string why;
        if (auto p = describe_python_process(pid, why)) out.push_back(std::move(*p));
    }
    ::closedir(proc);
    std::sort(out.begin(), out.end(), [](const PythonProcess& a, const PythonProcess& b) { return a.pid < b.pid; });
    return out;
}

}  // namespace refscope::live
