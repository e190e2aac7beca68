// ConnectionsPanel: the "Connections" dock of the main window, over a
// LiveSession: where the app listens (and a button that copies ready-made
// command lines to connect or attach a program), the processes (pid, command
// line, Python, uptime, state, snapshots), the commands — Take snapshot,
// Collect + snapshot, Mark as baseline, Label…, Disconnect, automatic
// snapshots every N s, Attach to process… (the row commands also on a right
// click of a process) — and a log of connections, refusals, discards and
// drops, collapsed under a "Log (N)" toggle until wanted or the first warning,
// so the dock stays a few rows high. Commands act on the selected processes, or
// on every connected one when none is selected; Disconnect only on the
// selected ones.
#pragma once

#include <cstdint>
#include <vector>

#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QToolButton;

namespace refscope::app {

class LiveProcessModel;
class LiveSession;

class ConnectionsPanel : public QWidget {
    Q_OBJECT

public:
    explicit ConnectionsPanel(LiveSession* session, QWidget* parent = nullptr);

    // Selected processes that are connected, else every connected one.
    std::vector<uint64_t> targetConnections() const;
    // Only the selected processes that are connected.
    std::vector<uint64_t> selectedConnections() const;
    // Disconnect's targets: the selected connected processes, else the only
    // connected one; never several unchosen ones at once.
    std::vector<uint64_t> disconnectTargets() const;
    // The selected process (connected or not), else the only or the last one
    // that has a snapshot; 0 if none.
    uint64_t chosenConnection() const;
    // The text the copy button puts on the clipboard.
    QString commandsText() const;

    LiveProcessModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QPlainTextEdit* log() const { return log_; }
    // Shows or collapses the log (collapsed at first; a warning opens it).
    void setLogShown(bool shown);
    QToolButton* logToggle() const { return log_toggle_; }
    QSize sizeHint() const override;
    QLabel* addressLabel() const { return address_; }
    // Labels the target processes (the probe puts it in their next snapshots).
    void setLabel(const QString& label);
    QCheckBox* automaticCheck() const { return auto_check_; }
    QSpinBox* automaticSeconds() const { return auto_seconds_; }

signals:
    void takeSnapshotRequested(bool collect);
    void markBaselineRequested();
    void attachRequested();
    void listenRequested(bool listen);

private:
    void appendLog(const QString& line, bool warning);
    void showProcessMenu(const QPoint& pos);
    void updateState();
    void applyAutomatic();

    LiveSession* session_;
    LiveProcessModel* model_;
    QLabel* address_;
    QPushButton* listen_button_;
    QPushButton* copy_button_;
    QTableView* table_;
    QPushButton* snapshot_button_;
    QPushButton* collect_button_;
    QPushButton* baseline_button_;
    QPushButton* label_button_;
    QPushButton* disconnect_button_;
    QPushButton* attach_button_;
    QCheckBox* auto_check_;
    QSpinBox* auto_seconds_;
    QCheckBox* auto_collect_;
    QPlainTextEdit* log_;
    QToolButton* log_toggle_;
    int log_lines_ = 0;  // lines logged (the log itself keeps the last 2,000)
    bool warned_ = false;
};

}  // namespace refscope::app
