// Parts of the window on their own, without a MainWindow: the background
// model builder when a build gives nothing, the retained tree's panel when
// the model has nothing to show, and how many rows a column fit measures.
#include <new>

#include <QLabel>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTableView>
#include <QtTest>

#include "models/retained_tree_model.h"
#include "session_fixtures.h"
#include "snapshot_builder.h"
#include "window/column_fit.h"
#include "window/model_build_job.h"
#include "window/object_tree_panels.h"

using namespace refscope;
using namespace refscope::app;

class WindowPartsTest : public QObject {
    Q_OBJECT
private slots:
    void modelBuildJobEndsBusyWhenABuildGivesNothing();
    void retainedPanelSaysWhyItsTreeIsEmpty();
    void aColumnFitMeasuresTheRowsOnScreenNotTheWholeModel();
};

namespace {
// A list of names that counts the texts the view asks it for.
class CountingModel : public QStringListModel {
public:
    using QStringListModel::QStringListModel;
    QVariant data(const QModelIndex& index, int role) const override {
        if (role == Qt::DisplayRole) ++texts;
        return QStringListModel::data(index, role);
    }
    mutable int texts = 0;
};
}  // namespace

void WindowPartsTest::modelBuildJobEndsBusyWhenABuildGivesNothing() {
    ModelBuildJob job;
    QSignalSpy built(&job, &ModelBuildJob::built);
    job.start([]() -> QAbstractItemModel* { return nullptr; });
    QVERIFY(job.busy());
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), 5000);
    // Out of memory while building: the same.
    job.start([]() -> QAbstractItemModel* { throw std::bad_alloc(); });
    QVERIFY(job.busy());
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), 5000);
    QCOMPARE(built.count(), 0);
    // The job still builds what is asked next.
    job.start([]() -> QAbstractItemModel* { return new QStringListModel(QStringList{"a", "b"}); });
    QVERIFY(built.wait(5000));
    QVERIFY(!job.busy());
    QAbstractItemModel* model = built.at(0).at(0).value<QAbstractItemModel*>();
    QVERIFY(model);
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->thread(), job.thread());
    delete model;
}

void WindowPartsTest::retainedPanelSaysWhyItsTreeIsEmpty() {
    testing::SnapshotBuilder b;
    const uint32_t modules = b.node("dict", 1, "len 1", 232);
    const uint32_t module = b.node("module", 1, "app", 72);
    b.dict_item(modules, b.str("app"), module);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    // No reference, no root, no surplus: garbage the dominator tree does not reach.
    const uint32_t garbage = b.node("app.Garbage", 0, {}, 48, format::kNodeGcTracked, "app");
    const AnalysisPtr analysis = testing::analyse(b.build());

    RetainedPanel panel;
    panel.setAnalysis(analysis);
    auto* caption = panel.findChild<QLabel*>();
    QVERIFY(caption);
    const QString nothing_selected = caption->text();

    panel.showObject(garbage);
    QCOMPARE(panel.model()->rowCount(), 0);
    QVERIFY(!panel.model()->emptyReason().isEmpty());
    QCOMPARE(caption->text(), panel.model()->emptyReason());
    QVERIFY2(caption->text().contains(QLatin1String("app.Garbage")), qPrintable(caption->text()));
    QVERIFY2(caption->text().contains(QLatin1String("reached from no GC root")), qPrintable(caption->text()));

    panel.showObject(modules);
    QCOMPARE(panel.model()->rowCount(), 1);
    QVERIFY2(caption->text().contains(QLatin1String("keeps alive")), qPrintable(caption->text()));

    panel.showObject(kNoNode);
    QCOMPARE(panel.model()->rowCount(), 0);
    QCOMPARE(caption->text(), nothing_selected);
}

// 20,000 rows, one of them far below the screen with a long name: the fit
// reads at most ColumnFit::kMeasuredRows of them (it read 1,000, Qt's
// default, which cost ~100 ms of GUI-thread CPU per fit under ASan), and
// the long name off screen does not widen the column. The same name on
// screen does.
void WindowPartsTest::aColumnFitMeasuresTheRowsOnScreenNotTheWholeModel() {
    QStringList names;
    for (int i = 0; i < 20000; ++i) names << QStringLiteral("row %1").arg(i);
    const QString long_name(400, QLatin1Char('x'));
    names[15000] = long_name;
    CountingModel model(names);
    QTableView view;
    view.setModel(&model);
    view.resize(900, 400);
    auto* fit = new ColumnFit(&view, {0}, {0});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.texts = 0;
    fit->fit();
    QVERIFY2(model.texts > 0, "the fit read no row");
    QVERIFY2(model.texts <= 4 * ColumnFit::kMeasuredRows, qPrintable(QString::number(model.texts)));
    const int short_width = view.columnWidth(0);
    QVERIFY(short_width < view.fontMetrics().horizontalAdvance(long_name) / 4);

    // On screen, the long name is measured (a text column takes at most
    // half the viewport, so it gets that).
    model.setData(model.index(1, 0), long_name);
    fit->fit();
    QVERIFY2(view.columnWidth(0) > short_width * 2,
             qPrintable(QStringLiteral("%1 -> %2").arg(short_width).arg(view.columnWidth(0))));
}

QTEST_MAIN(WindowPartsTest)
#include "window_parts_test.moc"

