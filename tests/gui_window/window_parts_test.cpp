// Parts of the window on their own, without a MainWindow: the background
// model builder when a build gives nothing, the retained tree's panel when
// the model has nothing to show, and how many rows a column fit measures.
#include <memory>
#include <new>

#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTableView>
#include <QTreeView>
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
    void aColumnFitMeasuresTheRowsOnScreenNotTheWholeModel_data();
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

// 20,000 rows, one of them 500 rows below the screen with a long name: the
// fit reads at most ColumnFit::kMeasuredRows of them (it read 1,000, Qt's
// default, which cost ~100 ms of GUI-thread CPU per fit under ASan), so
// the long name does not widen the column, where Qt's default measured it
// and gave the column half the viewport. The same name on screen does
// widen it. For a table (its horizontal header's precision) and a tree
// (its header's).
void WindowPartsTest::aColumnFitMeasuresTheRowsOnScreenNotTheWholeModel_data() {
    QTest::addColumn<bool>("tree");
    QTest::newRow("table") << false;
    QTest::newRow("tree") << true;
}

void WindowPartsTest::aColumnFitMeasuresTheRowsOnScreenNotTheWholeModel() {
    QFETCH(bool, tree);
    QStringList names;
    for (int i = 0; i < 20000; ++i) names << QStringLiteral("row %1").arg(i);
    const QString long_name(400, QLatin1Char('x'));
    names[500] = long_name;
    CountingModel model(names);
    std::unique_ptr<QAbstractItemView> view;
    if (tree) {
        auto tree_view = std::make_unique<QTreeView>();
        // A tree's one column would otherwise stretch to the viewport.
        tree_view->header()->setStretchLastSection(false);
        view = std::move(tree_view);
    } else {
        view = std::make_unique<QTableView>();
    }
    view->setModel(&model);
    view->resize(900, 400);
    auto* fit = new ColumnFit(view.get(), {0}, {0});
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    const auto width = [&] {
        if (tree) return static_cast<QTreeView*>(view.get())->columnWidth(0);
        return static_cast<QTableView*>(view.get())->columnWidth(0);
    };
    model.texts = 0;
    fit->fit();
    QVERIFY2(model.texts > 0, "the fit read no row");
    QVERIFY2(model.texts <= 4 * ColumnFit::kMeasuredRows, qPrintable(QString::number(model.texts)));
    // Row 500 unmeasured: the column fits "row 99", far under the half
    // viewport the long name would get.
    const int short_width = width();
    const int half = view->viewport()->width() / 2;
    QVERIFY2(short_width < half / 2, qPrintable(QStringLiteral("%1 of %2").arg(short_width).arg(half)));

    // On screen, the long name is measured (a text column takes at most
    // half the viewport, so it gets that).
    model.setData(model.index(1, 0), long_name);
    fit->fit();
    QVERIFY2(width() >= half - 1, qPrintable(QStringLiteral("%1 of %2").arg(width()).arg(half)));
}

QTEST_MAIN(WindowPartsTest)
#include "window_parts_test.moc"

