#include "live_test_support.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <QDeadlineTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "session/live_session.h"

namespace refscope::testing {

app::ProbeLocation test_probe() { return app::find_probe(); }

QString program(const char* name) { return QStringLiteral(REFSCOPE_LIVE_PROGRAMS_DIR "/") + QLatin1String(name); }

PythonTarget::PythonTarget(const QString& script, const QStringList& arguments, const QString& address,
                           const QString& tokenFile, const QString& token) {
    const app::ProbeLocation probe = test_probe();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), probe.packageDir);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    env.remove(QStringLiteral("REFSCOPE_CONNECT"));
    env.remove(QStringLiteral("REFSCOPE_TOKEN_FILE"));
    env.remove(QStringLiteral("REFSCOPE_TOKEN"));
    if (!address.isEmpty()) {
        env.insert(QStringLiteral("REFSCOPE_CONNECT"), address);
        if (!tokenFile.isEmpty()) env.insert(QStringLiteral("REFSCOPE_TOKEN_FILE"), tokenFile);
        if (!token.isEmpty()) env.insert(QStringLiteral("REFSCOPE_TOKEN"), token);
    }
    process_.setProcessEnvironment(env);
    process_.setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(&process_, &QProcess::readyReadStandardOutput, &process_,
                     [this] { output_ += QString::fromUtf8(process_.readAllStandardOutput()); });
    process_.start(probe.python, QStringList{script} + arguments);
}

PythonTarget::~PythonTarget() {
    if (process_.state() != QProcess::NotRunning) {
        process_.kill();
        process_.waitForFinished(10'000);
    }
}

bool PythonTarget::waitReady(int ms) {
    return QTest::qWaitFor([this] { return output_.contains(QLatin1String("\"ready\"")); }, ms);
}

bool process_ended(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) return true;
    const QByteArray text = stat.readAll();
    // "pid (comm) S ...": the state follows the last ')'.
    const int close = text.lastIndexOf(')');
    return close < 0 || close + 2 >= text.size() || text[close + 2] == 'Z' || text[close + 2] == 'X';
}

void kill9_and_wait(qint64 pid) {
    if (pid <= 0) return;
    ::kill(pid_t(pid), SIGKILL);
    // Not through the event loop: the caller may be the listener's thread.
    const QDeadlineTimer deadline(5000);
    while (!process_ended(pid) && !deadline.hasExpired()) QThread::msleep(2);
}

void PythonTarget::kill9() { kill9_and_wait(pid()); }

int garbage_client(const QString& address) {
    const QByteArray path = address.mid(int(qstrlen("unix:"))).toLocal8Bit();
    sockaddr_un where{};
    where.sun_family = AF_UNIX;
    if (size_t(path.size()) >= sizeof where.sun_path) return -1;
    std::memcpy(where.sun_path, path.constData(), size_t(path.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&where), sizeof where) != 0) {
        ::close(fd);
        return -1;
    }
    const char request[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    if (::send(fd, request, sizeof request - 1, MSG_NOSIGNAL) < 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool start_session(app::LiveSession& session, const QTemporaryDir& dir) {
    app::LiveSession::Options options;
    options.sessionDir = dir.filePath(QStringLiteral("session"));
    if (!session.start(options)) {
        qWarning("cannot start: %s", qPrintable(session.errorString()));
        return false;
    }
    return true;
}

ScopedEnvironment::ScopedEnvironment(std::initializer_list<const char*> names) {
    for (const char* name : names) saved_.emplace_back(name, qgetenv(name));
}

ScopedEnvironment::~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
}

}  // namespace refscope::testing
