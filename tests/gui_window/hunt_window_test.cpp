// The user guide's leak hunts (docs/guide/hunt-*.md) in the real window,
// headless, at 1280×800: the pictures of each chapter, taken only once the
// window shows what the chapter says it shows. One hunt per run, the
// snapshots made beforehand by tests/cpp_ext/test_guide_hunts.py, which
// runs the chapter's program (tests/cpp_ext/programs/hunt_*.py) twice, with
// the leak and with its fix, and passes through the environment:
//   REFSCOPE_HUNT          the chapter's name, the pictures' prefix
//                          ("hunt-nanobind": hunt-nanobind-suspects.png, …)
//   REFSCOPE_HUNT_LEAK     the leaking run's before and after snapshots,
//   REFSCOPE_HUNT_FIXED    the fixed run's, each pair joined by ':'
//   REFSCOPE_HUNT_TYPE     the type that leaks
//   REFSCOPE_HUNT_GONE     the type the fix frees: it grows from before to
//                          after with the leak, not with the fix, and is no
//                          suspect then (usually the leaking type itself)
//   REFSCOPE_HUNT_RANK     the lowest place its suspects row may have (1: first)
//   REFSCOPE_HUNT_REASON   words the row's reason must contain
//   REFSCOPE_HUNT_PATH     words the path to it must contain, joined by '|'
//                          (the holder, the C++ edge)
//   REFSCOPE_HUNT_RETAINED optional: a type the leaked object keeps alive
//                          (its Retained tree, a few levels down: "NRT_MemInfo")
// Pictures go to $REFSCOPE_GUIDE_IMAGES (testing::save_guide_image).
#include <QApplication>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "models/diff_model.h"
#include "models/model_roles.h"
#include "models/retained_tree_model.h"
#include "models/suspects_model.h"
#include "session/snapshot_timeline.h"
#include "window/diff_panel.h"
#include "window/main_window.h"
#include "window/object_tree_panels.h"
#include "window/path_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

QString env(const char* name) { return qEnvironmentVariable(name); }

// Saves `widget` (the window, or one panel of it) as the guide's picture
// `<hunt>-<what>.png`.
bool picture(QWidget& widget, const QString& what) {
    return testing::save_guide_image(widget, env("REFSCOPE_HUNT") + QLatin1Char('-') + what);
}

// Opens a run's before and after snapshots (baseline and current) in `window`.
bool open_run(MainWindow& window, const QString& pair) {
    window.resize(1280, 800);  // sized before the files open, as a person's window is
    window.show();
    QApplication::setActiveWindow(&window);
    window.openFiles(pair.split(QLatin1Char(':')));
    return testing::wait_settled(window) && window.loadErrors().isEmpty() && window.timeline()->count() == 2;
}

// The change in `type`'s object count from before to after that the Diff
// panel shows, with its row selected; 0 when the panel has no row for it
// (nothing changed).
qlonglong shown_growth(Workspace& w, const QString& type) {
    w.showPanel(Workspace::Panel::Diff);
    DiffPanel* diff = w.diffPanel();
    const int row = diff->model()->rowOfType(type);
    if (row < 0) return 0;
    diff->selectType(type);
    diff->view()->scrollTo(diff->model()->index(row, DiffModel::TypeColumn));
    return diff->model()->index(row, DiffModel::DeltaObjectsColumn).data(SortKeyRole).toLongLong();
}

// The first item of the Retained tree under `parent`, at most `depth`
// levels down, whose object is of `type` (its text names it); the
// items on the way are expanded. Invalid if there is none.
QModelIndex find_retained(QTreeView& view, const QModelIndex& parent, const QString& type, int depth) {
    QAbstractItemModel* model = view.model();
    while (model->canFetchMore(parent)) model->fetchMore(parent);
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex child = model->index(r, RetainedTreeModel::ObjectColumn, parent);
        if (child.data().toString().contains(type)) return child;
        if (depth > 1) {
            const QModelIndex found = find_retained(view, child, type, depth - 1);
            if (found.isValid()) {
                view.expand(child);
                return found;
            }
        }
    }
    return {};
}

}  // namespace

class HuntWindowTest : public QObject {
    Q_OBJECT
private slots:
    void theChapterShowsTheLeakAndItsFix();
};

void HuntWindowTest::theChapterShowsTheLeakAndItsFix() {
    const QString type = env("REFSCOPE_HUNT_TYPE");
    if (env("REFSCOPE_HUNT").isEmpty() || type.isEmpty() || env("REFSCOPE_HUNT_GONE").isEmpty() ||
        env("REFSCOPE_HUNT_LEAK").isEmpty() || env("REFSCOPE_HUNT_FIXED").isEmpty()) {
        QSKIP("run by tests/cpp_ext/test_guide_hunts.py, which runs the hunt's program");
    }
    {
        MainWindow window;
        QVERIFY2(open_run(window, env("REFSCOPE_HUNT_LEAK")), qPrintable(window.loadErrors().join('\n')));
        Workspace* w = window.workspace();

        // Leak Suspects: the leaking type's high-confidence row, as high as
        // the chapter says, with the chapter's reason.
        SuspectsPanel* suspects = w->suspectsPanel();
        const int row = suspects->model()->rowOfType(type.toStdString());
        QVERIFY2(row >= 0, qPrintable(type));
        QStringList ranked;
        for (int r = 0; r <= row; ++r) ranked << suspects->model()->groupAt(r)->type.c_str();
        QVERIFY2(row < env("REFSCOPE_HUNT_RANK").toInt(), qPrintable(ranked.join(QStringLiteral(", "))));
        QVERIFY(suspects->model()->groupAt(row)->confidence == analysis::SuspectConfidence::High);
        w->showPanel(Workspace::Panel::Suspects);
        QVERIFY(w->selectSuspect(row));
        QVERIFY(testing::wait_settled(window));
        QVERIFY2(suspects->reasonText().contains(env("REFSCOPE_HUNT_REASON")), qPrintable(suspects->reasonText()));
        const uint32_t leaked = w->selectedObject();
        QVERIFY(leaked != kNoNode);
        QVERIFY(picture(window, QStringLiteral("suspects")));

        // The path from a root to it names the holder and the C++ hops.
        w->showPanel(Workspace::Panel::Path);
        QVERIFY(testing::wait_settled(window));
        for (const QString& words : env("REFSCOPE_HUNT_PATH").split(QLatin1Char('|'), Qt::SkipEmptyParts)) {
            QVERIFY2(w->pathText().contains(words), qPrintable(words + QStringLiteral(" not in:\n") + w->pathText()));
        }
        // The window shows the path beside the suspects: its panel alone.
        QVERIFY(picture(*w->pathPanel(), QStringLiteral("path")));

        // What it keeps alive, when the chapter looks there.
        const QString retained = env("REFSCOPE_HUNT_RETAINED");
        if (!retained.isEmpty()) {
            w->showPanel(Workspace::Panel::Retained);
            QVERIFY(testing::wait_settled(window));
            QTreeView* tree = w->retainedPanel()->view();
            const QModelIndex top = tree->model()->index(0, 0);
            QCOMPARE(w->retainedPanel()->model()->nodeAt(top), leaked);
            tree->expand(top);
            const QModelIndex found = find_retained(*tree, top, retained, 4);
            QVERIFY2(found.isValid(), qPrintable(retained));
            tree->setCurrentIndex(found);
            tree->scrollTo(found);
            QVERIFY(picture(window, QStringLiteral("retained")));
            w->selectObject(leaked);  // in case choosing the item selected it
            QVERIFY(testing::wait_settled(window));
        }

        // The graph around it.
        w->showPanel(Workspace::Panel::Graph);
        QVERIFY(testing::wait_settled(window));
        GraphWidget* graph = w->graphWidget();
        QVERIFY(graph->isVisible());
        QVERIFY2(graph->scene()->nodeItemFor(leaked), "the leaked object is not in the graph");
        QVERIFY(picture(*graph, QStringLiteral("graph")));

        // The diff from before to after: what the fix frees grew.
        const qlonglong growth = shown_growth(*w, env("REFSCOPE_HUNT_GONE"));
        QVERIFY2(growth > 0, qPrintable(QString::number(growth)));
        QVERIFY(picture(window, QStringLiteral("diff")));
    }
    // The fixed program: what leaked no longer grows and is no suspect.
    const QString gone = env("REFSCOPE_HUNT_GONE");
    MainWindow window;
    QVERIFY2(open_run(window, env("REFSCOPE_HUNT_FIXED")), qPrintable(window.loadErrors().join('\n')));
    Workspace* w = window.workspace();
    const SuspectsModel* suspects = w->suspectsPanel()->model();
    const int row = suspects->rowOfType(gone.toStdString());
    QVERIFY2(row < 0 || suspects->groupAt(row)->confidence != analysis::SuspectConfidence::High, qPrintable(gone));
    const qlonglong growth = shown_growth(*w, gone);
    QVERIFY2(growth <= 0, qPrintable(QString::number(growth)));
    QVERIFY(picture(window, QStringLiteral("fixed-diff")));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    HuntWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "hunt_window_test.moc"
