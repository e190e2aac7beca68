// The connect command lines (connect_command.h).
#include "refscope/live/connect_command.h"

namespace refscope::live {

namespace {

// Characters that mean nothing to a POSIX shell inside a word. '=' means
// something only in a command's first word (an assignment), and a quoted
// value never stands there.
bool plain_character(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("-_./:=@%+,").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view word) {
    bool plain = !word.empty();
    for (const char c : word) plain = plain && plain_character(c);
    if (plain) return std::string(word);
    std::string quoted = "'";
    for (const char c : word) {
        if (c == '\'') quoted += "'\\''";  // close, an escaped quote, reopen
        else quoted += c;
    }
    return quoted + "'";
}

ConnectCommands connect_commands(const ConnectTarget& target) {
    const bool file = !target.token_file.empty();
    const std::string python_path =
        target.python_path.empty() ? std::string() : "PYTHONPATH=" + shell_quote(target.python_path) + " ";
    ConnectCommands commands;
    commands.run = "REFSCOPE_CONNECT=" + shell_quote(target.address) + " " +
                   (file ? "REFSCOPE_TOKEN_FILE=" + shell_quote(target.token_file)
                         : "REFSCOPE_TOKEN=" + shell_quote(target.token_hex)) +
                   " " + python_path + "python3 -m refscope run app.py";
    commands.attach = python_path + "python3 -m refscope attach PID --address " + shell_quote(target.address) +
                      (file ? " --token-file " + shell_quote(target.token_file)
                            : " --token " + shell_quote(target.token_hex));
    return commands;
}

}  // namespace refscope::live
