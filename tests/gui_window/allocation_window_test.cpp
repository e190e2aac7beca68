// Allocation sites in the real window, headless: a snapshot with
// tracebacks is opened; the path panel shows where the selected object was
// allocated (the program's own line, then the whole traceback), and a
// frame's link opens its line in the editor REFSCOPE_EDITOR names.
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"
#include "window/main_window.h"
#include "window/path_panel.h"
#include "window/source_opener.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

class AllocationWindowTest : public QObject {
    Q_OBJECT
private slots:
    void editorCommandsPlaceTheFileAndLine();
    void pathShowsTheAllocationAndItsLinksOpenTheEditor();
};

void AllocationWindowTest::editorCommandsPlaceTheFileAndLine() {
    const EditorCommand code = editor_command(QStringLiteral("code -g {file}:{line}"), QStringLiteral("/a b.py"), 12);
    QCOMPARE(code.program, QStringLiteral("code"));
    QCOMPARE(code.arguments, (QStringList{QStringLiteral("-g"), QStringLiteral("/a b.py:12")}));
    const EditorCommand vim = editor_command(QStringLiteral("\"/opt/my editor/gvim\" -f"), QStringLiteral("/x.py"), 3);
    QCOMPARE(vim.program, QStringLiteral("/opt/my editor/gvim"));
    QCOMPARE(vim.arguments, (QStringList{QStringLiteral("-f"), QStringLiteral("+3"), QStringLiteral("/x.py")}));
    QVERIFY(editor_command(QStringLiteral("   "), QStringLiteral("/x.py"), 3).program.isEmpty());
}

void AllocationWindowTest::pathShowsTheAllocationAndItsLinksOpenTheEditor() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // The program's file exists here; the library frame's does not.
    const QString program = dir.filePath(QStringLiteral("shop.py"));
    QFile source(program);
    QVERIFY(source.open(QIODevice::WriteOnly));
    source.write("class Order:\n    pass\n");
    source.close();
    const QString opened = dir.filePath(QStringLiteral("opened.txt"));
    const QString editor = dir.filePath(QStringLiteral("editor.sh"));
    QFile script(editor);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(QStringLiteral("#!/bin/sh\nprintf '%s\\n' \"$@\" > '%1'\n").arg(opened).toUtf8());
    script.close();
    QVERIFY(script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
    qputenv("REFSCOPE_EDITOR", editor.toUtf8());

    testing::SnapshotBuilder b;
    const uint32_t registry = b.node("dict", 2, "registry");
    b.root(registry, format::RootKind::Interpreter, "sys.modules");
    const uint32_t order = b.node("shop.Order", 1, {}, 48, format::kNodeGcTracked, "shop");
    b.dict_item(registry, b.str("order", 1), order);
    Snapshot s = b.build();
    AllocationSites& a = s.allocations;
    const uint32_t library_file = s.strings.add("/usr/lib/python3/dist-packages/orm/base.py");
    a.frames.push_back({library_file, 80, s.strings.add("Model.__new__")});
    a.frames.push_back({s.strings.add(program.toStdString()), 2, s.strings.add("create_order")});
    const uint32_t t = a.add_traceback({0, 1});
    a.node_traceback.assign(s.node_count(), 0);
    a.node_traceback[order] = t + 1;
    const std::string path = dir.filePath(QStringLiteral("traced.rscope")).toStdString();
    format::write_snapshot_file(s, path);

    MainWindow window;
    window.show();
    window.openFiles({QString::fromStdString(path)});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());

    window.workspace()->selectObject(order);
    const QString text = window.selectedPathText();
    // The program's own line is the site; the traceback starts in the library.
    QVERIFY2(text.contains(QStringLiteral("allocated at %1:2 in create_order").arg(program)), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("/usr/lib/python3/dist-packages/orm/base.py:80 in Model.__new__")),
             qPrintable(text));
    PathPanel* panel = window.workspace()->pathPanel();
    QVERIFY(panel->browser()->toHtml().contains(QLatin1String("refscope:source/1")));

    // The site's link opens the editor at its line.
    QSignalSpy opened_spy(panel, &PathPanel::sourceOpened);
    emit panel->browser()->anchorClicked(QUrl(QStringLiteral("refscope:source/1")));
    QCOMPARE(opened_spy.count(), 1);
    QVERIFY(opened_spy.front().at(2).toString().isEmpty());
    const QString expected = QStringLiteral("+2\n%1\n").arg(program);
    QTRY_VERIFY(QFileInfo(opened).size() >= expected.toUtf8().size());
    QFile out(opened);
    QVERIFY(out.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(out.readAll()), expected);

    // A file this machine does not have: one clear sentence, nothing started.
    emit panel->browser()->anchorClicked(QUrl(QStringLiteral("refscope:source/0")));
    QCOMPARE(opened_spy.count(), 2);
    QVERIFY2(opened_spy.back().at(2).toString().contains(QLatin1String("not a file on this machine")),
             qPrintable(opened_spy.back().at(2).toString()));

    // An object made before tracing started says so.
    window.workspace()->selectObject(registry);
    QVERIFY2(window.selectedPathText().contains(QLatin1String("allocated: not traced")),
             qPrintable(window.selectedPathText()));
    qunsetenv("REFSCOPE_EDITOR");
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    AllocationWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "allocation_window_test.moc"
