// Shared by the live app tests: real Python targets (tests/live/programs)
// run with the probe on PYTHONPATH, connected to the app's listener through
// REFSCOPE_CONNECT and REFSCOPE_TOKEN_FILE, as a person would start them.
#pragma once

#include <sys/types.h>

#include <initializer_list>
#include <utility>
#include <vector>

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "session/probe_location.h"

class QTemporaryDir;
namespace refscope::app {
class LiveSession;
}

// Skips the test function, saying why, when no probe was built for the
// targets (test_probe() is unusable). For Qt Test functions.
#define REQUIRE_PROBE()                                                                                  \
    do {                                                                                                 \
        const ::refscope::app::ProbeLocation probe_ = ::refscope::testing::test_probe();                 \
        if (!probe_.usable()) QSKIP(qPrintable(QStringLiteral("no probe was built: ") + probe_.error));  \
    } while (false)

namespace refscope::testing {

// The probe the app itself would use (compiled in, or REFSCOPE_PYTHON and
// REFSCOPE_PYTHON_PACKAGE_DIR: the sanitizer build has no probe of its own
// and is pointed at the dev build's).
app::ProbeLocation test_probe();

// tests/live/programs/NAME.
QString program(const char* name);

// A Python program under test. Killed (SIGKILL) and reaped by the destructor.
class PythonTarget {
public:
    // Runs `script` with `arguments`; when `address` is given, the program
    // connects at start-up (REFSCOPE_CONNECT / REFSCOPE_TOKEN_FILE, or
    // REFSCOPE_TOKEN when `token` is given instead of a file).
    PythonTarget(const QString& script, const QStringList& arguments, const QString& address = {},
                 const QString& tokenFile = {}, const QString& token = {});
    ~PythonTarget();
    PythonTarget(const PythonTarget&) = delete;
    PythonTarget& operator=(const PythonTarget&) = delete;

    // Waits for the program's {"event": "ready"} line.
    bool waitReady(int ms = 20'000);
    qint64 pid() const { return process_.processId(); }
    // SIGKILL; returns once the kernel has ended it (a zombie until reaped).
    void kill9();
    QString output() const { return output_; }

private:
    QProcess process_;
    QString output_;
};

// True once `pid` has exited (zombie or reaped).
bool process_ended(qint64 pid);
// A client that connects to the Unix socket of `address` ("unix:PATH") and
// sends an HTTP request instead of the protocol; its fd (-1 if it could not).
int garbage_client(const QString& address);

// SIGKILL, then waits (without the event loop: any thread) until it ended.
void kill9_and_wait(qint64 pid);

// Starts `session` in `dir`/session; false (with a warning saying why) if it
// cannot.
bool start_session(app::LiveSession& session, const QTemporaryDir& dir);

// Puts the named environment variables back as they were (set or not) when
// it goes out of scope, for tests that point the app elsewhere.
class ScopedEnvironment {
public:
    explicit ScopedEnvironment(std::initializer_list<const char*> names);
    ~ScopedEnvironment();
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    std::vector<std::pair<const char*, QByteArray>> saved_;  // a null value: was not set
};

}  // namespace refscope::testing
