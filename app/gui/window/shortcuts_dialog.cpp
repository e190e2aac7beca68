#include "window/shortcuts_dialog.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeySequence>
#include <QTableWidget>
#include <QVBoxLayout>

namespace refscope::app {

namespace {

// "&Export Graph…" → "Export Graph…" ("&&" is a literal ampersand).
QString plain_text(QString text) {
    text.replace(QLatin1String("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

}  // namespace

QDialog* make_shortcuts_dialog(QWidget* window) {
    std::vector<std::pair<QString, QString>> rows;
    for (const QAction* action : window->findChildren<QAction*>()) {
        if (action->shortcuts().isEmpty() || action->text().isEmpty()) continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts()) keys << key.toString(QKeySequence::NativeText);
        rows.emplace_back(plain_text(action->text()), keys.join(QStringLiteral(", ")));
    }
    // Keys the views handle themselves.
    rows.emplace_back(QObject::tr("Graph (when focused): zoom in, out, reset"), QObject::tr("+, -, 0; Ctrl+wheel"));
    rows.emplace_back(QObject::tr("Back / Forward (mouse)"), QObject::tr("side buttons"));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());

    auto* dialog = new QDialog(window);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* table = new QTableWidget(static_cast<int>(rows.size()), 2, dialog);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({QObject::tr("Command"), QObject::tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(rows[static_cast<size_t>(r)].first));
        table->setItem(r, 1, new QTableWidgetItem(rows[static_cast<size_t>(r)].second));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog->resize(520, 560);
    return dialog;
}

}  // namespace refscope::app
