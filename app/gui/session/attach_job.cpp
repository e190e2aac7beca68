#include "session/attach_job.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTimer>

#include "session/probe_location.h"

namespace refscope::app {

namespace {

// The last non-empty line of a command's standard error, for a message.
QString last_line(const QByteArray& text) {
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.back().trimmed()).left(300);
}

}  // namespace

AttachJob::AttachJob(QObject* parent) : QObject(parent), guard_(new QTimer(this)) {
    qRegisterMetaType<Outcome>();
    guard_->setSingleShot(true);
    connect(guard_, &QTimer::timeout, this, [this] {
        if (!process_) return;
        timed_out_ = true;
        process_->kill();
    });
}

AttachJob::~AttachJob() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

bool AttachJob::start(int64_t pid, const QString& address, const QString& tokenFile, const QString& label,
                      double timeoutSeconds) {
    if (running_) return false;
    running_ = true;
    cancelled_ = false;
    timed_out_ = false;
    pid_ = pid;
    const ProbeLocation probe = find_probe();
    if (!probe.usable()) {
        // Reported like any other outcome, after start() returned.
        QTimer::singleShot(0, this, [this, message = probe.error] { finish({false, pid_, QStringLiteral("no-probe-built"), message}); });
        arguments_.clear();
        return true;
    }
    arguments_ = {QStringLiteral("-m"), QStringLiteral("refscope"), QStringLiteral("attach"), QString::number(pid),
                  QStringLiteral("--address"), address, QStringLiteral("--token-file"), tokenFile,
                  QStringLiteral("--timeout"), QString::number(timeoutSeconds, 'f', 1), QStringLiteral("--json")};
    if (!label.isEmpty()) arguments_ << QStringLiteral("--label") << label;

    process_ = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), probe.packageDir);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    process_->setProcessEnvironment(env);
    process_->setProgram(probe.python);
    process_->setArguments(arguments_);
    process_->setStandardInputFile(QProcess::nullDevice());
    connect(process_, &QProcess::errorOccurred, this, [this, python = probe.python](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || !process_) return;
        const QString why = process_->errorString();
        process_->deleteLater();
        process_ = nullptr;
        finish({false, pid_, QStringLiteral("failed-to-start"),
                tr("cannot run %1 to attach: %2").arg(python, why)});
    });
    connect(process_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        if (!process_) return;
        const QByteArray out = process_->readAllStandardOutput();
        const QByteArray err = process_->readAllStandardError();
        process_->deleteLater();
        process_ = nullptr;
        guard_->stop();
        if (cancelled_) {
            // The command's own account: "cancelled" (the process will not
            // connect) or ok (it had begun to connect before the cancel).
            Outcome outcome = parseOutcome(pid_, out, err, status, exitCode);
            if (outcome.ok || outcome.code == QLatin1String("cancelled")) {
                finish(outcome);
            } else {
                // It had to be killed: whatever gdb had scheduled still stands.
                finish({false, pid_, QStringLiteral("cancelled"),
                         tr("attaching to process %1 was cancelled; the attach command had to be stopped, so if "
                            "gdb had already scheduled the connection the process may still connect (Disconnect "
                            "it in the Connections panel)")
                             .arg(pid_)});
            }
        } else if (timed_out_) {
            finish({false, pid_, QStringLiteral("timed-out"),
                    tr("attaching to process %1 did not finish in %2 s; it was stopped")
                        .arg(pid_)
                        .arg(clock_.elapsed() / 1000)});
        } else {
            finish(parseOutcome(pid_, out, err, status, exitCode));
        }
    });
    // The command waits timeoutSeconds for the target itself, and gives gdb
    // at most 60 s (probe/refscope/_attach.py); 20 s more for Python's
    // start-up before the command is taken for hung. Shorter, and the job
    // would give up while gdb still works and might yet connect the process.
    guard_->start(int((timeoutSeconds + 80.0) * 1000));
    clock_.start();
    emit progress(tr("attaching to process %1 (gdb waits for its interpreter to reach a safe point)…").arg(pid));
    process_->start();
    return true;
}

void AttachJob::cancel() {
    if (!process_ || cancelled_) return;
    cancelled_ = true;
    emit progress(tr("cancelling the attach to process %1…").arg(pid_));
    // SIGTERM: the attach command stops at once — or, when gdb is inside the
    // target, as soon as gdb is done (killing gdb there could break the
    // target) — and makes sure the process will not connect
    // (probe/refscope/_attach.py, Cancellation). Killed only if it has not
    // ended after gdb's own 60 s limit.
    process_->terminate();
    QTimer::singleShot(kCancelGraceMs, process_, [process = process_] { process->kill(); });
}

AttachJob::Outcome AttachJob::parseOutcome(int64_t pid, const QByteArray& standardOutput,
                                           const QByteArray& standardError, QProcess::ExitStatus status,
                                           int exitCode) {
    // The outcome is the last line that is a JSON object with "ok".
    const QList<QByteArray> lines = standardOutput.split('\n');
    for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
        const QJsonDocument document = QJsonDocument::fromJson(line->trimmed());
        if (!document.isObject() || !document.object().contains(QLatin1String("ok"))) continue;
        const QJsonObject object = document.object();
        Outcome outcome;
        outcome.ok = object.value(QLatin1String("ok")).toBool();
        outcome.pid = object.value(QLatin1String("pid")).toInteger(pid);
        outcome.code = outcome.ok ? QStringLiteral("ok") : object.value(QLatin1String("code")).toString();
        outcome.message = object.value(QLatin1String("message")).toString();
        if (outcome.message.isEmpty()) {
            outcome.message = outcome.ok ? tr("process %1 is connected").arg(pid)
                                         : tr("attaching to process %1 failed (%2)").arg(pid).arg(outcome.code);
        }
        return outcome;
    }
    Outcome outcome;
    outcome.pid = pid;
    const QString detail = last_line(standardError);
    if (status == QProcess::CrashExit) {
        outcome.code = QStringLiteral("crashed");
        outcome.message = tr("the attach command crashed before it could say whether process %1 is connected").arg(pid);
    } else {
        outcome.code = QStringLiteral("no-outcome");
        outcome.message = tr("the attach command ended (status %1) without saying whether process %2 is connected")
                              .arg(exitCode)
                              .arg(pid);
    }
    if (!detail.isEmpty()) outcome.message += QStringLiteral(": ") + detail;
    return outcome;
}

void AttachJob::finish(Outcome outcome) {
    running_ = false;
    emit finished(outcome);
}

}  // namespace refscope::app
