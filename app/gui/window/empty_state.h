// What the window shows before a snapshot is open: the icon, "Open a snapshot
// or connect a process", an Open button, the recent files, and how to take a
// snapshot (the probe's command line).
#pragma once

#include <QWidget>

class QListWidget;
class QPushButton;

namespace refscope::app {

class EmptyState : public QWidget {
    Q_OBJECT

public:
    explicit EmptyState(QWidget* parent = nullptr);

    // The recent files listed under the button (newest first).
    void setRecentFiles(const QStringList& files);

    QPushButton* openButton() const { return open_button_; }
    QPushButton* connectButton() const { return connect_button_; }

signals:
    void openRequested();
    // "Connect a Process…": start listening and show the Connections panel.
    void connectRequested();
    void openRecentRequested(const QString& path);

private:
    QPushButton* open_button_;
    QPushButton* connect_button_;
    QListWidget* recent_list_;
};

}  // namespace refscope::app
