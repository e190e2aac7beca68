#include "models/model_roles.h"
#include "models/retention_path_text.h"

namespace refscope::app {

PathModel::PathModel(QObject* parent) : QAbstractListModel(parent) {}

void PathModel::setPath(PathDescription path) {
    beginResetModel();
    path_ = std::move(path);
    endResetModel();
}

int PathModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(path_.hops.size());
}

QVariant PathModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const size_t row = static_cast<size_t>(index.row());
    const PathHop& hop = path_.hops[row];
    const QString arrow = QStringLiteral(" \u2192 ");
    switch (role) {
        case Qt::DisplayRole:
            if (row == 0) {
                return (path_.hasPath ? path_.rootLabel : QStringLiteral("held from outside the graph")) + arrow +
                       hop.object;
            }
            return hop.edgeLabel + arrow + hop.object;
        case NodeIdRole: return QVariant::fromValue<quint32>(hop.node);
        case Qt::ToolTipRole:
            if (row == 0) {
                return path_.hasPath ? QStringLiteral("GC root (%1): %2").arg(path_.rootClass, path_.rootLabel)
                                     : QStringLiteral("The nearest holder with unexplained surplus");
            }
            if (hop.gcInvisible) return QStringLiteral("A reference the garbage collector cannot see (not reported by tp_traverse)");
            if (hop.weak) return QStringLiteral("A weak reference: it does not keep the object alive");
            return {};
        default: return {};
    }
}

}  // namespace refscope::app
