// MainWindow's actions and menus (File, Edit, View, Snapshot, Live, Help),
// kept apart from the window's session wiring in main_window.cpp.
#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include "graph/graph_widget.h"
#include "session/snapshot_loader.h"
#include "session/snapshot_timeline.h"
#include "window/growth_panel.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "window/navigation_controls.h"
#include "window/recent_files.h"
#include "window/shortcuts_dialog.h"
#include "window/text_size.h"
#include "window/user_guide_dialog.h"
#include "window/workspace.h"

namespace refscope::app {

// Shortcuts are spelled out rather than taken from QKeySequence's standard
// keys, which vary by platform theme (the offscreen and minimal platforms
// have no Ctrl+W): the keys the README documents work everywhere.
void MainWindow::buildActions() {
    open_action_ = new QAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this);
    open_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    open_action_->setStatusTip(tr("Open one or more snapshot files"));
    connect(open_action_, &QAction::triggered, this, &MainWindow::openWithDialog);

    reload_action_ = new QAction(QIcon::fromTheme(QStringLiteral("view-refresh")), tr("&Reload"), this);
    reload_action_->setShortcut(QKeySequence(Qt::Key_F5));
    reload_action_->setStatusTip(tr("Read the current snapshot's file again"));
    connect(reload_action_, &QAction::triggered, this, &MainWindow::reloadCurrent);

    export_action_ = new QAction(QIcon::fromTheme(QStringLiteral("document-export")), tr("&Export Graph…"), this);
    export_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    export_action_->setStatusTip(tr("Save the graph of the selected object as PNG, SVG, PDF or Graphviz DOT"));
    connect(export_action_, &QAction::triggered, this, &MainWindow::exportWithDialog);

    close_action_ = new QAction(tr("&Close Snapshot"), this);
    close_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    connect(close_action_, &QAction::triggered, this, &MainWindow::closeCurrent);

    quit_action_ = new QAction(tr("&Quit"), this);
    quit_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit_action_->setMenuRole(QAction::QuitRole);
    connect(quit_action_, &QAction::triggered, this, &QWidget::close);

    cancel_action_ = new QAction(tr("Cancel &Loading"), this);
    cancel_action_->setShortcut(Qt::Key_Escape);
    cancel_action_->setShortcutContext(Qt::WindowShortcut);
    connect(cancel_action_, &QAction::triggered, loader_, &SnapshotLoader::cancel);

    copy_path_action_ = new QAction(QIcon::fromTheme(QStringLiteral("edit-copy")), tr("&Copy Path as Text"), this);
    copy_path_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_C));
    copy_path_action_->setStatusTip(tr("Copy the selected object's retention path to the clipboard"));
    connect(copy_path_action_, &QAction::triggered, workspace_, &Workspace::copyPathAsText);

    find_action_ = new QAction(QIcon::fromTheme(QStringLiteral("edit-find")), tr("&Filter Objects…"), this);
    find_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
    connect(find_action_, &QAction::triggered, workspace_, &Workspace::focusFilter);

    previous_baseline_action_ = new QAction(tr("Compare with &Previous Snapshot"), this);
    previous_baseline_action_->setStatusTip(tr("Use the previous snapshot of this process as the baseline"));
    connect(previous_baseline_action_, &QAction::triggered, this, [this] {
        const auto process = timeline_->sameProcess(timeline_->current());
        for (size_t i = 1; i < process.size(); ++i) {
            if (process[i] == timeline_->current()) timeline_->setBaseline(process[i - 1]);
        }
    });
    clear_baseline_action_ = new QAction(tr("Clear &Baseline"), this);
    connect(clear_baseline_action_, &QAction::triggered, this, [this] { timeline_->setBaseline(nullptr); });

    for (QAction* action : {open_action_, reload_action_, export_action_, close_action_, quit_action_,
                            cancel_action_, copy_path_action_, find_action_}) {
        addAction(action);  // shortcuts work with the menu bar hidden too
    }
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(open_action_);
    file->addAction(live_->openSessionAction());
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    recent_menu_->setObjectName(QStringLiteral("recentMenu"));
    connect(recent_menu_, &QMenu::aboutToShow, this, [this] { recent_->fillMenu(recent_menu_); });
    recent_->fillMenu(recent_menu_);
    file->addAction(reload_action_);
    file->addSeparator();
    file->addAction(export_action_);
    file->addAction(workspace_->growthPanel()->exportAction());
    file->addSeparator();
    file->addAction(close_action_);
    file->addSeparator();
    file->addAction(quit_action_);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(copy_path_action_);
    edit->addAction(find_action_);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(navigation_->backAction());
    view->addAction(navigation_->forwardAction());
    view->addSeparator();
    for (int p = 0; p < Workspace::kPanelCount; ++p) {
        const auto panel = static_cast<Workspace::Panel>(p);
        QAction* action = view->addAction(Workspace::panelName(panel));
        // Alt+1..Alt+9, then Alt+0 for the tenth, as on the keyboard's row.
        action->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(p < 9 ? Qt::Key_1 + p : Qt::Key_0)));
        connect(action, &QAction::triggered, this, [this, panel] { workspace_->showPanel(panel); });
        addAction(action);
    }

    view->addSeparator();
    text_size_ = new TextSize(this);
    view->addAction(text_size_->largerAction());
    view->addAction(text_size_->smallerAction());
    view->addAction(text_size_->defaultAction());

    QMenu* snapshot = menuBar()->addMenu(tr("&Snapshot"));
    QAction* previous = snapshot->addAction(tr("P&revious Snapshot"));
    previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
    connect(previous, &QAction::triggered, this, [this] {
        timeline_->setCurrent(timeline_->at(timeline_->indexOf(timeline_->current()) - 1));
    });
    QAction* next = snapshot->addAction(tr("&Next Snapshot"));
    next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
    connect(next, &QAction::triggered, this, [this] {
        timeline_->setCurrent(timeline_->at(timeline_->indexOf(timeline_->current()) + 1));
    });
    snapshot->addSeparator();
    snapshot->addAction(previous_baseline_action_);
    snapshot->addAction(clear_baseline_action_);
    snapshot->addSeparator();
    snapshot->addAction(cancel_action_);
    addAction(previous);
    addAction(next);

    menuBar()->addMenu(live_->menu());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"));
    guide->setObjectName(QStringLiteral("showUserGuide"));
    guide->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F1));
    guide->setStatusTip(tr("How to take snapshots and find out why objects stay alive"));
    connect(guide, &QAction::triggered, this, [this] { show_user_guide(this); });
    addAction(guide);
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"));
    shortcuts->setObjectName(QStringLiteral("showShortcuts"));
    shortcuts->setShortcut(QKeySequence(Qt::Key_F1));
    connect(shortcuts, &QAction::triggered, this, [this] { make_shortcuts_dialog(this)->show(); });
    addAction(shortcuts);
    connect(help->addAction(tr("&About refscope")), &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About refscope"),
                           tr("<h3>refscope %1</h3><p>Why is this object still alive? Heap snapshots of "
                              "Python processes and their C/C++ extensions: retention paths from the GC "
                              "roots, leak suspects, references the garbage collector cannot see, and "
                              "the reference graph.</p>")
                               .arg(QApplication::applicationVersion()));
    });
    connect(help->addAction(tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);
}

}  // namespace refscope::app
