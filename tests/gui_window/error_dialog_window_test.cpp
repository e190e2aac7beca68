// The dialog a user meets when a snapshot was written by a newer refscope,
// as the user guide's troubleshooting chapter shows it
// (docs/guide/troubleshooting.md): it names the version that reads the file
// (issue 15, item 5). The reader's message itself is checked in
// tests/format; here, that the window passes it on whole.
#include <QApplication>
#include <QMessageBox>
#include <QtTest>

#include "refscope/format/snapshot_io.h"
#include "window/main_window.h"
#include "session/snapshot_timeline.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

class ErrorDialogWindowTest : public QObject {
    Q_OBJECT
private slots:
    void newerSnapshotNamesTheRefscopeThatReadsIt();
};

namespace {

// The reader's message for `file`, or "" when it reads.
QString reader_message(const QString& file) {
    try {
        format::read_snapshot_file(file.toStdString());
    } catch (const format::ReadError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

void ErrorDialogWindowTest::newerSnapshotNamesTheRefscopeThatReadsIt() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openFiles({testing::data_file("newer-version.rscope")});
    QVERIFY(testing::wait_settled(window));
    QMessageBox* dialog = window.errorDialog();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(dialog->text(), QStringLiteral("Could not open newer-version.rscope"));
    const QString message = reader_message(testing::data_file("newer-version.rscope"));
    QCOMPARE(dialog->informativeText(), message);
    QVERIFY2(message.contains(QLatin1String("open it with refscope 2.0.0 or later")), qPrintable(message));
    QCOMPARE(window.timeline()->count(), 0);
    QVERIFY(testing::save_guide_image(*dialog, "troubleshooting-newer-snapshot"));
    dialog->accept();
}

int main(int argc, char** argv) {
    refscope::testing::isolate_settings();
    QApplication app(argc, argv);
    ErrorDialogWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "error_dialog_window_test.moc"
