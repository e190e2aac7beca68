// The "Open Recent" list: the last files opened, newest first, kept in
// QSettings under "recentFiles" so that it survives restarts.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace refscope::app {

class RecentFiles : public QObject {
    Q_OBJECT

public:
    static constexpr int kMaxFiles = 10;

    explicit RecentFiles(QObject* parent = nullptr);

    // Absolute paths, newest first; files that no longer exist are kept (a
    // removable disk may come back) but shown disabled.
    QStringList files() const { return files_; }
    // Moves (or puts) `path` to the top and saves.
    void add(const QString& path);
    void clear();

    // Fills `menu` with one action per file (Ctrl+Alt+1..9 for the first
    // nine) and "Clear Recent Files"; triggering one emits openRequested.
    void fillMenu(QMenu* menu);

signals:
    void openRequested(const QString& path);
    void changed();

private:
    void save() const;

    QStringList files_;
};

}  // namespace refscope::app
