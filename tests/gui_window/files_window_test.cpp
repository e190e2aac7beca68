// The real MainWindow, driven as a person would (headless): what happens
// to files (a corrupt one, several bad ones, a missing one, recent files,
// closing and reloading, drag and drop, the baseline choice), the panel
// shortcuts, settings kept between runs, the command line and a screenshot.
// The panels over the opened scenario: main_window_test.cpp.
#include <QApplication>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QTabWidget>
#include <QFileInfo>
#include <QImage>
#include <QCommandLineParser>
#include <QSplitter>
#include <QStackedWidget>
#include <QUrl>
#include <QtTest>

#include "refscope/format/snapshot_io.h"
#include "session/snapshot_timeline.h"
#include "window/command_line.h"
#include "window/main_window.h"
#include "window/recent_files.h"
#include "window/workspace.h"
#include "session_fixtures.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using testing::data_file;
using testing::open_scenario;
using testing::wait_settled;

class FilesWindowTest : public QObject {
    Q_OBJECT

private slots:
    void corruptFileShowsReaderMessage();
    void severalBadFilesShareOneDialog();
    void missingFileFromCommandLine();
    void recentFilesAndReopen();
    void closeAndReload();
    void dropOpensFiles();
    void baselineChoiceAndMismatch();
    void panelShortcuts();
    void settingsKeepLayout();
    void commandLine();
    void screenshot();
};

void FilesWindowTest::corruptFileShowsReaderMessage() {
    MainWindow window;
    window.show();
    const QString bad = data_file("truncated.rscope");
    QString reader_message;
    try {
        format::read_snapshot_file(bad.toStdString());
    } catch (const format::ReadError& e) {
        reader_message = QString::fromUtf8(e.what());
    }
    QVERIFY(!reader_message.isEmpty());

    window.openFiles({bad});
    QVERIFY(wait_settled(window));
    // The real dialog, found the way a person sees it: the active modal window.
    QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
    auto* dialog = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    QVERIFY(dialog);
    QCOMPARE(dialog, window.errorDialog());
    QCOMPARE(dialog->text(), QStringLiteral("Could not open truncated.rscope"));
    QCOMPARE(dialog->informativeText(), reader_message);
    QCOMPARE(dialog->icon(), QMessageBox::Warning);
    dialog->accept();
    QTRY_VERIFY(window.errorDialog() == nullptr);
    // The window is as it was: empty, usable.
    QCOMPARE(window.timeline()->count(), 0);
    QVERIFY(open_scenario(window));
    QCOMPARE(window.timeline()->count(), 2);
}

void FilesWindowTest::severalBadFilesShareOneDialog() {
    MainWindow window;
    window.show();
    window.openFiles({data_file("bad-magic.rscope"), data_file(testing::kScenarioBaseline), data_file("bad-checksum.rscope")});
    QVERIFY(wait_settled(window));
    QCOMPARE(window.timeline()->count(), 1);  // the good one opened anyway
    QMessageBox* dialog = window.errorDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->text(), QStringLiteral("Could not open 2 files"));
    QVERIFY(dialog->informativeText().contains(QLatin1String("not a refscope snapshot")));
    QVERIFY(dialog->informativeText().contains(QLatin1String("checksum mismatch")));
    QCOMPARE(window.loadErrors().size(), 2);
    dialog->accept();
}

void FilesWindowTest::missingFileFromCommandLine() {
    MainWindow window;
    window.show();
    window.openFiles({QStringLiteral("/nonexistent/heap.rscope")});
    QVERIFY(wait_settled(window));
    QVERIFY(window.errorDialog());
    QVERIFY(window.errorDialog()->informativeText().contains(QLatin1String("No such file or directory")));
    window.errorDialog()->accept();
}

void FilesWindowTest::recentFilesAndReopen() {
    MainWindow window;
    window.show();
    window.recentFiles()->clear();
    QVERIFY(open_scenario(window));
    const QStringList recent = window.recentFiles()->files();
    QCOMPARE(recent.size(), 2);
    QVERIFY(recent.contains(QFileInfo(data_file(testing::kScenarioBaseline)).absoluteFilePath()));
    auto* menu = testing::find<QMenu>(window, "recentMenu");
    QVERIFY(menu);
    window.recentFiles()->fillMenu(menu);
    QVERIFY(menu->actions().size() >= 3);  // two files, separator, clear
    // Opening a file that is already open only makes it current.
    window.openFiles({data_file(testing::kScenarioBaseline)});
    QVERIFY(wait_settled(window));
    QCOMPARE(window.timeline()->count(), 2);
    QCOMPARE(window.timeline()->current()->snapshot().header.sequence, uint64_t{1});
    // A new window (next start) lists them too, in the empty state.
    MainWindow next;
    QCOMPARE(next.recentFiles()->files(), window.recentFiles()->files());
}

void FilesWindowTest::closeAndReload() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    const AnalysisPtr before = window.timeline()->current();
    window.reloadCurrent();
    QVERIFY(wait_settled(window));
    QCOMPARE(window.timeline()->count(), 2);
    QVERIFY(window.timeline()->current() != before);  // read again
    QCOMPARE(window.timeline()->current()->path(), before->path());

    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(window.timeline()->count(), 1);
    window.closeCurrent();
    QCOMPARE(window.timeline()->count(), 0);
    auto* pages = qobject_cast<QStackedWidget*>(window.centralWidget());
    QCOMPARE(pages->currentWidget()->objectName(), QStringLiteral("emptyState"));
    QVERIFY(window.countsText().isEmpty());
}

void FilesWindowTest::dropOpensFiles() {
    MainWindow window;
    window.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(data_file(testing::kScenarioBaseline)), QUrl::fromLocalFile(data_file(testing::kScenarioCurrent))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QVERIFY(wait_settled(window));
    QCOMPARE(window.timeline()->count(), 2);

    // Text without files is refused.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent refuse(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refuse.setAccepted(false);
    QApplication::sendEvent(&window, &refuse);
    QVERIFY(!refuse.isAccepted());
}

void FilesWindowTest::baselineChoiceAndMismatch() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    SnapshotTimeline* timeline = window.timeline();
    // No baseline: the snapshot's own suspects (no growth evidence).
    timeline->setBaseline(nullptr);
    QVERIFY(wait_settled(window));
    QVERIFY(!window.workspace()->comparison());
    QCOMPARE(window.workspace()->suspects(), timeline->current()->suspects());
    // Wrong order: the newer as baseline of the older is refused, in words.
    const AnalysisPtr newer = timeline->current();
    timeline->setCurrent(timeline->at(0));
    timeline->setBaseline(newer);
    QVERIFY(wait_settled(window));
    auto* note = testing::find<QLabel>(window, "comparisonNote");
    QVERIFY2(note->text().contains(QLatin1String("out of order")), qPrintable(note->text()));
    QVERIFY(!window.workspace()->comparison());
}

void FilesWindowTest::panelShortcuts() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_2, Qt::AltModifier);
    auto* groups = testing::find<QTabWidget>(window, "groupTabs");
    QCOMPARE(groups->currentWidget()->objectName(), QStringLiteral("summaryPanel"));
    QTRY_COMPARE(QApplication::focusWidget()->objectName(), QStringLiteral("summaryView"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_8, Qt::AltModifier);
    auto* details = testing::find<QTabWidget>(window, "detailTabs");
    QCOMPARE(details->currentWidget()->objectName(), QStringLiteral("graphPanel"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_6, Qt::AltModifier);
    QCOMPARE(details->currentWidget()->objectName(), QStringLiteral("retainersPanel"));
    QTRY_COMPARE(QApplication::focusWidget()->objectName(), QStringLiteral("retainersView"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_5, Qt::AltModifier);
    QTRY_COMPARE(QApplication::focusWidget()->objectName(), QStringLiteral("pathText"));
}

void FilesWindowTest::settingsKeepLayout() {
    QList<int> sizes;
    {
        MainWindow window;
        QVERIFY(open_scenario(window, QSize(1111, 777)));
        window.workspace()->showPanel(Workspace::Panel::Summary);
        auto* splitter = testing::find<QSplitter>(window, "mainSplitter");
        // Both above the panes' minimum widths (which depend on what they show).
        splitter->setSizes({620, 487});
        sizes = splitter->sizes();
        window.close();  // saves
    }
    MainWindow again;
    again.show();
    QVERIFY(open_scenario(again, again.size()));  // the size it restored
    QCOMPARE(again.size(), QSize(1111, 777));
    auto* groups = testing::find<QTabWidget>(again, "groupTabs");
    QCOMPARE(groups->currentWidget()->objectName(), QStringLiteral("summaryPanel"));
    const QList<int> restored = testing::find<QSplitter>(again, "mainSplitter")->sizes();
    QCOMPARE(restored, sizes);
}

void FilesWindowTest::commandLine() {
    {
        QCommandLineParser parser;
        QString error;
        const auto options = parse_command_line(
            parser,
            {"refscope", "a.rscope", "b.rscope", "--select-top-suspect", "--print-path", "--screenshot", "x.png",
             "--quit-after-screenshot", "--window-size", "1400x900"},
            &error);
        QVERIFY2(options, qPrintable(error));
        QCOMPARE(options->files, (QStringList{"a.rscope", "b.rscope"}));
        QVERIFY(options->selectTopSuspect && options->printPath && options->quitAfterScreenshot);
        QCOMPARE(options->screenshot, QStringLiteral("x.png"));
        QCOMPARE(options->windowSize, QSize(1400, 900));
    }
    for (const QStringList& bad : {QStringList{"refscope", "--window-size", "big"},
                                   QStringList{"refscope", "--no-such-option"},
                                   QStringList{"refscope", "--print-path", "a.rscope"}}) {
        QCommandLineParser parser;
        QString error;
        QVERIFY(!parse_command_line(parser, bad, &error));
        QVERIFY(!error.isEmpty());
    }
}

void FilesWindowTest::screenshot() {
    MainWindow window;
    QVERIFY(open_scenario(window, QSize(1400, 900)));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(wait_settled(window));
    const QString file = testing::output_file("app-main-window.png");
    const QPixmap picture = window.grab();
    QCOMPARE(picture.size(), QSize(1400, 900) * picture.devicePixelRatio());
    QVERIFY(picture.save(file, "PNG"));
    QImage image(file);
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(), picture.width());
    // Not a blank picture: the window drew text and tables.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
    }
    QVERIFY(colours.size() > 20);
    qInfo("screenshot: %s", qPrintable(file));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    FilesWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "files_window_test.moc"
