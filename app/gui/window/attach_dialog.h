// AttachDialog: "Attach to process…". Lists the running Python processes
// (pid, Python version, user, command line; from /proc through core's
// live::list_python_processes) — those this user cannot attach to greyed,
// with why — with a filter field and Refresh. Attach runs an AttachJob (the
// probe's own `python -m refscope attach`) with a busy bar and Cancel, and
// shows the attach command's own message when it fails; on success the
// dialog closes and the process appears in the Connections panel.
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace refscope::app {

class AttachJob;
class LiveSession;

class AttachDialog : public QDialog {
    Q_OBJECT

public:
    // `session` must be listening when Attach is pressed (the window starts it).
    explicit AttachDialog(LiveSession* session, QWidget* parent = nullptr);

    // Reads the process list again (keeps the filter and the selection).
    void refresh();
    // Attaches to `pid` (as the Attach button does for the selected row).
    void attachTo(qint64 pid);

    QTreeWidget* processList() const { return list_; }
    QLineEdit* filterField() const { return filter_; }
    QLabel* messageLabel() const { return message_; }
    QPushButton* attachButton() const { return attach_button_; }
    QPushButton* cancelButton() const { return cancel_button_; }
    AttachJob* job() const { return job_; }

    // Why a process with these facts cannot be attached ("" if it can).
    static QString whyNotAttachable(bool sameUser, const QString& user, const QString& pythonVersion);

private:
    void applyFilter();
    void updateButtons();
    void setBusy(bool busy);

    LiveSession* session_;
    AttachJob* job_;
    QLineEdit* filter_;
    QTreeWidget* list_;
    QLabel* message_;
    QProgressBar* busy_;
    QPushButton* refresh_button_;
    QPushButton* attach_button_;
    QPushButton* cancel_button_;
    QPushButton* close_button_;
};

}  // namespace refscope::app
