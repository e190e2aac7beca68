// The connect command lines (core/src/live/connect_command.cpp) that the
// CLI and the app print for pasting into a shell: plain words stay as they
// are, anything else is single-quoted, and /bin/sh reads each quoted word
// back as exactly the original text.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "refscope/live/connect_command.h"

namespace refscope::live {
namespace {

// What /bin/sh makes of `line`: its words, one per line (printf '%s\n').
std::string shell_words(const std::string& line) {
    const std::string command = "printf '%s\\n' " + line;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return "popen failed";
    std::string out;
    char buffer[256];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
    return out;
}

TEST(ConnectCommand, PlainWordsAreNotQuoted) {
    EXPECT_EQ(shell_quote("unix:/run/user/1000/refscope-Ab12Cd/live.sock"),
              "unix:/run/user/1000/refscope-Ab12Cd/live.sock");
    EXPECT_EQ(shell_quote("tcp:127.0.0.1:40123"), "tcp:127.0.0.1:40123");
    EXPECT_EQ(shell_quote("a-b_c.d/e:f=g@h%i+j,k"), "a-b_c.d/e:f=g@h%i+j,k");
}

TEST(ConnectCommand, OtherWordsAreSingleQuoted) {
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("/tmp/my dir/token"), "'/tmp/my dir/token'");
    EXPECT_EQ(shell_quote("/tmp/it's/token"), "'/tmp/it'\\''s/token'");
    EXPECT_EQ(shell_quote("'"), "''\\'''");
    EXPECT_EQ(shell_quote("$HOME`x`\"*?~;&|<>()\\"), "'$HOME`x`\"*?~;&|<>()\\'");
    EXPECT_EQ(shell_quote("caf\xc3\xa9"), "'caf\xc3\xa9'");  // non-ASCII: quoted, bytes kept
}

TEST(ConnectCommand, TheShellReadsQuotedWordsBack) {
    for (const std::string word : {"/tmp/my dir/token", "/tmp/it's/token", "''", "a\"b\\c$d`e`",
                                   "tab\there", "new\nline", "*", "~", "plain"}) {
        EXPECT_EQ(shell_words(shell_quote(word)), word + "\n") << word;
    }
}

TEST(ConnectCommand, LinesWithATokenFile) {
    const ConnectCommands plain = connect_commands({"unix:/run/r/live.sock", "/run/r/token", "00ff", {}});
    EXPECT_EQ(plain.run,
              "REFSCOPE_CONNECT=unix:/run/r/live.sock REFSCOPE_TOKEN_FILE=/run/r/token python3 -m refscope run "
              "app.py");
    EXPECT_EQ(plain.attach, "python3 -m refscope attach PID --address unix:/run/r/live.sock --token-file /run/r/token");

    const ConnectCommands quoted =
        connect_commands({"unix:/tmp/Bob's dir/live.sock", "/tmp/Bob's dir/token", "00ff", "/opt/my probe"});
    EXPECT_EQ(quoted.run,
              "REFSCOPE_CONNECT='unix:/tmp/Bob'\\''s dir/live.sock' REFSCOPE_TOKEN_FILE='/tmp/Bob'\\''s dir/token' "
              "PYTHONPATH='/opt/my probe' python3 -m refscope run app.py");
    EXPECT_EQ(quoted.attach,
              "PYTHONPATH='/opt/my probe' python3 -m refscope attach PID --address 'unix:/tmp/Bob'\\''s "
              "dir/live.sock' --token-file '/tmp/Bob'\\''s dir/token'");
    EXPECT_EQ(shell_words(quoted.attach),
              "PYTHONPATH=/opt/my probe\npython3\n-m\nrefscope\nattach\nPID\n--address\nunix:/tmp/Bob's "
              "dir/live.sock\n--token-file\n/tmp/Bob's dir/token\n");
}

TEST(ConnectCommand, LinesWithoutATokenFileCarryTheToken) {
    // listen --no-unix --tcp PORT: no private directory, so no token file.
    const ConnectCommands c = connect_commands({"tcp:127.0.0.1:40123", "", "00112233", {}});
    EXPECT_EQ(c.run, "REFSCOPE_CONNECT=tcp:127.0.0.1:40123 REFSCOPE_TOKEN=00112233 python3 -m refscope run app.py");
    EXPECT_EQ(c.attach, "python3 -m refscope attach PID --address tcp:127.0.0.1:40123 --token 00112233");
}

}  // namespace
}  // namespace refscope::live
