// LiveSession: the desktop app's receiver for the live connection
// (docs/protocol.md, "Receiving, for the app"). It owns core's
// live::Listener — the session folder, the private socket directory and the
// token — and runs its loop on a worker thread of its own.
//
// Threads: every ListenerObserver callback arrives on the loop thread; the
// session posts it to its own thread (QMetaObject::invokeMethod with the
// session as context) and only there updates its records and emits signals.
// So receivers run on the session's (the GUI) thread, and callbacks posted
// after the session is gone are dropped with it. stop() (and the destructor)
// stops the loop and joins the thread: no thread outlives the window.
//
// Per process it keeps what a person wants to see, also after the process
// is gone: pid, command line, Python version, when it connected, its state
// (connected, or gone with the reason), snapshots saved and the last thing
// that happened. Commands go to one process or to all; a process has at most
// one snapshot request in flight — a command for a process that is still
// answering the last one is refused (and automatic snapshots skip it)
// rather than queued behind a slow snapshot. A request that no snapshot has
// begun to answer after a while (noAnswerNoticeMs) is logged with the
// likely reason: the walk needs the GIL, and a process stuck in a long C
// call never lets it go. It stays in flight (the probe answers once the
// process runs Python again); disconnecting gives up on it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace refscope::live {
class Listener;
}

namespace refscope::app {

// What the session knows about one connected (or formerly connected) process.
struct LiveProcess {
    uint64_t connection = 0;          // the listener's connection id
    int64_t pid = 0;
    QStringList argv;
    QString executable;
    QString pythonVersion;            // "3.11.2" (the first word of sys.version)
    QString label;
    bool attached = false;            // connected through attach, not at start-up
    QDateTime connectedAt;
    QDateTime goneAt;                 // invalid while connected
    bool connected = true;
    bool processExited = false;       // gone because the process exited (not just the connection)
    QString goneReason;               // "process exited", "connection lost"...
    int snapshotsSaved = 0;
    QString latestSnapshot;           // path of the last saved snapshot
    QString lastMessage;              // the last thing that happened, for the table
    uint64_t requestInFlight = 0;     // 0: none
    bool receiving = false;           // a snapshot answering requestInFlight is arriving

    // "python3 app.py --port 80" (argv joined), or the executable.
    QString commandLine() const;
};

class LiveSession : public QObject {
    Q_OBJECT

public:
    struct Options {
        // Where snapshots and session.jsonl go. Empty: defaultSessionDir().
        QString sessionDir;
        // The private socket directory. Empty: a new one the listener removes again.
        QString socketDir;
        // Also listen on TCP 127.0.0.1 (0: a free port).
        std::optional<uint16_t> tcpPort;
        // Handshake and stall limits (tests shorten them); 0 = the listener's default.
        int handshakeTimeoutMs = 0;
        int stallTimeoutMs = 0;
        // A request no snapshot has begun to answer after this long is
        // logged as unanswered (tests shorten it); 0 = 30 s.
        int noAnswerNoticeMs = 0;
    };

    explicit LiveSession(QObject* parent = nullptr);
    // Stops listening and joins the loop thread.
    ~LiveSession() override;

    LiveSession(const LiveSession&) = delete;
    LiveSession& operator=(const LiveSession&) = delete;

    // A new timestamped folder name under ~/.local/share/refscope/sessions
    // (GenericDataLocation; not created).
    static QString defaultSessionDir();

    // Starts listening. False, with errorString() one clear sentence, when
    // it cannot (the folder cannot be made, the socket cannot be bound...).
    // The records of an earlier run are cleared (processesReset) once the
    // new one listens; until then they stay, shown as gone.
    bool start(const Options& options);
    bool start();  // with the default Options
    // Stops the loop, joins its thread, closes every connection (partial
    // snapshots are discarded), removes the socket and token. A default
    // session folder that received no snapshot is removed. Idempotent.
    void stop();
    bool isListening() const { return listener_ != nullptr; }
    QString errorString() const { return error_; }

    // While listening (else empty).
    QString address() const;
    QString tokenFile() const;
    QString sessionDir() const;
    // Ready-made command lines for a person to paste into a shell: run a
    // program connected, and attach a running one ("PID" stands for its pid).
    // With the probe's package directory on PYTHONPATH when the app knows it.
    QString runCommand() const;
    QString attachCommand() const;

    const std::vector<LiveProcess>& processes() const { return processes_; }
    // Row of the process on `connection` in processes(), or -1.
    int rowOf(uint64_t connection) const;
    const LiveProcess* process(uint64_t connection) const;
    // The connected processes' connection ids.
    std::vector<uint64_t> connectedIds() const;

    // Asks one process for a snapshot (after gc.collect() with `collect`).
    // Returns the request id, or 0 when it is not connected or a request of
    // it is still in flight (one at a time: never queued behind a slow one).
    uint64_t takeSnapshot(uint64_t connection, bool collect, const QString& label = {});
    // Every connected process without a request in flight; returns how many were asked.
    int takeSnapshotOfAll(bool collect, const QString& label = {});
    void setLabel(uint64_t connection, const QString& label);
    void disconnectProcess(uint64_t connection);

    // Automatic snapshots of every connected process every `seconds`
    // (0: off). A process still answering the previous request is skipped.
    void setAutomaticSnapshots(int seconds, bool collect = false);
    int automaticInterval() const { return auto_seconds_; }
    // Automatic snapshots skip a tick while `ready` returns false: the
    // window sets it to "not still loading the last ones", so a timer
    // faster than the analysis cannot queue up files and work.
    void setAutomaticSnapshotGate(std::function<bool()> ready);

    // Tests: called on the loop thread when a snapshot starts arriving,
    // before the event is posted (a test freezes the loop there the way
    // SIGSTOP freezes `refscope-cli listen`). Set before start().
    void setSnapshotStartedHook(std::function<void(uint64_t connection, int64_t pid)> hook);

signals:
    void listeningChanged(bool listening);
    void processAdded(int row);
    // processes() is about to be emptied (a new start()), then was.
    void processesAboutToReset();
    void processesReset();
    void processChanged(int row);
    void connected(uint64_t connection);
    // A connection whose handshake was refused (wrong token, version...).
    void refused(const QString& peer, const QString& message);
    void snapshotStarted(uint64_t connection, uint64_t request);
    void snapshotSaved(uint64_t connection, const QString& path);
    void snapshotDiscarded(uint64_t connection, const QString& message);
    void snapshotFailed(uint64_t connection, const QString& reason);
    // `processGone`: the process exited (not only its connection).
    void disconnected(uint64_t connection, const QString& reason, bool processGone, const QString& message);
    // Every refusal, drop, discard and connection, as one line.
    void logLine(const QString& line, bool warning);

private:
    class Events;
    friend class Events;

    LiveProcess* find(uint64_t connection);
    void changed(uint64_t connection);
    void requestAutomaticSnapshots();
    void noticeNoAnswer(uint64_t connection, uint64_t request, uint64_t run);
    void onConnected(LiveProcess process);
    void onSaved(uint64_t connection, uint64_t request, const QString& path);
    void onRequestEnded(uint64_t connection, uint64_t request, const QString& message);
    void onDisconnected(uint64_t connection, const QString& reason, bool processGone, const QString& message);

    std::unique_ptr<Events> events_;
    std::unique_ptr<live::Listener> listener_;
    std::thread loop_;
    uint64_t run_ = 0;           // start()/stop() cycles: events carry the run they belong to
    bool default_dir_ = false;   // the session folder is defaultSessionDir(), not the caller's
    int no_answer_notice_ms_ = 30'000;
    QString error_;
    std::vector<LiveProcess> processes_;
    QTimer* auto_timer_;
    int auto_seconds_ = 0;
    bool auto_collect_ = false;
    std::function<void(uint64_t, int64_t)> started_hook_;
    std::function<bool()> auto_gate_;
};

}  // namespace refscope::app
