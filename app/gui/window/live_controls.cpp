#include "window/live_controls.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "session/live_session.h"
#include "session/session_folder_files.h"
#include "session/snapshot_loader.h"
#include "session/snapshot_timeline.h"
#include "window/attach_dialog.h"
#include "window/connections_panel.h"
#include "window/main_window.h"

namespace refscope::app {

namespace {

const QString kSessionDirectoryKey = QStringLiteral("live/lastSessionFolder");

QString canonical(const QString& path) { return SnapshotTimeline::canonicalPath(path); }

}  // namespace

LiveControls::LiveControls(MainWindow* window)
    : QObject(window), window_(window), session_(new LiveSession(this)) {
    panel_ = new ConnectionsPanel(session_, window_);
    dock_ = new QDockWidget(tr("Connections"), window_);
    dock_->setObjectName(QStringLiteral("connectionsDock"));
    dock_->setWidget(panel_);
    window_->addDockWidget(Qt::BottomDockWidgetArea, dock_);
    dock_->hide();  // until the person connects a process (restoreState may show it)

    buildActions();

    connect(panel_, &ConnectionsPanel::takeSnapshotRequested, this, [this](bool collect) { takeSnapshot(collect); });
    connect(panel_, &ConnectionsPanel::markBaselineRequested, this, &LiveControls::markBaseline);
    connect(panel_, &ConnectionsPanel::attachRequested, this, &LiveControls::showAttachDialog);
    connect(panel_, &ConnectionsPanel::listenRequested, this, [this](bool listen) {
        if (listen) {
            startListening();
        } else {
            stopListening();
        }
    });
    connect(session_, &LiveSession::snapshotSaved, this, &LiveControls::onSnapshotSaved);
    connect(session_, &LiveSession::snapshotDiscarded, this, [this](uint64_t, const QString& message) {
        showStatus(message, 10000);
    });
    connect(session_, &LiveSession::connected, this, [this](uint64_t connection) {
        if (const LiveProcess* p = session_->process(connection)) {
            showStatus(tr("Process %1 connected (%2)").arg(p->pid).arg(p->commandLine()));
        }
        showDock();
    });
    connect(session_, &LiveSession::disconnected, this,
            [this](uint64_t connection, const QString& reason, bool gone, const QString&) {
                if (const LiveProcess* p = session_->process(connection)) {
                    showStatus(gone ? tr("Process %1 exited").arg(p->pid)
                                    : tr("Process %1 disconnected: %2").arg(p->pid).arg(reason));
                }
            });
    connect(session_, &LiveSession::listeningChanged, this, &LiveControls::updateActions);
    connect(session_, &LiveSession::processAdded, this, &LiveControls::updateActions);
    connect(session_, &LiveSession::processChanged, this, &LiveControls::updateActions);
    // A new snapshot of a process with a marked baseline becomes current:
    // compare it with that baseline.
    connect(window_->timeline(), &SnapshotTimeline::currentChanged, this, &LiveControls::onCurrentChanged);
    // A new run numbers its connections from 1 again: what this object knows
    // by connection id belongs to the old run.
    connect(session_, &LiveSession::processesAboutToReset, this, [this] {
        saved_.clear();
        marked_baseline_.clear();
    });
    session_->setAutomaticSnapshotGate([this] { return !window_->loader()->isBusy(); });
    updateActions();
}

LiveControls::~LiveControls() {
    // The window is going: stop and join the loop without telling anyone
    // (the panel and the window's widgets are being destroyed too).
    session_->blockSignals(true);
    session_->stop();
}

void LiveControls::buildActions() {
    start_action_ = new QAction(tr("&Start Listening"), this);
    start_action_->setStatusTip(tr("Let Python programs connect to this window"));
    connect(start_action_, &QAction::triggered, this, [this] { startListening(); });
    stop_action_ = new QAction(tr("S&top Listening"), this);
    connect(stop_action_, &QAction::triggered, this, &LiveControls::stopListening);
    attach_action_ = new QAction(tr("&Attach to Process…"), this);
    attach_action_->setStatusTip(tr("Connect a running Python program without changing its code"));
    connect(attach_action_, &QAction::triggered, this, &LiveControls::showAttachDialog);
    snapshot_action_ = new QAction(tr("Take S&napshot"), this);
    snapshot_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(snapshot_action_, &QAction::triggered, this, [this] { takeSnapshot(false); });
    collect_action_ = new QAction(tr("&Collect + Snapshot"), this);
    collect_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    connect(collect_action_, &QAction::triggered, this, [this] { takeSnapshot(true); });
    baseline_action_ = new QAction(tr("Mark as &Baseline"), this);
    connect(baseline_action_, &QAction::triggered, this, &LiveControls::markBaseline);
    open_session_action_ = new QAction(tr("Open &Session…"), this);
    open_session_action_->setStatusTip(tr("Open the snapshots a live session saved in a folder"));
    connect(open_session_action_, &QAction::triggered, this, [this] {
        QSettings settings;
        const QString dir = QFileDialog::getExistingDirectory(window_, tr("Open Session Folder"),
                                                              settings.value(kSessionDirectoryKey).toString());
        if (dir.isEmpty()) return;
        settings.setValue(kSessionDirectoryKey, dir);
        QString error;
        if (!openSession(dir, &error)) QMessageBox::warning(window_, tr("Could Not Open Session"), error);
    });

    menu_ = new QMenu(tr("&Live"), window_);
    menu_->setObjectName(QStringLiteral("liveMenu"));
    menu_->addAction(start_action_);
    menu_->addAction(stop_action_);
    menu_->addSeparator();
    menu_->addAction(attach_action_);
    menu_->addSeparator();
    menu_->addAction(snapshot_action_);
    menu_->addAction(collect_action_);
    menu_->addAction(baseline_action_);
    menu_->addSeparator();
    QAction* show = dock_->toggleViewAction();
    show->setText(tr("Show &Connections"));
    menu_->addAction(show);
    for (QAction* action : {snapshot_action_, collect_action_}) window_->addAction(action);
}

void LiveControls::updateActions() {
    const bool listening = session_->isListening();
    start_action_->setEnabled(!listening);
    stop_action_->setEnabled(listening);
    const bool any = !session_->connectedIds().empty();
    snapshot_action_->setEnabled(any);
    collect_action_->setEnabled(any);
    baseline_action_->setEnabled(panel_->chosenConnection() != 0);
}

void LiveControls::showStatus(const QString& text, int ms) { window_->statusBar()->showMessage(text, ms); }

// Opens the dock at its compact height (ConnectionsPanel::sizeHint). The
// main window applies a dock's hint only when it first lays the dock out,
// and the hint grows once the address and the first process are known
// (which left the dock a third of the window high); a dock that is already
// open keeps the height the person gave it.
void LiveControls::showDock() {
    const bool was_hidden = dock_->isHidden();
    dock_->show();
    dock_->raise();
    if (was_hidden && !dock_->isFloating()) {
        window_->resizeDocks({dock_}, {dock_->sizeHint().height()}, Qt::Vertical);
    }
}

bool LiveControls::startListening(bool quiet) {
    showDock();
    if (session_->isListening()) return true;
    LiveSession::Options options;
    options.sessionDir = session_dir_;
    if (session_->start(options)) {
        showStatus(tr("Listening on %1").arg(session_->address()));
        return true;
    }
    showStatus(session_->errorString(), 15000);
    emit session_->logLine(session_->errorString(), true);
    if (!quiet) QMessageBox::warning(window_, tr("Cannot Listen"), session_->errorString());
    return false;
}

void LiveControls::stopListening() { session_->stop(); }

bool LiveControls::openSession(const QString& dir, QString* error) {
    QString why;
    const QStringList files = session_snapshot_files(dir, &why);
    if (files.isEmpty()) {
        if (error) *error = why;
        showStatus(why, 10000);
        return false;
    }
    window_->openFiles(files);
    return true;
}

int LiveControls::takeSnapshot(bool collect) {
    int asked = 0;
    for (const uint64_t id : panel_->targetConnections()) asked += session_->takeSnapshot(id, collect) != 0 ? 1 : 0;
    if (asked == 0) {
        showStatus(session_->connectedIds().empty() ? tr("No process is connected")
                                                    : tr("Still receiving the last snapshot; try again when it is saved"));
    }
    return asked;
}

bool LiveControls::markBaseline() {
    const LiveProcess* p = session_->process(panel_->chosenConnection());
    if (!p || p->latestSnapshot.isEmpty()) {
        showStatus(tr("No snapshot to mark: take a snapshot first"));
        return false;
    }
    marked_baseline_[p->connection] = canonical(p->latestSnapshot);
    showStatus(tr("%1 is the baseline of process %2's next snapshots")
                   .arg(QFileInfo(p->latestSnapshot).fileName())
                   .arg(p->pid));
    applyMarkedBaseline(p->connection);
    return true;
}

void LiveControls::applyMarkedBaseline(uint64_t connection) {
    const auto marked = marked_baseline_.find(connection);
    if (marked == marked_baseline_.end()) return;
    SnapshotTimeline* timeline = window_->timeline();
    const AnalysisPtr baseline = timeline->findByPath(marked->second);
    const AnalysisPtr current = timeline->current();
    // Not loaded yet (it is applied once it is), or not a later snapshot of
    // the same process on screen (a snapshot is never compared with itself,
    // nor with another process's): the next one of that process will be.
    if (!baseline || !current || current == baseline ||
        SnapshotTimeline::processKey(current->snapshot()) != SnapshotTimeline::processKey(baseline->snapshot()) ||
        timeline->indexOf(current) < timeline->indexOf(baseline)) {
        return;
    }
    if (timeline->baseline() != baseline) timeline->setBaseline(baseline);
}

void LiveControls::compareWithinTheProcess(const AnalysisPtr& current) {
    SnapshotTimeline* timeline = window_->timeline();
    const QString key = SnapshotTimeline::processKey(current->snapshot());
    const auto other_process = [&](const AnalysisPtr& a) {
        return a && SnapshotTimeline::processKey(a->snapshot()) != key;
    };
    if (other_process(timeline->middle())) timeline->setMiddle(nullptr);
    if (timeline->baseline() && !other_process(timeline->baseline())) return;
    // The process's oldest open snapshot; none for its first one (then
    // nothing is compared rather than two processes).
    for (const AnalysisPtr& candidate : timeline->sameProcess(current)) {
        if (candidate != current) {
            timeline->setBaseline(candidate);
            return;
        }
    }
    if (timeline->baseline()) timeline->setBaseline(nullptr);
}

void LiveControls::onSnapshotSaved(uint64_t connection, const QString& path) {
    saved_[canonical(path)] = connection;
    showStatus(tr("Snapshot saved: %1").arg(QFileInfo(path).fileName()));
    window_->openFiles({path});
    updateActions();
}

void LiveControls::onCurrentChanged(const AnalysisPtr& analysis) {
    if (!analysis) return;
    // Only for the process's newest snapshot: one a person goes back to
    // keeps whatever baseline they choose.
    const QString path = canonical(QString::fromStdString(analysis->path()));
    const auto found = saved_.find(path);
    if (found == saved_.end()) return;
    const LiveProcess* p = session_->process(found->second);
    if (p && canonical(p->latestSnapshot) == path) {
        compareWithinTheProcess(analysis);
        applyMarkedBaseline(found->second);
    }
    closeOldSnapshots(found->second);
}

void LiveControls::closeOldSnapshots(uint64_t connection) {
    SnapshotTimeline* timeline = window_->timeline();
    std::vector<AnalysisPtr> open;
    for (const AnalysisPtr& analysis : timeline->snapshots()) {
        const auto found = saved_.find(canonical(QString::fromStdString(analysis->path())));
        if (found != saved_.end() && found->second == connection) open.push_back(analysis);
    }
    // snapshots() is in timeline order: oldest first. The process's oldest
    // (its default baseline) and its marked baseline stay, whichever process
    // is on screen.
    const auto marked = marked_baseline_.find(connection);
    const AnalysisPtr kept_first = open.empty() ? nullptr : open.front();
    for (auto analysis = open.begin(); int(open.size()) > open_limit_ && analysis != open.end();) {
        const AnalysisPtr candidate = *analysis;
        if (candidate == timeline->current() || candidate == timeline->baseline() || candidate == timeline->middle() ||
            candidate == kept_first ||
            (marked != marked_baseline_.end() &&
             canonical(QString::fromStdString(candidate->path())) == marked->second)) {
            ++analysis;
            continue;
        }
        analysis = open.erase(analysis);
        // Bounded: its point stays in the growth chart (growth_history.h).
        timeline->remove(candidate, SnapshotTimeline::CloseReason::Bounded);
        showStatus(tr("Closed %1 to keep memory bounded (it stays in the session folder)")
                       .arg(QFileInfo(QString::fromStdString(candidate->path())).fileName()));
    }
}

void LiveControls::showAttachDialog() {
    if (!startListening()) return;
    if (!attach_dialog_) {
        attach_dialog_ = new AttachDialog(session_, window_);
        attach_dialog_->setAttribute(Qt::WA_DeleteOnClose);
    } else {
        attach_dialog_->refresh();
    }
    attach_dialog_->open();
    attach_dialog_->raise();
}

}  // namespace refscope::app
