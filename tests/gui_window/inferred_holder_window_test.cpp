// The inferred C++ holder (core/src/analysis/inferred_holders.cpp) in the
// real window, headless: a snapshot with the nanobind page's closure cycle
// through an undescribed wrapper is opened; the wrapper's suspects row says
// who probably holds its holder, and so does the path shown for it.
#include <QApplication>
#include <QTemporaryDir>
#include <QtTest>

#include "models/suspects_model.h"
#include "refscope/analysis/display_text.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"
#include "window/main_window.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

// function callback → .__closure__ → tuple → [0] → cell → .cell_contents →
// pbwrap.Wrapper, whose undescribed C++ member holds the function (its one
// reference nobody in the graph accounts for). Returns the wrapper's id.
uint32_t closure_cycle(testing::SnapshotBuilder& b) {
    for (const char* name : {"function", "tuple", "cell"})
        b.snapshot().types[b.type(name)].flags = format::kTypeFactsRecorded | format::kTypeHasGc;
    b.snapshot().types[b.type("pbwrap.Wrapper", "pbwrap")].flags = format::kTypeFactsRecorded | format::kTypeBound;
    const uint32_t f = b.node("function", 1, "callback");
    const uint32_t closure = b.node("tuple");
    const uint32_t cell = b.node("cell");
    const uint32_t w = b.node("pbwrap.Wrapper", 1, {}, 24, 0, "pbwrap");
    b.edge(f, closure, format::EdgeKind::Field, b.string_id("__closure__"));
    b.edge(closure, cell, format::EdgeKind::Index, 0);
    b.edge(cell, w, format::EdgeKind::Field, b.string_id("cell_contents"));
    return w;
}

}  // namespace

class InferredHolderWindowTest : public QObject {
    Q_OBJECT
private slots:
    void suspectsAndPathNameTheLikelyCppHolder();
};

void InferredHolderWindowTest::suspectsAndPathNameTheLikelyCppHolder() {
    testing::SnapshotBuilder b;
    const uint32_t wrapper = closure_cycle(b);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("inferred.rscope")).toStdString();
    format::write_snapshot_file(b.build(), path);

    MainWindow window;
    window.show();
    window.openFiles({QString::fromStdString(path)});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());

    const QString sentence = QStringLiteral("probably held by `pbwrap.Wrapper` @ %1 through a C++ member")
                                 .arg(QString::fromStdString(analysis::format_address(
                                     testing::SnapshotBuilder::address_of(wrapper))));
    SuspectsPanel* panel = window.workspace()->suspectsPanel();
    int row = -1;
    for (int r = 0; r < panel->model()->rowCount(); ++r) {
        if (panel->model()->groupAt(r)->type == "pbwrap.Wrapper") row = r;
    }
    QVERIFY(row >= 0);
    QVERIFY(panel->selectRow(row));
    QVERIFY2(panel->reasonText().contains(sentence), qPrintable(panel->reasonText()));
    // The row's representative is the wrapper: its path explains who holds it.
    QCOMPARE(window.workspace()->selectedObject(), wrapper);
    QVERIFY2(window.selectedPathText().contains(sentence), qPrintable(window.selectedPathText()));
    QVERIFY2(window.selectedPathText().contains(QLatin1String("retained by function")),
             qPrintable(window.selectedPathText()));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    InferredHolderWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "inferred_holder_window_test.moc"
