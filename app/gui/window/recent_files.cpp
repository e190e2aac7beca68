#include "window/recent_files.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QSettings>

namespace refscope::app {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {
    files_ = QSettings().value(kKey).toStringList();
    while (files_.size() > kMaxFiles) files_.removeLast();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files_.removeAll(absolute);
    files_.prepend(absolute);
    while (files_.size() > kMaxFiles) files_.removeLast();
    save();
    emit changed();
}

void RecentFiles::clear() {
    files_.clear();
    save();
    emit changed();
}

void RecentFiles::fillMenu(QMenu* menu) {
    menu->clear();
    for (int i = 0; i < files_.size(); ++i) {
        const QString& path = files_[i];
        // "&1 s2.rscope  (/tmp/run)": the name first, where it lives after.
        const QFileInfo info(path);
        const QString text = QStringLiteral("&%1 %2  (%3)")
                                 .arg(i + 1)
                                 .arg(info.fileName(), QDir::toNativeSeparators(info.path()));
        QAction* action = menu->addAction(text);
        action->setData(path);
        action->setToolTip(path);
        action->setEnabled(info.exists());
        if (i < 9) action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (files_.isEmpty()) {
        menu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    menu->addSeparator();
    connect(menu->addAction(tr("&Clear Recent Files")), &QAction::triggered, this,
            [this] { clear(); });
}

void RecentFiles::save() const { QSettings().setValue(kKey, files_); }

}  // namespace refscope::app
