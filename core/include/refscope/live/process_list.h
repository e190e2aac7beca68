// The Python processes running on this machine, from /proc, for the app's
// "Attach to process…" dialog and `refscope-cli processes`. Linux only;
// nothing is executed and no process is touched.
//
// A process is a Python process when its executable is named python,
// python3 or python3.X, or when it has libpython3.X mapped (embedded
// interpreters: uwsgi, Blender...). The version is the minor version read
// from those names ("3.11"); the micro version would need the interpreter
// itself to be asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refscope::live {

struct PythonProcess {
    int64_t pid = 0;
    int64_t uid = -1;                  // real uid of the process
    std::string user;                  // its name, or the number
    std::string executable;            // /proc/PID/exe target ("" if not readable)
    std::vector<std::string> argv;     // /proc/PID/cmdline
    std::string python_version;        // "3.11"; "" when it could not be told
    bool embedded = false;             // libpython mapped into a non-python executable
    int64_t start_time_unix_ns = 0;
    // Same user as the caller (or the caller is root): attaching may work.
    bool attachable = false;
};

// Every Python process but the caller itself, by pid.
std::vector<PythonProcess> list_python_processes();

// One process; nothing if it does not exist or is not a Python process
// (`why` then says which, in one sentence).
std::optional<PythonProcess> describe_python_process(int64_t pid, std::string& why);

// The version in an executable or library name: "python3.11" -> "3.11",
// "libpython3.12.so.1.0" -> "3.12", "python3" -> "". Exposed for tests.
std::string python_version_from_name(const std::string& file_name);

}  // namespace refscope::live
