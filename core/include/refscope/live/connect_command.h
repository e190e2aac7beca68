// The command lines that connect a Python program to a receiver, as the CLI
// (`refscope-cli listen`) and the app (Connections panel) show them for
// copying into a shell:
//
//   REFSCOPE_CONNECT=unix:/run/user/1000/refscope-Ab12Cd/live.sock REFSCOPE_TOKEN_FILE=/run/…/token
//       python3 -m refscope run app.py                       (one line)
//   python3 -m refscope attach PID --address unix:/…/live.sock --token-file /…/token
//
// Built once here so that both quote the same way: a socket directory or
// PYTHONPATH chosen by the user may hold spaces or quotes, and a line pasted
// into a shell must still pass each as one word.
#pragma once

#include <string>
#include <string_view>

namespace refscope::live {

// `word` as one POSIX shell word: unchanged when it holds only characters no
// shell treats specially (ASCII letters, digits and -_./:=@%+,), else in
// single quotes with each ' written '\''. An empty word is ''.
std::string shell_quote(std::string_view word);

struct ConnectTarget {
    std::string address;      // Listener::address(): REFSCOPE_CONNECT, --address
    std::string token_file;   // preferred: the token stays off command lines and out of `ps`
    std::string token_hex;    // used only when there is no token file
    std::string python_path;  // a folder holding the probe's package, for PYTHONPATH; empty: none
};

struct ConnectCommands {
    std::string run;     // start a program connected: REFSCOPE_CONNECT=... python3 -m refscope run app.py
    std::string attach;  // connect a running one: python3 -m refscope attach PID --address ...
};

ConnectCommands connect_commands(const ConnectTarget& target);

}  // namespace refscope::live
