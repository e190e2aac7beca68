// AttachJob: connects a running Python process to the app's listener
// without changing its code, by running the probe's own attach command
// (docs/live-probe.md, "Attaching to a running process") in a QProcess:
//
//   <python> -m refscope attach PID --address A --token-file F --label L --json
//
// with PYTHONPATH = the probe's package directory (probe_location.h). The
// command prints one JSON object ({ok, pid, code, message}); the job reports
// ok, or the code and the command's own message — and one clear sentence of
// its own when there is no probe, when the command cannot be started,
// crashes, or prints no outcome. Nothing blocks the GUI thread; cancel()
// asks the command to stop (SIGTERM), which it does without leaving the
// process to connect later.
//
// The command holds the target under gdb for a moment and then waits (up to
// `timeoutSeconds`) for the target's main thread to run the bootstrap; a
// guard timer kills it if it outlives that by far.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>

class QTimer;

namespace refscope::app {

class AttachJob : public QObject {
    Q_OBJECT

public:
    struct Outcome {
        bool ok = false;
        int64_t pid = 0;
        // The attach command's code ("gone", "permission", "no-probe",
        // "unconfirmed"...), or the job's: "no-probe-built", "failed-to-start",
        // "crashed", "no-outcome", "cancelled".
        QString code;
        QString message;   // one sentence for people
    };

    explicit AttachJob(QObject* parent = nullptr);
    // Kills a running command.
    ~AttachJob() override;

    // Starts the attach. False (and `finished` is not emitted) when a job
    // is already running; a missing probe is reported through `finished`.
    bool start(int64_t pid, const QString& address, const QString& tokenFile, const QString& label = {},
               double timeoutSeconds = 10.0);
    // Stops the command (SIGTERM; SIGKILL after kCancelGraceMs); `finished`
    // follows with code "cancelled" — or ok, if the process had begun to
    // connect before the cancel reached it.
    void cancel();
    static constexpr int kCancelGraceMs = 70'000;
    bool isRunning() const { return running_; }
    // The command line of the last start (for the log and the tests).
    QStringList lastArguments() const { return arguments_; }

    // How `finished` reads the command's output; exposed for tests.
    static Outcome parseOutcome(int64_t pid, const QByteArray& standardOutput, const QByteArray& standardError,
                                QProcess::ExitStatus status, int exitCode);

signals:
    // A line of what is going on ("running gdb on process 1234…").
    void progress(const QString& text);
    void finished(const refscope::app::AttachJob::Outcome& outcome);

private:
    void finish(Outcome outcome);

    QProcess* process_ = nullptr;
    QTimer* guard_;
    QElapsedTimer clock_;
    int64_t pid_ = 0;
    bool running_ = false;
    bool cancelled_ = false;
    bool timed_out_ = false;
    QStringList arguments_;
};

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::AttachJob::Outcome)
