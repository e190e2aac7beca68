// LiveControls: the main window's side of the live connection. It owns the
// LiveSession and shows it — the "Connections" dock (ConnectionsPanel), the
// Live menu (Start/Stop Listening, Attach to Process…, Take Snapshot,
// Collect + Snapshot, Mark as Baseline), File ▸ Open Session… and the
// Attach dialog — and feeds every saved snapshot to the window's own loader
// (MainWindow::openFiles), so that it joins the timeline of its process and
// feeds the diff and suspects views as a file does: the first snapshot of a
// process becomes current, the next ones are compared with the first (the
// timeline's autoBaseline) or with the snapshot marked as baseline.
//
// Kept out of main_window.cpp, which only creates it, adds its menu and
// stops it when the window closes.
#pragma once

#include <cstdint>
#include <map>

#include <QObject>
#include <QPointer>
#include <QString>

#include "session/analysis_ptr.h"
#include "window/attach_dialog.h"

class QAction;
class QDockWidget;
class QMenu;

namespace refscope::app {

class ConnectionsPanel;
class LiveSession;
class MainWindow;

class LiveControls : public QObject {
    Q_OBJECT

public:
    explicit LiveControls(MainWindow* window);
    ~LiveControls() override;

    // Where the next start() saves snapshots (empty: a new timestamped folder).
    void setSessionDir(const QString& dir) { session_dir_ = dir; }

    // At most this many snapshots of one live process stay open in the
    // window (each holds its whole analysis in memory; automatic snapshots
    // would otherwise pile up without bound). When a new one opens, the
    // oldest that is neither the baseline, the middle nor the current one is
    // closed; its file stays in the session folder, and its point stays in
    // the growth chart (GrowthHistory: the chart covers every snapshot of
    // the process taken in the session, not only the open ones). At least 3.
    static constexpr int kDefaultOpenSnapshotLimit = 6;
    void setOpenSnapshotLimit(int limit) { open_limit_ = limit < 3 ? 3 : limit; }
    int openSnapshotLimit() const { return open_limit_; }

    // Starts listening (if not yet) and shows the Connections dock. False
    // with the reason shown (status bar, log, and a message box unless
    // `quiet`) when the listener cannot start.
    bool startListening(bool quiet = false);
    void stopListening();

    // Opens a session folder's snapshots (session.jsonl's order) in the
    // window. False with `*error` set when the folder holds none.
    bool openSession(const QString& dir, QString* error = nullptr);

    // Snapshot commands on the panel's chosen processes (selected, else all
    // connected); return how many were asked.
    int takeSnapshot(bool collect);
    // The chosen process's latest snapshot becomes the baseline of its
    // later snapshots. False (with a status message) without one.
    bool markBaseline();

    // Shows the Attach dialog (starting to listen first).
    void showAttachDialog();

    LiveSession* session() const { return session_; }
    ConnectionsPanel* panel() const { return panel_; }
    QDockWidget* dock() const { return dock_; }
    QMenu* menu() const { return menu_; }
    QAction* openSessionAction() const { return open_session_action_; }
    // The Attach dialog while it is open, else null.
    AttachDialog* attachDialog() const { return attach_dialog_; }

private:
    void showDock();
    void buildActions();
    void updateActions();
    void onSnapshotSaved(uint64_t connection, const QString& path);
    void onCurrentChanged(const AnalysisPtr& analysis);
    void applyMarkedBaseline(uint64_t connection);
    // Live snapshots of several processes share one timeline: a new
    // snapshot is compared with its own process's oldest open one, never
    // with another process's baseline.
    void compareWithinTheProcess(const AnalysisPtr& current);
    void closeOldSnapshots(uint64_t connection);
    void showStatus(const QString& text, int ms = 6000);

    MainWindow* window_;
    LiveSession* session_;
    ConnectionsPanel* panel_;
    QDockWidget* dock_;
    QMenu* menu_ = nullptr;
    QPointer<AttachDialog> attach_dialog_;
    QString session_dir_;
    int open_limit_ = kDefaultOpenSnapshotLimit;
    // Canonical path of each saved snapshot -> its connection.
    std::map<QString, uint64_t> saved_;
    // Connection -> canonical path of the snapshot marked as its baseline.
    std::map<uint64_t, QString> marked_baseline_;

    QAction* start_action_ = nullptr;
    QAction* stop_action_ = nullptr;
    QAction* attach_action_ = nullptr;
    QAction* snapshot_action_ = nullptr;
    QAction* collect_action_ = nullptr;
    QAction* baseline_action_ = nullptr;
    QAction* open_session_action_ = nullptr;
};

}  // namespace refscope::app
