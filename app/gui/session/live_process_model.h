// LiveProcessModel: the processes of a LiveSession as a table, one row per
// process in the order they connected (gone ones stay, marked gone):
// pid, command line, Python, uptime, state, snapshots. Rows are indexes into
// LiveSession::processes(); data() formats on demand. The uptime column is
// refreshed once a second while a process is connected.
#pragma once

#include <QAbstractTableModel>

namespace refscope::app {

class LiveSession;

class LiveProcessModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Pid, CommandLine, Python, Uptime, State, Snapshots, ColumnCount };
    // The connection id (quint64) of a row, under this role in every column.
    static constexpr int ConnectionRole = Qt::UserRole + 20;

    explicit LiveProcessModel(LiveSession* session, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    uint64_t connectionAt(int row) const;

    // "1:02:03", "4:05", "0:07": hours only when there are some.
    static QString durationText(qint64 seconds);

private:
    void refreshUptime();

    LiveSession* session_;
    int rows_ = 0;   // rows announced to views (insert/reset follow the session)
};

}  // namespace refscope::app
