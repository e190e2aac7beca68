#include "session/live_session.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <QTimer>

#include "refscope/live/connect_command.h"
#include "refscope/live/listener.h"
#include "session/probe_location.h"

namespace refscope::app {

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

// A word for a shell, quoted the way the connect lines are.
QString shell_word(const QString& word) { return qs(live::shell_quote(word.toStdString())); }

// The connect lines for this listener, with the probe's folder on PYTHONPATH
// when the app knows where it is.
live::ConnectCommands connect_commands(const live::Listener& listener) {
    live::ConnectTarget target{listener.address(), listener.token_file(), listener.token_hex(), {}};
    const ProbeLocation probe = find_probe();
    if (probe.usable()) target.python_path = probe.packageDir.toStdString();
    return live::connect_commands(target);
}

QDateTime from_unix_ns(int64_t ns) {
    return ns > 0 ? QDateTime::fromMSecsSinceEpoch(ns / 1'000'000) : QDateTime::currentDateTime();
}

}  // namespace

QString LiveProcess::commandLine() const {
    if (argv.isEmpty()) return executable;
    QStringList words;
    for (const QString& word : argv) words << shell_word(word);
    return words.join(QLatin1Char(' '));
}

// The listener's observer: runs on the loop thread and posts every event to
// the session's thread. The QPointer is checked there, so an event posted
// just before the session was destroyed is dropped (Qt drops it with its
// context object anyway; the pointer also covers stop() + start()).
class LiveSession::Events : public live::ListenerObserver {
public:
    Events(LiveSession* session, uint64_t run) : session_(session), run_(run) {}

    // Events of an earlier run (queued before stop() returned) are dropped:
    // stop() reported its connections' end itself, and a new run numbers
    // its connections from 1 again.
    void post(std::function<void(LiveSession&)> event) {
        QMetaObject::invokeMethod(
            session_.data(),
            [session = session_, run = run_, event = std::move(event)] {
                if (session && session->run_ == run) event(*session);
            },
            Qt::QueuedConnection);
    }

    void on_connected(const live::ConnectionInfo& info) override {
        LiveProcess p;
        p.connection = info.id;
        p.pid = info.process.pid != 0 ? info.process.pid : info.peer_pid;
        for (const std::string& word : info.process.argv) p.argv << qs(word);
        p.executable = qs(info.process.executable);
        p.pythonVersion = qs(info.process.python_version).section(QLatin1Char(' '), 0, 0);
        p.label = qs(info.process.label);
        p.attached = info.process.attached;
        p.connectedAt = from_unix_ns(info.connected_unix_ns);
        p.lastMessage = p.attached ? QObject::tr("attached") : QObject::tr("connected");
        post([p](LiveSession& s) { s.onConnected(p); });
    }
    void on_refused(const std::string& peer, protocol::WelcomeStatus, const std::string& message) override {
        post([peer = qs(peer), message = qs(message)](LiveSession& s) { emit s.refused(peer, message); });
    }
    void on_snapshot_started(live::ConnectionId id, uint64_t request, uint64_t) override {
        if (hook_) hook_(id);
        post([id, request](LiveSession& s) {
            if (LiveProcess* p = s.find(id)) {
                if (p->requestInFlight == request) p->receiving = true;
                p->lastMessage = QObject::tr("receiving a snapshot…");
                s.changed(id);
            }
            emit s.snapshotStarted(id, request);
        });
    }
    void on_snapshot_saved(const live::SavedSnapshot& saved) override {
        post([id = saved.connection, request = saved.request_id, path = qs(saved.path)](LiveSession& s) {
            s.onSaved(id, request, path);
        });
    }
    void on_snapshot_discarded(live::ConnectionId id, uint64_t request, const std::string& message) override {
        post([id, request, message = qs(message)](LiveSession& s) {
            s.onRequestEnded(id, request, message);
            emit s.snapshotDiscarded(id, message);
        });
    }
    void on_snapshot_failed(live::ConnectionId id, uint64_t request, const std::string& reason) override {
        post([id, request, reason = qs(reason)](LiveSession& s) {
            s.onRequestEnded(id, request, QObject::tr("snapshot failed: %1").arg(reason));
            emit s.snapshotFailed(id, reason);
        });
    }
    void on_disconnected(live::ConnectionId id, live::DisconnectReason reason, const std::string& message) override {
        const bool gone = reason == live::DisconnectReason::ProcessExited;
        post([id, reason = QString::fromLatin1(live::to_string(reason)), gone, message = qs(message)](LiveSession& s) {
            s.onDisconnected(id, reason, gone, message);
        });
    }
    void on_log(live::LogLevel level, const std::string& line) override {
        post([warning = level == live::LogLevel::Warning, line = qs(line)](LiveSession& s) {
            emit s.logLine(line, warning);
        });
    }

    // The tests' hook (setSnapshotStartedHook): set before the loop starts,
    // then only called there.
    std::function<void(uint64_t)> hook_;

private:
    QPointer<LiveSession> session_;
    const uint64_t run_;
};

LiveSession::LiveSession(QObject* parent) : QObject(parent), auto_timer_(new QTimer(this)) {
    connect(auto_timer_, &QTimer::timeout, this, &LiveSession::requestAutomaticSnapshots);
}

LiveSession::~LiveSession() { stop(); }

QString LiveSession::defaultSessionDir() {
    // ~/.local/share/refscope/sessions: AppDataLocation would add the
    // organisation and the application name, both "refscope"
    // (…/refscope/refscope/sessions).
    const QString base =
        QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/refscope/sessions/");
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString dir = base + stamp;
    for (int n = 2; QFileInfo::exists(dir); ++n) dir = base + stamp + QLatin1Char('-') + QString::number(n);
    return dir;
}

bool LiveSession::start() { return start(Options{}); }

bool LiveSession::start(const Options& options) {
    if (listener_) return true;
    error_.clear();
    live::ListenerOptions listen;
    default_dir_ = options.sessionDir.isEmpty();
    listen.session_dir = (default_dir_ ? defaultSessionDir() : options.sessionDir).toStdString();
    listen.socket_dir = options.socketDir.toStdString();
    listen.tcp_port = options.tcpPort;
    if (options.handshakeTimeoutMs > 0) listen.handshake_timeout = std::chrono::milliseconds(options.handshakeTimeoutMs);
    if (options.stallTimeoutMs > 0) listen.stall_timeout = std::chrono::milliseconds(options.stallTimeoutMs);
    no_answer_notice_ms_ = options.noAnswerNoticeMs > 0 ? options.noAnswerNoticeMs : 30'000;
    auto events = std::make_unique<Events>(this, run_);
    if (started_hook_) {
        // The hook wants the pid; the loop thread learns it from connections().
        events->hook_ = [this, hook = started_hook_](uint64_t id) {
            int64_t pid = 0;
            for (const live::ConnectionInfo& info : listener_->connections()) {
                if (info.id == id) pid = info.process.pid;
            }
            hook(id, pid);
        };
    }
    try {
        listener_ = std::make_unique<live::Listener>(listen, *events);
    } catch (const std::exception& error) {
        error_ = tr("Cannot listen for processes: %1").arg(qs(error.what()));
        return false;
    }
    if (!processes_.empty()) {
        // Views read the records until the reset begins: clear them in between.
        emit processesAboutToReset();
        processes_.clear();
        emit processesReset();
    }
    events_ = std::move(events);
    loop_ = std::thread([listener = listener_.get()] { listener->run(); });
    emit logLine(tr("listening on %1 (session folder %2)").arg(address(), sessionDir()), false);
    emit listeningChanged(true);
    return true;
}

void LiveSession::stop() {
    if (!listener_) return;
    auto_timer_->stop();
    listener_->stop();
    if (loop_.joinable()) loop_.join();
    // What the loop reported before it stopped — a snapshot saved a moment
    // ago above all — is still queued for this thread: deliver it now, as
    // this run's, before the run ends and later events are dropped.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    if (!listener_) return;  // a receiver of those events stopped the session already
    const QString folder = sessionDir();
    listener_.reset();
    // A folder the session chose itself and that received no snapshot is
    // not worth keeping (it would pile up under ~/.local/share/refscope/sessions).
    // Only the index and the (then empty) folder are removed, nothing else.
    if (default_dir_ && QDir(folder).entryList({QStringLiteral("*.rscope")}, QDir::Files).isEmpty()) {
        QFile::remove(folder + QStringLiteral("/session.jsonl"));
        QDir().rmdir(folder);
    }
    events_.reset();
    // The loop's last events (ListenerStopped for each connection) are still
    // queued and are dropped as another run's: the end is reported here.
    ++run_;
    const QString reason = QString::fromLatin1(live::to_string(live::DisconnectReason::ListenerStopped));
    for (LiveProcess& p : processes_) {
        if (!p.connected) continue;
        p.connected = false;
        p.requestInFlight = 0;
        p.receiving = false;
        p.goneAt = QDateTime::currentDateTime();
        p.goneReason = reason;
        p.lastMessage = tr("the app stopped listening");
        emit processChanged(rowOf(p.connection));
        emit disconnected(p.connection, reason, false, p.lastMessage);
    }
    emit logLine(tr("stopped listening"), false);
    emit listeningChanged(false);
}

QString LiveSession::address() const { return listener_ ? qs(listener_->address()) : QString(); }
QString LiveSession::tokenFile() const { return listener_ ? qs(listener_->token_file()) : QString(); }
QString LiveSession::sessionDir() const { return listener_ ? qs(listener_->session_dir()) : QString(); }

QString LiveSession::runCommand() const { return listener_ ? qs(connect_commands(*listener_).run) : QString(); }

QString LiveSession::attachCommand() const {
    return listener_ ? qs(connect_commands(*listener_).attach) : QString();
}

int LiveSession::rowOf(uint64_t connection) const {
    for (size_t i = 0; i < processes_.size(); ++i) {
        if (processes_[i].connection == connection) return int(i);
    }
    return -1;
}

const LiveProcess* LiveSession::process(uint64_t connection) const {
    const int row = rowOf(connection);
    return row < 0 ? nullptr : &processes_[size_t(row)];
}

LiveProcess* LiveSession::find(uint64_t connection) {
    const int row = rowOf(connection);
    return row < 0 ? nullptr : &processes_[size_t(row)];
}

std::vector<uint64_t> LiveSession::connectedIds() const {
    std::vector<uint64_t> ids;
    for (const LiveProcess& p : processes_) {
        if (p.connected) ids.push_back(p.connection);
    }
    return ids;
}

void LiveSession::changed(uint64_t connection) {
    const int row = rowOf(connection);
    if (row >= 0) emit processChanged(row);
}

uint64_t LiveSession::takeSnapshot(uint64_t connection, bool collect, const QString& label) {
    LiveProcess* p = find(connection);
    if (!listener_ || !p || !p->connected || p->requestInFlight != 0) return 0;
    const uint64_t request = listener_->request_snapshot(connection, collect, label.toStdString());
    p->requestInFlight = request;
    p->receiving = false;
    p->lastMessage = collect ? tr("collect + snapshot requested") : tr("snapshot requested");
    changed(connection);
    QTimer::singleShot(no_answer_notice_ms_, this,
                       [this, connection, request, run = run_] { noticeNoAnswer(connection, request, run); });
    return request;
}

void LiveSession::noticeNoAnswer(uint64_t connection, uint64_t request, uint64_t run) {
    LiveProcess* p = find(connection);
    if (run != run_ || !p || !p->connected || p->requestInFlight != request || p->receiving) return;
    const int seconds = (no_answer_notice_ms_ + 999) / 1000;
    p->lastMessage = tr("no answer for %1 s: waiting for the GIL").arg(seconds);
    changed(connection);
    emit logLine(tr("pid %1 has not begun to answer the snapshot request for %2 s. The walk needs the GIL: "
                    "a process inside a long C call (a blocking read, a lock, native code that keeps the GIL) "
                    "answers once it runs Python again. Disconnect it to give up.")
                     .arg(p->pid)
                     .arg(seconds),
                 true);
}

int LiveSession::takeSnapshotOfAll(bool collect, const QString& label) {
    int asked = 0;
    for (const uint64_t id : connectedIds()) asked += takeSnapshot(id, collect, label) != 0 ? 1 : 0;
    return asked;
}

void LiveSession::setLabel(uint64_t connection, const QString& label) {
    LiveProcess* p = find(connection);
    if (!listener_ || !p || !p->connected) return;
    listener_->set_label(connection, label.toStdString());
    p->label = label;
    changed(connection);
}

void LiveSession::disconnectProcess(uint64_t connection) {
    if (listener_) listener_->disconnect(connection);
}

void LiveSession::setAutomaticSnapshots(int seconds, bool collect) {
    auto_seconds_ = seconds > 0 ? seconds : 0;
    auto_collect_ = collect;
    if (auto_seconds_ == 0) {
        auto_timer_->stop();
    } else {
        auto_timer_->start(auto_seconds_ * 1000);
    }
}

void LiveSession::setSnapshotStartedHook(std::function<void(uint64_t, int64_t)> hook) {
    started_hook_ = std::move(hook);
}

void LiveSession::setAutomaticSnapshotGate(std::function<bool()> ready) { auto_gate_ = std::move(ready); }

void LiveSession::requestAutomaticSnapshots() {
    if (!listener_) return;
    if (auto_gate_ && !auto_gate_()) return;  // the app is still busy with the last ones: skip this tick
    takeSnapshotOfAll(auto_collect_, tr("every %1 s").arg(auto_seconds_));
}

void LiveSession::onConnected(LiveProcess process) {
    const uint64_t id = process.connection;
    if (find(id)) return;  // never twice for one connection id
    // The listener logs the connection itself (on_log).
    processes_.push_back(std::move(process));
    emit processAdded(int(processes_.size()) - 1);
    emit connected(id);
}

void LiveSession::onSaved(uint64_t connection, uint64_t request, const QString& path) {
    if (LiveProcess* p = find(connection)) {
        if (request != 0 && p->requestInFlight == request) {
            p->requestInFlight = 0;
            p->receiving = false;
        }
        ++p->snapshotsSaved;
        p->latestSnapshot = path;
        p->lastMessage = tr("saved %1").arg(QFileInfo(path).fileName());
        changed(connection);
    }
    emit logLine(tr("saved %1").arg(QDir::toNativeSeparators(path)), false);
    emit snapshotSaved(connection, path);
}

void LiveSession::onRequestEnded(uint64_t connection, uint64_t request, const QString& message) {
    if (LiveProcess* p = find(connection)) {
        // An unasked snapshot (request 0) that fails leaves the request in
        // flight alone: that one is still being answered.
        if (request != 0 && p->requestInFlight == request) {
            p->requestInFlight = 0;
            p->receiving = false;
        }
        p->lastMessage = message;
        changed(connection);
    }
}

void LiveSession::onDisconnected(uint64_t connection, const QString& reason, bool processGone,
                                 const QString& message) {
    if (LiveProcess* p = find(connection)) {
        p->connected = false;
        p->processExited = processGone;
        p->requestInFlight = 0;
        p->receiving = false;
        p->goneAt = QDateTime::currentDateTime();
        p->goneReason = reason;
        p->lastMessage = message.isEmpty() ? reason : message;
        changed(connection);
    }
    emit disconnected(connection, reason, processGone, message);
}

}  // namespace refscope::app
