// Opening a snapshot in two stages (issue 17: "the app opens a 10M-object
// snapshot to its summary in ≤ 2 s"): the real MainWindow shows the summary's
// census (objects and shallow bytes per type, from the node columns alone) as
// soon as the file is read, while the rest of the analysis (index, roots,
// dominators, cycles, suspects) is held on the loader's worker thread by a
// gate in front of it. The columns and panels that need the graph say they
// are analysing, never a number; once the gate opens every panel fills in.
// A cancel while analysing takes the census away again. A newer snapshot of
// the process on screen (a live session's) waits for its analysis instead.
#include <condition_variable>
#include <mutex>

#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "models/model_roles.h"
#include "models/object_table_model.h"
#include "models/suspects_model.h"
#include "models/type_summary_model.h"
#include "refscope/analysis/grouping.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/format/snapshot_io.h"
#include "session/snapshot_loader.h"
#include "session/snapshot_timeline.h"
#include "window/main_window.h"
#include "window/objects_panel.h"
#include "window/summary_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using testing::data_file;

namespace {

const char* kSnapshot = "app-registry-2.rscope";
const char* kEarlier = "app-registry-1.rscope";  // the same process, earlier

// Holds the loader's analysis step until opened; the read step runs freely.
class AnalysisGate {
public:
    explicit AnalysisGate(SnapshotLoader& loader) {
        loader.setAnalyseFunction([this](const analysis::SnapshotAnalysis& read, const analysis::AnalysisOptions& options) {
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [this] { return open_; });
            }
            return analysis::SnapshotAnalysis::analyse_read(read, options);
        });
    }
    ~AnalysisGate() { open(); }
    void open() {
        {
            std::lock_guard lock(mutex_);
            open_ = true;
        }
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool open_ = false;
};

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role).toString();
}

}  // namespace

class OpenStagesWindowTest : public QObject {
    Q_OBJECT

private slots:
    void summaryBeforeTheAnalysisThenEveryPanel();
    void cancelWhileAnalysingTakesTheCensusAway();
    void aNewerSnapshotOfTheProcessShownWaitsForItsAnalysis();
};

void OpenStagesWindowTest::summaryBeforeTheAnalysisThenEveryPanel() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    AnalysisGate gate(*window.loader());
    Workspace* workspace = window.workspace();
    SummaryPanel* summary = workspace->summaryPanel();
    window.workspace()->showPanel(Workspace::Panel::Summary);

    const QString file = data_file(kSnapshot);
    window.openFiles({file});
    // The census arrives while the analysis is held.
    QVERIFY(QTest::qWaitFor([&] { return summary->model()->rowCount() > 0; }, 60'000));
    const TypeSummaryModel* census = summary->model();
    QVERIFY(census->analysing());
    QVERIFY(workspace->analysing());
    QVERIFY(!window.isSettled());
    QCOMPARE(window.timeline()->count(), 0);  // opened once its analysis is done

    // Objects and shallow bytes per type are core's own census of the file.
    const Snapshot snapshot = format::read_snapshot_file(file.toStdString());
    const auto expected = analysis::group_objects(snapshot, analysis::GroupBy::Type);
    QCOMPARE(census->rowCount(), int(expected.size()));
    for (const analysis::GroupTotal& group : expected) {
        const int row = census->rowOfGroup(QString::fromStdString(group.name));
        QVERIFY2(row >= 0, group.name.c_str());
        QCOMPARE(census->data(census->index(row, TypeSummaryModel::ObjectsColumn), SortKeyRole).toULongLong(),
                 group.objects);
        QCOMPARE(census->data(census->index(row, TypeSummaryModel::ShallowBytesColumn), SortKeyRole).toULongLong(),
                 group.bytes);
        // What needs the graph says so: never a number.
        QCOMPARE(cell(*census, row, TypeSummaryModel::RetainedBytesColumn), TypeSummaryModel::analysingText());
        QCOMPARE(cell(*census, row, TypeSummaryModel::UnexplainedColumn), TypeSummaryModel::analysingText());
    }
    QCOMPARE(census->totalObjects(), uint64_t(snapshot.node_count()));
    QVERIFY(window.countsText().contains(QStringLiteral("analysing")));
    QVERIFY(window.windowTitle().contains(QStringLiteral("analysing")));
    QVERIFY(testing::find<QProgressBar>(window, "loadProgress")->isVisible());
    SuspectsPanel* suspects = workspace->suspectsPanel();
    QCOMPARE(suspects->model()->rowCount(), 0);
    QVERIFY(testing::find<QLabel>(window, "suspectsHeadline")->text().startsWith(QStringLiteral("Analysing")));

    // A type chosen meanwhile is listed once its objects can be shown.
    const QString chosen = QString::fromStdString(expected.front().name);
    QVERIFY(summary->selectGroup(chosen));
    QCOMPARE(workspace->objectsPanel()->model()->rowCount(), 0);

    gate.open();
    QVERIFY(testing::wait_settled(window));
    QVERIFY(!workspace->analysing());
    QCOMPARE(window.timeline()->count(), 1);
    QCOMPARE(workspace->analysis(), window.timeline()->current());
    QVERIFY(workspace->analysis()->dominators() != nullptr);
    const TypeSummaryModel* full = summary->model();
    QVERIFY(!full->analysing());
    QCOMPARE(full->rowCount(), int(expected.size()));
    uint64_t retained = 0;
    for (int row = 0; row < full->rowCount(); ++row) {
        QVERIFY(cell(*full, row, TypeSummaryModel::RetainedBytesColumn) != TypeSummaryModel::analysingText());
        retained += full->data(full->index(row, TypeSummaryModel::RetainedBytesColumn), SortKeyRole).toULongLong();
    }
    QVERIFY(retained > 0);
    QVERIFY(suspects->model()->rowCount() > 0);
    QVERIFY(!testing::find<QLabel>(window, "suspectsHeadline")->text().startsWith(QStringLiteral("Analysing")));
    QVERIFY(!window.countsText().contains(QStringLiteral("analysing")));
    QVERIFY(!window.windowTitle().contains(QStringLiteral("analysing")));
    // The chosen type stayed chosen and its objects are listed now.
    QCOMPARE(full->groupName(summary->view()->currentIndex().row()), chosen);
    QCOMPARE(uint64_t(workspace->objectsPanel()->model()->rowCount()), expected.front().objects);
}

void OpenStagesWindowTest::cancelWhileAnalysingTakesTheCensusAway() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    AnalysisGate gate(*window.loader());
    window.openFiles({data_file(kSnapshot)});
    SummaryPanel* summary = window.workspace()->summaryPanel();
    QVERIFY(QTest::qWaitFor([&] { return summary->model()->rowCount() > 0; }, 60'000));
    auto* pages = window.centralWidget();
    QCOMPARE(qobject_cast<QStackedWidget*>(pages)->currentWidget(), static_cast<QWidget*>(window.workspace()));

    window.loader()->cancel();
    gate.open();
    QVERIFY(testing::wait_settled(window));
    // Nothing was opened: the window is back on its empty state.
    QCOMPARE(window.timeline()->count(), 0);
    QVERIFY(!window.workspace()->analysing());
    QVERIFY(window.workspace()->analysis() == nullptr);
    QVERIFY(qobject_cast<QStackedWidget*>(pages)->currentWidget() != static_cast<QWidget*>(window.workspace()));
    QCOMPARE(window.windowTitle(), QStringLiteral("refscope"));
}

void OpenStagesWindowTest::aNewerSnapshotOfTheProcessShownWaitsForItsAnalysis() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openFiles({data_file(kEarlier)});
    QVERIFY(testing::wait_settled(window));
    Workspace* workspace = window.workspace();
    const AnalysisPtr earlier = workspace->analysis();
    QVERIFY(earlier && earlier->has_graph());
    QVERIFY(window.selectTopSuspect());
    const uint32_t selected = workspace->selectedObject();
    QVERIFY(selected != kNoNode);

    AnalysisGate gate(*window.loader());
    QSignalSpy read(window.loader(), &SnapshotLoader::read);
    window.openFiles({data_file(kSnapshot)});
    QVERIFY(read.wait(60'000));
    QCoreApplication::processEvents();
    // Read, held: the analysed snapshot stays on screen with its selection.
    QCOMPARE(workspace->analysis(), earlier);
    QVERIFY(!workspace->analysing());
    QCOMPARE(workspace->selectedObject(), selected);

    gate.open();
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(workspace->analysis(), window.timeline()->current());
    QVERIFY(workspace->analysis() != earlier);
    QVERIFY(workspace->analysis()->has_graph());
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    OpenStagesWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "open_stages_window_test.moc"
