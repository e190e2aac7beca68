#include "window/user_guide_dialog.h"

#include <functional>

#include <QAbstractTextDocumentLayout>
#include <QAction>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

namespace refscope::app {

namespace {

const QString kDialogName = QStringLiteral("userGuideDialog");

QString guide_markdown() {
    QFile file(QString::fromLatin1(kUserGuideResource));
    if (!file.open(QIODevice::ReadOnly)) return QObject::tr("# User guide\n\nThe guide is missing from this build.");
    return QString::fromUtf8(file.readAll());
}

// The section and subsection headings, as the contents list; each item
// keeps its block's position to scroll to.
void fill_contents(QListWidget* contents, const QTextDocument* document) {
    for (QTextBlock block = document->begin(); block.isValid(); block = block.next()) {
        const int level = block.blockFormat().headingLevel();
        if (level != 2 && level != 3) continue;
        auto* item = new QListWidgetItem((level == 3 ? QStringLiteral("    ") : QString()) + block.text(), contents);
        item->setData(Qt::UserRole, block.position());
    }
}

// Enter finds the next match, Shift+Enter the previous one (as in a
// browser's find bar); the find field keeps its own editing keys.
class FindField : public QLineEdit {
public:
    using QLineEdit::QLineEdit;
    std::function<void(bool backward)> find;

protected:
    void keyPressEvent(QKeyEvent* event) override {
        if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && find) {
            find(event->modifiers() & Qt::ShiftModifier);
            return;
        }
        QLineEdit::keyPressEvent(event);
    }
};

// Finds `text` from the cursor on, wrapping around once at the end (or the
// start, backward) as a find bar does.
bool find_wrapping(QTextBrowser* browser, const QString& text, bool backward) {
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (browser->find(text, flags)) return true;
    QTextCursor cursor = browser->textCursor();
    const QTextCursor before = cursor;
    cursor.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    browser->setTextCursor(cursor);
    if (browser->find(text, flags)) return true;
    browser->setTextCursor(before);
    return false;
}

}  // namespace

QDialog* show_user_guide(QWidget* window) {
    if (auto* open = window->findChild<QDialog*>(kDialogName)) {
        open->raise();
        open->activateWindow();
        return open;
    }
    auto* dialog = new QDialog(window);
    dialog->setObjectName(kDialogName);
    dialog->setWindowTitle(QObject::tr("refscope User Guide"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);

    auto* browser = new QTextBrowser(dialog);
    browser->setObjectName(QStringLiteral("userGuideText"));
    // Links are handled below: the guide's other files are not in the app,
    // and a web page belongs in the browser, not in this dialog.
    browser->setOpenLinks(false);
    browser->setMarkdown(guide_markdown());
    browser->moveCursor(QTextCursor::Start);  // open at the top

    auto* contents = new QListWidget(dialog);
    contents->setObjectName(QStringLiteral("userGuideContents"));
    fill_contents(contents, browser->document());

    auto* status = new QLabel(dialog);
    status->setObjectName(QStringLiteral("userGuideStatus"));
    auto* find = new FindField(dialog);
    find->setObjectName(QStringLiteral("userGuideFind"));
    find->setPlaceholderText(QObject::tr("Find in the guide (Enter: next, Shift+Enter: previous)"));
    find->setClearButtonEnabled(true);
    auto* previous = new QPushButton(QObject::tr("Previous"), dialog);
    auto* next = new QPushButton(QObject::tr("Next"), dialog);
    previous->setAutoDefault(false);
    next->setAutoDefault(false);

    find->find = [browser, find, status](bool backward) {
        const QString text = find->text();
        if (text.isEmpty()) return;
        status->setText(find_wrapping(browser, text, backward) ? QString()
                                                               : QObject::tr("“%1” is not in the guide").arg(text));
    };
    QObject::connect(next, &QPushButton::clicked, find, [find] { find->find(false); });
    QObject::connect(previous, &QPushButton::clicked, find, [find] { find->find(true); });
    // Ctrl+F inside the dialog: the main window's Ctrl+F (the object filter)
    // belongs to the main window, not to this one.
    auto* focus_find = new QAction(dialog);
    focus_find->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
    QObject::connect(focus_find, &QAction::triggered, find, [find] {
        find->setFocus(Qt::ShortcutFocusReason);
        find->selectAll();
    });
    auto* find_next = new QAction(dialog);
    find_next->setShortcut(QKeySequence(Qt::Key_F3));
    QObject::connect(find_next, &QAction::triggered, find, [find] { find->find(false); });
    auto* find_previous = new QAction(dialog);
    find_previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    QObject::connect(find_previous, &QAction::triggered, find, [find] { find->find(true); });
    dialog->addActions({focus_find, find_next, find_previous});

    QObject::connect(contents, &QListWidget::itemClicked, browser, [browser](QListWidgetItem* item) {
        const QTextBlock block = browser->document()->findBlock(item->data(Qt::UserRole).toInt());
        QTextCursor cursor(block);
        browser->setTextCursor(cursor);
        const auto top = browser->document()->documentLayout()->blockBoundingRect(block).top();
        browser->verticalScrollBar()->setValue(static_cast<int>(top));
    });
    QObject::connect(browser, &QTextBrowser::anchorClicked, dialog, [status](const QUrl& url) {
        const QString scheme = url.scheme();
        if (scheme == QLatin1String("http") || scheme == QLatin1String("https") || scheme == QLatin1String("mailto")) {
            QDesktopServices::openUrl(url);
        } else {
            status->setText(QObject::tr("%1 is in refscope's documentation (the docs folder of its source)")
                                .arg(url.toString()));
        }
    });

    auto* find_row = new QHBoxLayout;
    find_row->addWidget(find, 1);
    find_row->addWidget(previous);
    find_row->addWidget(next);
    auto* splitter = new QSplitter(dialog);
    splitter->addWidget(contents);
    splitter->addWidget(browser);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({260, 640});
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(status, 1);
    bottom->addWidget(buttons);
    auto* layout = new QVBoxLayout(dialog);
    layout->addLayout(find_row);
    layout->addWidget(splitter, 1);
    layout->addLayout(bottom);
    dialog->resize(900, 700);
    dialog->show();
    return dialog;
}

}  // namespace refscope::app
