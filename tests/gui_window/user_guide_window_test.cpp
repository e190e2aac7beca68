// Help ▸ User Guide (issue 16, item 3): the guide opens inside the app,
// offline, from the resource built out of docs/user-guide.md, with its
// headings as contents and a find field that finds words.
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QTableWidget>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>

#include "window/main_window.h"
#include "window/user_guide_dialog.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

QString read_all(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The "## " and "### " headings of the Markdown source, as rendered text.
QStringList source_headings(const QString& markdown) {
    QStringList headings;
    for (const QString& line : markdown.split(u'\n')) {
        if (line.startsWith(QLatin1String("## "))) headings << line.mid(3).remove(u'`');
        if (line.startsWith(QLatin1String("### "))) headings << line.mid(4).remove(u'`');
    }
    return headings;
}

}  // namespace

class UserGuideWindowTest : public QObject {
    Q_OBJECT

private slots:
    void theGuideOpensFromTheHelpMenu();
    void theFindFieldFindsWords();
};

void UserGuideWindowTest::theGuideOpensFromTheHelpMenu() {
    MainWindow window;
    window.show();
    QApplication::setActiveWindow(&window);  // window shortcuts need the active window

    // The resource is the docs file itself, not a copy.
    const QString source = read_all(QStringLiteral(REFSCOPE_TEST_DATA_DIR "/../../docs/user-guide.md"));
    QVERIFY(source.size() > 10'000);
    QCOMPARE(read_all(QString::fromLatin1(kUserGuideResource)), source);

    // In the Help menu, with its shortcut, which Keyboard Shortcuts lists.
    auto* action = window.findChild<QAction*>(QStringLiteral("showUserGuide"));
    QVERIFY(action);
    bool in_help = false;
    for (QAction* menu : window.menuBar()->actions()) {
        if (menu->menu() && menu->menu()->actions().contains(action)) in_help = menu->text() == QLatin1String("&Help");
    }
    QVERIFY(in_help);
    QTest::keyClick(&window, Qt::Key_F1);
    auto* shortcuts = window.findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
    QVERIFY(shortcuts);
    auto* table = shortcuts->findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
    QString guide_keys;
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->item(r, 0)->text() == QLatin1String("User Guide")) guide_keys = table->item(r, 1)->text();
    }
    QCOMPARE(guide_keys, QKeySequence(Qt::SHIFT | Qt::Key_F1).toString(QKeySequence::NativeText));
    shortcuts->close();

    QApplication::setActiveWindow(&window);
    QTest::keyClick(&window, Qt::Key_F1, Qt::ShiftModifier);
    auto* dialog = window.findChild<QDialog*>(QStringLiteral("userGuideDialog"));
    QVERIFY(dialog && dialog->isVisible());
    auto* browser = dialog->findChild<QTextBrowser*>(QStringLiteral("userGuideText"));
    QVERIFY(browser);
    // Rendered from Markdown: its headings are the source's, none of the
    // source's markup is left in the text.
    QStringList headings;
    for (QTextBlock b = browser->document()->begin(); b.isValid(); b = b.next()) {
        const int level = b.blockFormat().headingLevel();
        if (level == 2 || level == 3) headings << b.text();
    }
    QCOMPARE(headings, source_headings(source));
    for (const char* section : {"Taking a snapshot", "Reading the Leak Suspects table", "Why is it alive: the Path",
                                "The Graph", "Filtering objects", "Right-click menus", "Worked examples"}) {
        QVERIFY2(headings.contains(QLatin1String(section)), section);
    }
    const QString text = browser->toPlainText();
    QVERIFY(text.size() > 10'000);
    QVERIFY(!text.contains(QLatin1String("## ")));
    QVERIFY(text.contains(QLatin1String("python3 -m refscope run app.py")));

    // The contents list is the headings; choosing one scrolls to it.
    auto* contents = dialog->findChild<QListWidget*>(QStringLiteral("userGuideContents"));
    QVERIFY(contents);
    QCOMPARE(contents->count(), headings.size());
    const auto worked = contents->findItems(QStringLiteral("Worked examples"), Qt::MatchExactly);
    QCOMPARE(worked.size(), 1);
    QCOMPARE(browser->verticalScrollBar()->value(), 0);
    emit contents->itemClicked(worked.front());
    QVERIFY(browser->verticalScrollBar()->value() > 0);
    QCOMPARE(browser->textCursor().block().text(), QStringLiteral("Worked examples"));

    // For a look at the rendering: build/…/tests/gui_window/user-guide.png.
    QVERIFY(dialog->grab().save(testing::output_file("user-guide.png")));

    // Shift+F1 again raises the same dialog rather than stacking another.
    QApplication::setActiveWindow(&window);
    QTest::keyClick(&window, Qt::Key_F1, Qt::ShiftModifier);
    QCOMPARE(window.findChildren<QDialog*>(QStringLiteral("userGuideDialog")).size(), 1);
    dialog->close();
}

void UserGuideWindowTest::theFindFieldFindsWords() {
    MainWindow window;
    window.show();
    QDialog* dialog = show_user_guide(&window);
    QApplication::setActiveWindow(dialog);
    auto* browser = dialog->findChild<QTextBrowser*>(QStringLiteral("userGuideText"));
    auto* find = dialog->findChild<QLineEdit*>(QStringLiteral("userGuideFind"));
    auto* status = dialog->findChild<QLabel*>(QStringLiteral("userGuideStatus"));
    QVERIFY(browser && find && status);

    // Ctrl+F in the dialog is its find field, not the window's filter.
    browser->setFocus();
    QTest::keyClick(dialog, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(find->hasFocus());

    QTest::keyClicks(find, QStringLiteral("survivors"));
    QTest::keyClick(find, Qt::Key_Return);
    QCOMPARE(browser->textCursor().selectedText().toLower(), QStringLiteral("survivors"));
    const int first = browser->textCursor().position();
    QTest::keyClick(find, Qt::Key_Return);
    QCOMPARE(browser->textCursor().selectedText().toLower(), QStringLiteral("survivors"));
    QVERIFY(browser->textCursor().position() > first);
    QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(browser->textCursor().position(), first);
    // Backward from the first match wraps around to the last one.
    QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
    QVERIFY(browser->textCursor().position() > first);
    QVERIFY(status->text().isEmpty());

    find->clear();
    QTest::keyClicks(find, QStringLiteral("xyzzy-not-in-the-guide"));
    QTest::keyClick(find, Qt::Key_Return);
    QVERIFY(status->text().contains(QLatin1String("not in the guide")));
    QVERIFY(dialog->isVisible());  // Enter in the field finds; it does not close the dialog
    dialog->close();
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    UserGuideWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "user_guide_window_test.moc"
