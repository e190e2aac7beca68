// MainWindow: the desktop app's one window. It owns the session (the loader
// that reads and analyses files on its worker thread, the timeline of open
// snapshots, the comparison with a baseline) and shows it: the empty state
// until a snapshot is open, then the workspace with its panels; menus,
// shortcuts, drag and drop, recent files, a status bar with counts and, while
// loading, a progress bar with Cancel. Files that cannot be read are
// reported in one dialog with the reader's own message, never a crash.
//
// Nothing heavy runs on the GUI thread: loading and analysis (SnapshotLoader),
// comparisons (ComparisonJob) and graph layout (the graph panel's job) all
// run on worker threads; the window only wires their results to the views.
#pragma once

#include <functional>

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QStringList>

#include "session/analysis_ptr.h"
#include "session/comparison.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QToolButton;

namespace refscope::app {

class EmptyState;
class LiveControls;
class NavigationControls;
class RecentFiles;
class SnapshotLoader;
class SnapshotSelector;
class SnapshotTimeline;
class TextSize;
class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Queues files for loading (files already open are not read again: the
    // last of them becomes current). Non-existent paths fail like any other
    // unreadable file: in the error dialog.
    void openFiles(const QStringList& paths);

    // No load, comparison or graph layout in flight.
    bool isSettled() const;
    // Calls `then` once the window is settled (polled: work starts in
    // response to other work finishing, so one quiet moment is not enough;
    // settled means quiet for two polls in a row).
    void whenSettled(std::function<void()> then);

    // Selects the first row of the leak suspects (its representative object
    // becomes the selection: path, retainers, graph). False without suspects.
    bool selectTopSuspect();
    // The selected object's retention path as plain text ("" without one).
    QString selectedPathText() const;

    // Writes the graph on screen (the selected object's) to `path`, as PNG,
    // SVG, PDF or DOT by the file's extension, with Graphviz (the look of
    // `refscope-cli export-path`). Synchronous; false with `*error` set when
    // there is no graph, the extension is unknown or writing failed.
    bool exportGraph(const QString& path, QString* error = nullptr);

    // Files the last load batch could not open, with the reader's messages,
    // as shown in the error dialog ("path: message").
    QStringList loadErrors() const { return load_errors_; }

    SnapshotLoader* loader() const { return loader_; }
    SnapshotTimeline* timeline() const { return timeline_; }
    ComparisonJob* comparisonJob() const { return comparison_job_; }
    Workspace* workspace() const { return workspace_; }
    RecentFiles* recentFiles() const { return recent_; }
    // View ▸ Larger/Smaller/Default Text Size.
    TextSize* textSize() const { return text_size_; }
    // The live connection: listener, Connections dock, Live menu (live_controls.h).
    LiveControls* live() const { return live_; }
    // The text of the status bar's counts ("34,890 objects · ...").
    QString countsText() const;
    // The dialog listing unreadable files while it is shown, else null.
    QMessageBox* errorDialog() const { return error_dialog_; }

public slots:
    void openWithDialog();
    // File ▸ Export Graph…: asks for a file, exports on a worker thread.
    void exportWithDialog();
    void closeCurrent();
    void reloadCurrent();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildStatusBar();
    void connectSession();
    void restoreSettings();
    void saveSettings() const;

    void onLoadStarted(const QString& path, int remaining);
    void onLoadProgress(const QString& path, const QString& stage, int percent);
    void onSnapshotRead(const AnalysisPtr& snapshot);
    // A load has ended: the census shown while its file was analysed gives
    // way to the timeline's current snapshot (the full analysis when the
    // timeline made it current; else what was current before).
    void leaveAnalysingView();
    void onLoaded(const AnalysisPtr& analysis);
    void onLoadFailed(const QString& path, const QString& message);
    void onLoaderIdle();
    void onCurrentChanged(const AnalysisPtr& current);
    void onComparisonInputsChanged();
    void onComparisonFinished(const ComparisonPtr& comparison);
    void onComparisonFailed(const QString& message);

    void showLoadErrors();
    void updateTitle();
    void updateCounts();
    void updateActions();

    SnapshotLoader* loader_;
    SnapshotTimeline* timeline_;
    ComparisonJob* comparison_job_;
    RecentFiles* recent_;
    LiveControls* live_ = nullptr;
    NavigationControls* navigation_ = nullptr;
    TextSize* text_size_ = nullptr;

    QStackedWidget* pages_ = nullptr;
    EmptyState* empty_state_ = nullptr;
    Workspace* workspace_ = nullptr;
    SnapshotSelector* selector_ = nullptr;

    QLabel* counts_label_ = nullptr;
    QLabel* load_label_ = nullptr;
    QProgressBar* load_bar_ = nullptr;
    QToolButton* cancel_button_ = nullptr;
    // Null once the dialog is closed (it deletes itself).
    QPointer<QMessageBox> error_dialog_;
    QStringList load_errors_;
    QString comparison_error_;
    int batch_size_ = 0;   // files in the running load batch
    int batch_done_ = 0;

    QMenu* recent_menu_ = nullptr;
    QAction* open_action_ = nullptr;
    QAction* close_action_ = nullptr;
    QAction* reload_action_ = nullptr;
    QAction* quit_action_ = nullptr;
    QAction* cancel_action_ = nullptr;
    QAction* copy_path_action_ = nullptr;
    QAction* find_action_ = nullptr;
    QAction* export_action_ = nullptr;
    QAction* clear_baseline_action_ = nullptr;
    QAction* previous_baseline_action_ = nullptr;
};

}  // namespace refscope::app
