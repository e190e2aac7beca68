#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>

#include "graph/graph_export.h"
#include "graph/graph_widget.h"
#include "models/cell_text.h"
#include "session/snapshot_loader.h"
#include "session/snapshot_timeline.h"
#include "window/empty_state.h"
#include "window/growth_panel.h"
#include "window/live_controls.h"
#include "window/navigation_controls.h"
#include "window/recent_files.h"
#include "window/snapshot_selector.h"
#include "window/workspace.h"

// Resources compiled into the static window library must be registered by
// hand (the linker would drop their initializer otherwise); outside any
// namespace, as Q_INIT_RESOURCE requires.
static void init_window_resources() { Q_INIT_RESOURCE(refscope); }

namespace refscope::app {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kWorkspaceKey = QStringLiteral("window/workspace");
const QString kDirectoryKey = QStringLiteral("files/lastDirectory");

QString file_name(const AnalysisPtr& analysis) {
    return analysis->path().empty() ? QObject::tr("in-memory snapshot")
                                    : QFileInfo(QString::fromStdString(analysis->path())).fileName();
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      loader_(new SnapshotLoader(this)),
      timeline_(new SnapshotTimeline(this)),
      comparison_job_(new ComparisonJob(this)),
      recent_(new RecentFiles(this)) {
    init_window_resources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/refscope/refscope.svg")));
    setAcceptDrops(true);

    empty_state_ = new EmptyState(this);
    workspace_ = new Workspace(this);
    workspace_->growthPanel()->setTimeline(timeline_);
    pages_ = new QStackedWidget(this);
    pages_->addWidget(empty_state_);
    pages_->addWidget(workspace_);
    setCentralWidget(pages_);

    auto* timeline_bar = new QToolBar(tr("Timeline"), this);
    timeline_bar->setObjectName(QStringLiteral("timelineBar"));
    timeline_bar->setMovable(false);
    navigation_ = new NavigationControls(workspace_, this);
    timeline_bar->addAction(navigation_->backAction());
    timeline_bar->addAction(navigation_->forwardAction());
    selector_ = new SnapshotSelector(timeline_, timeline_bar);
    timeline_bar->addWidget(selector_);
    addToolBar(Qt::TopToolBarArea, timeline_bar);

    live_ = new LiveControls(this);
    buildActions();
    buildMenus();
    buildStatusBar();
    connectSession();
    restoreSettings();
    empty_state_->setRecentFiles(recent_->files());
    onCurrentChanged(nullptr);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildStatusBar() {
    load_label_ = new QLabel(this);
    load_bar_ = new QProgressBar(this);
    load_bar_->setObjectName(QStringLiteral("loadProgress"));
    load_bar_->setRange(0, 100);
    load_bar_->setMaximumWidth(220);
    cancel_button_ = new QToolButton(this);
    cancel_button_->setObjectName(QStringLiteral("cancelLoad"));
    cancel_button_->setDefaultAction(cancel_action_);
    cancel_button_->setText(tr("Cancel"));
    counts_label_ = new QLabel(this);
    counts_label_->setObjectName(QStringLiteral("counts"));
    statusBar()->addPermanentWidget(load_label_);
    statusBar()->addPermanentWidget(load_bar_);
    statusBar()->addPermanentWidget(cancel_button_);
    statusBar()->addPermanentWidget(counts_label_);
    load_label_->hide();
    load_bar_->hide();
    cancel_button_->hide();
}

void MainWindow::connectSession() {
    connect(loader_, &SnapshotLoader::started, this, &MainWindow::onLoadStarted);
    connect(loader_, &SnapshotLoader::progress, this, &MainWindow::onLoadProgress);
    connect(loader_, &SnapshotLoader::read, this, &MainWindow::onSnapshotRead);
    connect(loader_, &SnapshotLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &SnapshotLoader::failed, this, &MainWindow::onLoadFailed);
    connect(loader_, &SnapshotLoader::cancelled, this, [this](const QString& path) {
        ++batch_done_;
        leaveAnalysingView();
        statusBar()->showMessage(tr("Cancelled loading %1").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(loader_, &SnapshotLoader::idle, this, &MainWindow::onLoaderIdle);

    connect(timeline_, &SnapshotTimeline::currentChanged, this, &MainWindow::onCurrentChanged);
    connect(timeline_, &SnapshotTimeline::comparisonChanged, this, &MainWindow::onComparisonInputsChanged);
    connect(timeline_, &SnapshotTimeline::snapshotsChanged, this, &MainWindow::updateActions);
    connect(comparison_job_, &ComparisonJob::finished, this, &MainWindow::onComparisonFinished);
    connect(comparison_job_, &ComparisonJob::failed, this, &MainWindow::onComparisonFailed);

    connect(recent_, &RecentFiles::openRequested, this, [this](const QString& path) { openFiles({path}); });
    connect(recent_, &RecentFiles::changed, this, [this] { empty_state_->setRecentFiles(recent_->files()); });
    connect(empty_state_, &EmptyState::openRequested, this, &MainWindow::openWithDialog);
    connect(empty_state_, &EmptyState::connectRequested, this, [this] { live_->startListening(); });
    connect(empty_state_, &EmptyState::openRecentRequested, this, [this](const QString& path) { openFiles({path}); });
    connect(workspace_, &Workspace::objectSelected, this, &MainWindow::updateActions);
    connect(workspace_, &Workspace::message, this, [this](const QString& text) {
        statusBar()->showMessage(text, 8000);
    });
}

void MainWindow::openFiles(const QStringList& paths) {
    QStringList to_load;
    AnalysisPtr already_open;
    for (const QString& path : paths) {
        if (const AnalysisPtr open = timeline_->findByPath(path)) {
            already_open = open;
        } else if (!to_load.contains(path)) {
            to_load << path;
        }
    }
    if (already_open && to_load.isEmpty()) timeline_->setCurrent(already_open);
    if (to_load.isEmpty()) return;
    if (!loader_->isBusy()) {
        batch_size_ = 0;
        batch_done_ = 0;
        load_errors_.clear();
    }
    batch_size_ += int(to_load.size());
    loader_->load(to_load);
    load_label_->setText(tr("Loading…"));
    load_bar_->setValue(0);
    load_label_->show();
    load_bar_->show();
    cancel_button_->show();
    updateActions();
}

void MainWindow::openWithDialog() {
    QSettings settings;
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open Snapshots"), settings.value(kDirectoryKey).toString(),
        tr("refscope snapshots (*.rscope);;All files (*)"));
    if (paths.isEmpty()) return;
    settings.setValue(kDirectoryKey, QFileInfo(paths.front()).absolutePath());
    openFiles(paths);
}

void MainWindow::exportWithDialog() {
    GraphWidget* graph = workspace_->graphWidget();
    if (!graph->currentGraph()) {
        statusBar()->showMessage(tr("Nothing to export yet: select an object to draw its graph"), 6000);
        return;
    }
    using graphviz::OutputFormat;
    const OutputFormat formats[] = {OutputFormat::Png, OutputFormat::Svg, OutputFormat::Pdf, OutputFormat::Dot};
    QStringList filters;
    for (OutputFormat format : formats) filters << graph_export_filter(format);
    QSettings settings;
    QString chosen_filter = filters.front();
    QString path = QFileDialog::getSaveFileName(this, tr("Export Graph"),
                                                QDir(settings.value(kDirectoryKey).toString()).filePath(QStringLiteral("refscope-graph.png")),
                                                filters.join(QStringLiteral(";;")), &chosen_filter);
    if (path.isEmpty()) return;
    // The extension decides; without one, the chosen filter's is added.
    auto format = graphviz::output_format_for_path(path.toStdString());
    if (!format) {
        const auto index = filters.indexOf(chosen_filter);
        format = formats[index < 0 ? 0 : index];
        path += graph_export_extension(*format);
    }
    settings.setValue(kDirectoryKey, QFileInfo(path).absolutePath());
    if (!graph->startExport(path, *format)) {
        statusBar()->showMessage(tr("An export is still running; try again when it is done"), 6000);
    }
}

bool MainWindow::exportGraph(const QString& path, QString* error) {
    GraphWidget* graph = workspace_->graphWidget();
    const auto format = graphviz::output_format_for_path(path.toStdString());
    QString message;
    if (!graph->currentGraph()) {
        message = tr("there is no graph to export: select an object first");
    } else if (!format) {
        message = tr("cannot tell the format from '%1': use .png, .svg, .pdf or .dot").arg(QFileInfo(path).fileName());
    } else if (graph->exportTo(path, *format, &message)) {
        return true;
    }
    if (error) *error = message;
    return false;
}

void MainWindow::closeCurrent() {
    if (const AnalysisPtr current = timeline_->current()) timeline_->remove(current);
}

void MainWindow::reloadCurrent() {
    const AnalysisPtr current = timeline_->current();
    if (!current || current->path().empty()) return;
    const QString path = QString::fromStdString(current->path());
    timeline_->remove(current, SnapshotTimeline::CloseReason::Reloaded);
    openFiles({path});
}

void MainWindow::onLoadStarted(const QString& path, int remaining) {
    Q_UNUSED(remaining);
    const int position = batch_done_ + 1;
    load_label_->setText(batch_size_ > 1 ? tr("Loading %1 (%2 of %3)…").arg(QFileInfo(path).fileName()).arg(position).arg(batch_size_)
                                         : tr("Loading %1…").arg(QFileInfo(path).fileName()));
    load_bar_->setValue(0);
}

void MainWindow::onLoadProgress(const QString& path, const QString& stage, int percent) {
    load_bar_->setValue(percent);
    load_bar_->setFormat(stage + QStringLiteral(" %p%"));
    load_bar_->setToolTip(path);
}

void MainWindow::onSnapshotRead(const AnalysisPtr& snapshot) {
    // The census needs only the node columns: it is shown now, while the
    // loader analyses the graph. The snapshot joins the timeline (and the
    // comparisons) when its analysis is done, in onLoaded. A newer snapshot
    // of the process on screen waits for its analysis instead: a live
    // session's arrive every few seconds, and the selection, path and graph
    // being read carry over only to an analysed one (Workspace::setAnalysis).
    const AnalysisPtr shown = workspace_->analysis();
    if (shown && !workspace_->analysing() &&
        SnapshotTimeline::processKey(shown->snapshot()) == SnapshotTimeline::processKey(snapshot->snapshot())) {
        return;
    }
    workspace_->setAnalysis(snapshot);
    pages_->setCurrentWidget(workspace_);
    updateTitle();
    updateCounts();
    updateActions();
}

void MainWindow::leaveAnalysingView() {
    if (workspace_->analysing()) onCurrentChanged(timeline_->current());
}

void MainWindow::onLoaded(const AnalysisPtr& analysis) {
    ++batch_done_;
    recent_->add(QString::fromStdString(analysis->path()));
    timeline_->add(analysis);
    leaveAnalysingView();  // the timeline kept another one current
    statusBar()->showMessage(tr("Opened %1").arg(file_name(analysis)), 4000);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    ++batch_done_;
    leaveAnalysingView();
    load_errors_ << QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), message);
    showLoadErrors();
}

void MainWindow::onLoaderIdle() {
    load_label_->hide();
    load_bar_->hide();
    cancel_button_->hide();
    updateActions();
}

void MainWindow::showLoadErrors() {
    if (load_errors_.isEmpty()) return;
    if (!error_dialog_) {
        // Window-modal and shown with open(): the window goes on loading the
        // rest of a batch behind it, and a later failure joins this dialog
        // instead of stacking another.
        error_dialog_ = new QMessageBox(QMessageBox::Warning, tr("Could Not Open Snapshot"), QString(),
                                        QMessageBox::Ok, this);
        error_dialog_->setObjectName(QStringLiteral("loadErrorDialog"));
        error_dialog_->setAttribute(Qt::WA_DeleteOnClose);
        error_dialog_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        error_dialog_->open();
    }
    if (load_errors_.size() == 1) {
        const QString& line = load_errors_.front();
        const int split = line.indexOf(QStringLiteral(": "));
        error_dialog_->setText(tr("Could not open %1").arg(QFileInfo(line.left(split)).fileName()));
        error_dialog_->setInformativeText(line.mid(split + 2));
    } else {
        error_dialog_->setText(tr("Could not open %1 files").arg(load_errors_.size()));
        error_dialog_->setInformativeText(load_errors_.join(QStringLiteral("\n\n")));
    }
}

void MainWindow::onCurrentChanged(const AnalysisPtr& current) {
    workspace_->setAnalysis(current);
    pages_->setCurrentWidget(current ? static_cast<QWidget*>(workspace_) : empty_state_);
    updateTitle();
    updateCounts();
    updateActions();
}

void MainWindow::onComparisonInputsChanged() {
    comparison_error_.clear();
    if (!timeline_->baseline() || !timeline_->current()) {
        comparison_job_->clear();
        workspace_->setComparison(nullptr);
        selector_->setComparisonNote({}, false);
    } else {
        // The panels keep the snapshot's own view until the comparison arrives.
        workspace_->setComparison(nullptr);
        comparison_job_->start(timeline_->baseline(), timeline_->middle(), timeline_->current());
        selector_->setComparisonNote(tr("comparing…"), false);
    }
    updateTitle();
    updateCounts();
    updateActions();
}

void MainWindow::onComparisonFinished(const ComparisonPtr& comparison) {
    workspace_->setComparison(comparison);
    const analysis::DiffTotals& totals = comparison->diff().totals;
    QString note = tr("%1 new, %2 freed since the baseline")
                       .arg(count_text(totals.new_objects), count_text(totals.freed_objects));
    if (const analysis::SurvivorReport* survivors = comparison->survivors()) {
        note += tr("; %1 survivors").arg(count_text(survivors->survivors.size()));
    }
    selector_->setComparisonNote(note, false);
    updateCounts();
}

void MainWindow::onComparisonFailed(const QString& message) {
    comparison_error_ = message;
    workspace_->setComparison(nullptr);
    selector_->setComparisonNote(message, true);
    statusBar()->showMessage(message, 10000);
    updateCounts();
}

bool MainWindow::isSettled() const {
    return !loader_->isBusy() && !comparison_job_->isRunning() && !workspace_->busy();
}

void MainWindow::whenSettled(std::function<void()> then) {
    auto* timer = new QTimer(this);
    timer->setInterval(25);
    auto quiet = std::make_shared<int>(0);
    connect(timer, &QTimer::timeout, this, [this, timer, quiet, then = std::move(then)] {
        *quiet = isSettled() ? *quiet + 1 : 0;
        if (*quiet < 2) return;
        timer->stop();
        timer->deleteLater();
        then();
    });
    timer->start();
}

bool MainWindow::selectTopSuspect() {
    workspace_->showPanel(Workspace::Panel::Suspects);
    const bool selected = workspace_->selectSuspect(0);
    if (selected) workspace_->showPanel(Workspace::Panel::Path);
    return selected;
}

QString MainWindow::selectedPathText() const { return workspace_->pathText(); }

QString MainWindow::countsText() const { return counts_label_->text(); }

void MainWindow::updateTitle() {
    const AnalysisPtr current = workspace_->analysis();
    if (!current) {
        setWindowTitle(QStringLiteral("refscope"));
        return;
    }
    if (workspace_->analysing()) {
        setWindowTitle(tr("%1 (analysing…) — refscope").arg(file_name(current)));
        return;
    }
    QString title = file_name(current);
    if (const AnalysisPtr baseline = timeline_->baseline()) title += tr(" vs %1").arg(file_name(baseline));
    setWindowTitle(title + QStringLiteral(" — refscope"));
}

void MainWindow::updateCounts() {
    const AnalysisPtr current = workspace_->analysis();
    if (!current) {
        counts_label_->clear();
        return;
    }
    const Snapshot& s = current->snapshot();
    QStringList parts;
    parts << tr("%1 objects").arg(count_text(s.node_count()));
    parts << tr("%1 references").arg(count_text(s.edge_count()));
    if (workspace_->analysing()) {
        parts << tr("analysing…");
        counts_label_->setText(parts.join(QStringLiteral(" · ")));
        return;
    }
    parts << tr("%1 with unexplained references").arg(count_text(current->roots().unexplained_nodes().size()));
    if (const analysis::LeakSuspects* suspects = workspace_->suspects()) {
        parts << tr("%1 leak suspects").arg(count_text(suspects->high_confidence_count()));
    }
    counts_label_->setText(parts.join(QStringLiteral(" · ")));
}

void MainWindow::updateActions() {
    // While a snapshot read is analysed it is on screen but not yet open:
    // Close, Reload and Find would act on one not shown (Cancel stops it).
    const AnalysisPtr current = workspace_->analysing() ? nullptr : timeline_->current();
    close_action_->setEnabled(current != nullptr);
    reload_action_->setEnabled(current && !current->path().empty());
    cancel_action_->setEnabled(loader_->isBusy());
    copy_path_action_->setEnabled(workspace_->selectedObject() != kNoNode);
    export_action_->setEnabled(workspace_->selectedObject() != kNoNode);
    find_action_->setEnabled(current != nullptr);
    clear_baseline_action_->setEnabled(timeline_->baseline() != nullptr);
    const auto process = timeline_->sameProcess(current);
    previous_baseline_action_->setEnabled(process.size() > 1 && process.front() != current);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) resize(1280, 800);
    restoreState(settings.value(kStateKey).toByteArray());
    workspace_->restoreState(settings.value(kWorkspaceKey).toByteArray());
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kWorkspaceKey, workspace_->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    loader_->cancel();
    live_->stopListening();  // joins the listener's thread
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QMimeData* mime = event->mimeData();
    if (!mime->hasUrls()) return;
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile()) {
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) paths << url.toLocalFile();
    }
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    openFiles(paths);
}

}  // namespace refscope::app
