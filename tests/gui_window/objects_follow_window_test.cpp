// The Objects panel lists what was chosen, through the real window,
// headless (issue 16, defects a first real use found): after the suspects
// are ranked again (a Middle snapshot chosen, or taken away) it lists what
// the chosen suspect's row accuses now, not the old row's objects; after
// the filter field is cleared it lists again what it listed before the
// filter, not nothing. Three snapshots of one process (jobs_snapshot) are
// opened from files.
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "models/object_table_model.h"
#include "models/suspects_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/format/snapshot_io.h"
#include "session/snapshot_timeline.h"
#include "snapshot_builder.h"
#include "window/filter_bar.h"
#include "window/main_window.h"
#include "window/object_sets.h"
#include "window/objects_panel.h"
#include "window/summary_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

// Snapshot `k` (0: baseline, 1: middle, 2: current) of a process whose
// module keeps app.Job objects in a list: three from the start, each with a
// reference nobody explains (a high-confidence row in every ranking), and
// five more added between the baseline and the middle snapshot, still there
// in the current one: too few to count as growth, so they are accused only
// as survivors, once the middle snapshot is chosen. Objects keep their
// addresses across the snapshots (the builder's addresses follow the ids).
Snapshot jobs_snapshot(uint32_t k) {
    testing::SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 64);
    const uint32_t globals = b.node("dict", 1, {}, 640);
    const uint32_t jobs = b.node("list", 1, {}, 120);
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    b.edge(module, globals, format::EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(globals, b.str("jobs"), jobs);
    // A second, small list: `size>50` keeps only the jobs list.
    b.dict_item(globals, b.str("spare"), b.node("list", 1, {}, 40));
    const uint32_t count = k == 0 ? 3 : 8;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t job = b.node("app.Job", i < 3 ? 2 : 1, {}, 56, format::kNodeGcTracked, "app");
        b.edge(jobs, job, format::EdgeKind::Index, i);
    }
    Snapshot s = b.build();
    s.header.pid = 4242;
    s.header.executable = "/usr/bin/python3";
    s.header.sequence = k + 1;
    s.header.time_unix_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(k) * 1'000'000'000;
    return s;
}

// Opens the three snapshots, the newest current, the oldest as baseline;
// false (with a failed check) if that did not work.
bool open_three(MainWindow& window, const QTemporaryDir& dir) {
    QStringList files;
    for (uint32_t i = 0; i < 3; ++i) {
        files << dir.filePath(QStringLiteral("s%1.rscope").arg(i + 1));
        format::write_snapshot_file(jobs_snapshot(i), files.back().toStdString());
    }
    window.resize(1280, 800);
    window.show();
    window.openFiles(files);
    if (!testing::wait_settled(window) || !window.loadErrors().isEmpty()) return false;
    SnapshotTimeline* timeline = window.timeline();
    timeline->setCurrent(timeline->findByPath(files[2]));
    timeline->setBaseline(timeline->findByPath(files[0]));
    return testing::wait_settled(window) && window.workspace()->comparison();
}

std::set<uint32_t> listed(const ObjectsPanel& panel) {
    std::set<uint32_t> nodes;
    for (int r = 0; r < panel.model()->rowCount(); ++r) nodes.insert(panel.model()->nodeAt(r));
    return nodes;
}

// The type of the suspects table's current row, "" without one.
std::string current_type(SuspectsPanel& panel) {
    const analysis::SuspectGroup* row = panel.model()->groupAt(panel.view()->currentIndex().row());
    return row ? row->type : std::string();
}

// What the suspects table's current row accuses, by the ranking shown now.
std::set<uint32_t> accused_by_current_row(Workspace& w) {
    SuspectsPanel& panel = *w.suspectsPanel();
    const analysis::SuspectGroup* row = panel.model()->groupAt(panel.view()->currentIndex().row());
    if (!row) return {};
    const std::vector<uint32_t> nodes = objects_of_suspect(w.analysis()->snapshot(), *w.suspects(), *row);
    return {nodes.begin(), nodes.end()};
}

// Chooses `snapshot` in the toolbar's Middle box, as a person does.
void pick_middle(MainWindow& window, const AnalysisPtr& snapshot) {
    auto* box = testing::find<QComboBox>(window, "middleSnapshot");
    const int item = box->findData(snapshot ? window.timeline()->indexOf(snapshot) : -1);
    QVERIFY(item >= 0);
    box->setCurrentIndex(item);
    emit box->activated(item);
}

}  // namespace

class ObjectsFollowWindowTest : public QObject {
    Q_OBJECT
private slots:
    void objectsFollowTheSuspectsRankedAgain();
    void clearingTheFilterListsTheChosenGroupAgain();
};

void ObjectsFollowWindowTest::objectsFollowTheSuspectsRankedAgain() {
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(open_three(window, dir));
    Workspace* w = window.workspace();
    SuspectsPanel* suspects = w->suspectsPanel();
    ObjectsPanel* objects = w->objectsPanel();

    // The app.Job row: the three with unexplained references.
    QVERIFY(suspects->selectRow(suspects->model()->rowOfType("app.Job")));
    const uint32_t selected = w->selectedObject();
    QVERIFY(selected != kNoNode);
    const std::set<uint32_t> since_baseline = listed(*objects);
    QCOMPARE(since_baseline, accused_by_current_row(*w));
    QVERIFY(!since_baseline.empty());

    // Middle: the survivors between the baseline and the middle are ranked;
    // the row of the same type is current again and Objects lists what it
    // accuses now. The selected object stays (re-ranking is not a choice).
    pick_middle(window, window.timeline()->at(1));
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(window.timeline()->middle(), window.timeline()->at(1));
    QVERIFY(w->comparison() && w->comparison()->survivors());
    QCOMPARE(current_type(*suspects), std::string("app.Job"));
    const std::set<uint32_t> survivors = listed(*objects);
    QCOMPARE(survivors, accused_by_current_row(*w));
    QVERIFY(survivors != since_baseline);  // the re-ranking did change the row
    QVERIFY2(objects->caption().contains(QLatin1String("app.Job")), qPrintable(objects->caption()));
    QCOMPARE(w->selectedObject(), selected);

    // And back to no middle.
    pick_middle(window, nullptr);
    QVERIFY(testing::wait_settled(window));
    QVERIFY(!window.timeline()->middle());
    QCOMPARE(listed(*objects), since_baseline);
    QCOMPARE(listed(*objects), accused_by_current_row(*w));

    // A summary type listed in Objects is not replaced by a re-ranking.
    QVERIFY(suspects->selectRow(suspects->model()->rowOfType("app.Job")));
    QVERIFY(w->summaryPanel()->selectGroup(QStringLiteral("str")));
    const std::set<uint32_t> strs = listed(*objects);
    QVERIFY(!strs.empty() && strs != since_baseline);
    pick_middle(window, window.timeline()->at(1));
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(current_type(*suspects), std::string("app.Job"));
    QCOMPARE(listed(*objects), strs);
}

void ObjectsFollowWindowTest::clearingTheFilterListsTheChosenGroupAgain() {
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(open_three(window, dir));
    Workspace* w = window.workspace();
    SuspectsPanel* suspects = w->suspectsPanel();
    ObjectsPanel* objects = w->objectsPanel();
    FilterBar* filter = w->filterBar();

    // A Summary type looked at first, then the suspect chosen: the Summary
    // keeps its current row, which filtering must not choose again.
    QVERIFY(w->summaryPanel()->selectGroup(QStringLiteral("str")));
    QVERIFY(suspects->selectRow(suspects->model()->rowOfType("app.Job")));
    const std::set<uint32_t> chosen = listed(*objects);
    const QString caption = objects->caption();
    const uint32_t selected = w->selectedObject();
    QVERIFY(!chosen.empty());

    // Filtering lists the matches...
    filter->lineEdit()->setText(QStringLiteral("type:str"));
    QTest::keyClick(filter->lineEdit(), Qt::Key_Return);
    QVERIFY(testing::wait_settled(window));
    QVERIFY(filter->result().nodes);
    QCOMPARE(objects->model()->rowCount(), int(filter->result().nodes->size()));
    QVERIFY(listed(*objects) != chosen);

    // ... clearing the field lists the suspect's objects again, with the
    // selected object's row current.
    filter->lineEdit()->clear();
    QVERIFY(testing::wait_settled(window));
    QVERIFY(!filter->result().nodes);
    QCOMPARE(listed(*objects), chosen);
    QCOMPARE(objects->caption(), caption);
    QCOMPARE(w->selectedObject(), selected);
    QCOMPARE(objects->model()->nodeAt(objects->view()->currentIndex().row()), selected);

    // A type chosen in the Summary while filtered is what clearing comes
    // back to.
    filter->lineEdit()->setText(QStringLiteral("size>50"));
    QTest::keyClick(filter->lineEdit(), Qt::Key_Return);
    QVERIFY(testing::wait_settled(window));
    QVERIFY(filter->result().nodes);
    QVERIFY(w->summaryPanel()->selectGroup(QStringLiteral("list")));
    const std::set<uint32_t> big_lists = listed(*objects);
    QCOMPARE(big_lists.size(), size_t{1});  // the filter's list, not the small one
    filter->lineEdit()->clear();
    QVERIFY(testing::wait_settled(window));
    // What was listed when the row was chosen (the filter's lists), not the
    // suspect chosen before.
    QCOMPARE(listed(*objects), big_lists);
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    ObjectsFollowWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "objects_follow_window_test.moc"
