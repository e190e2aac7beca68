#include "session/live_process_model.h"

#include <QDateTime>
#include <QTimer>

#include "session/live_session.h"

namespace refscope::app {

LiveProcessModel::LiveProcessModel(LiveSession* session, QObject* parent)
    : QAbstractTableModel(parent), session_(session), rows_(int(session->processes().size())) {
    connect(session_, &LiveSession::processAdded, this, [this](int row) {
        beginInsertRows({}, row, row);
        rows_ = int(session_->processes().size());
        endInsertRows();
    });
    connect(session_, &LiveSession::processesAboutToReset, this, [this] { beginResetModel(); });
    connect(session_, &LiveSession::processesReset, this, [this] {
        rows_ = int(session_->processes().size());
        endResetModel();
    });
    connect(session_, &LiveSession::processChanged, this, [this](int row) {
        if (row < 0 || row >= rows_) return;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    });
    auto* tick = new QTimer(this);
    tick->setInterval(1000);
    connect(tick, &QTimer::timeout, this, &LiveProcessModel::refreshUptime);
    tick->start();
}

int LiveProcessModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_; }

int LiveProcessModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

uint64_t LiveProcessModel::connectionAt(int row) const {
    return row >= 0 && row < rows_ ? session_->processes()[size_t(row)].connection : 0;
}

QString LiveProcessModel::durationText(qint64 seconds) {
    if (seconds < 0) seconds = 0;
    const qint64 h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    return h > 0 ? QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QLatin1Char('0')).arg(s, 2, 10, QLatin1Char('0'))
                 : QStringLiteral("%1:%2").arg(m).arg(s, 2, 10, QLatin1Char('0'));
}

QVariant LiveProcessModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LiveProcess& p = session_->processes()[size_t(index.row())];
    if (role == ConnectionRole) return QVariant::fromValue<quint64>(p.connection);
    if (role == Qt::TextAlignmentRole) {
        const int column = index.column();
        if (column == Pid || column == Snapshots || column == Uptime) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case CommandLine: return p.executable.isEmpty() ? p.commandLine() : p.executable + QLatin1Char('\n') + p.commandLine();
            case State: return p.lastMessage;
            case Snapshots: return p.latestSnapshot;
            default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Pid: return QString::number(p.pid);
        case CommandLine: return p.label.isEmpty() ? p.commandLine() : QStringLiteral("[%1] %2").arg(p.label, p.commandLine());
        case Python: return p.pythonVersion;
        case Uptime: {
            const QDateTime end = p.connected ? QDateTime::currentDateTime() : p.goneAt;
            return durationText(p.connectedAt.secsTo(end));
        }
        case State: {
            QString state;
            if (p.connected) {
                state = p.attached ? tr("connected (attached)") : tr("connected");
                if (p.requestInFlight != 0) state += tr(", snapshot in progress");
            } else {
                state = p.processExited ? tr("gone: process exited") : tr("gone: %1").arg(p.goneReason);
            }
            return state;
        }
        case Snapshots: return QString::number(p.snapshotsSaved);
        default: return {};
    }
}

QVariant LiveProcessModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Pid: return tr("PID");
        case CommandLine: return tr("Command line");
        case Python: return tr("Python");
        case Uptime: return tr("Connected for");
        case State: return tr("State");
        case Snapshots: return tr("Snapshots");
        default: return {};
    }
}

void LiveProcessModel::refreshUptime() {
    for (int row = 0; row < rows_; ++row) {
        if (session_->processes()[size_t(row)].connected) emit dataChanged(index(row, Uptime), index(row, Uptime));
    }
}

}  // namespace refscope::app
