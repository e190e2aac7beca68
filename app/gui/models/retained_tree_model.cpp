#include "models/retained_tree_model.h"

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "refscope/analysis/descriptions.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

bool is_virtual(uint32_t node) { return node == kSuperRoot || node == kUnexplainedRoot; }

}  // namespace

RetainedTreeModel::RetainedTreeModel(QObject* parent) : BatchedTreeModel(parent) {
    empty_reason_ = whyEmpty(kNoNode);
}

void RetainedTreeModel::setAnalysis(AnalysisPtr analysis) {
    startReset();
    analysis_ = std::move(analysis);
    target_ = kNoNode;
    empty_reason_ = whyEmpty(kNoNode);
    clearItems();
    finishReset();
}

QString RetainedTreeModel::whyEmpty(uint32_t node) const {
    if (!analysis_) return QStringLiteral("No snapshot");
    const DominatorTree* tree = analysis_->dominators();
    if (!tree) return QStringLiteral("Retained sizes were not computed for this snapshot (no dominator analysis)");
    if (node == kSuperRoot) return {};
    if (node >= analysis_->snapshot().node_count()) return QStringLiteral("Select an object to see what it keeps alive");
    if (tree->reachable(node)) return {};
    const Snapshot& s = analysis_->snapshot();
    QString reason = QStringLiteral(
                         "%1 is reached from no GC root and no object held from outside the graph, so the "
                         "dominator tree does not contain it: it is garbage the collector has not freed yet, or "
                         "kept alive only through a reference the collector cannot see. It keeps alive at least "
                         "its own %2.")
                         .arg(QString::fromStdString(describe_node_at(s, node)), bytes_text(s.node_size[node]));
    if (const QString cycle = cycle_text(analysis_->cycles(), node); !cycle.isEmpty()) {
        reason += QLatin1Char(' ') + cycle + QLatin1Char('.');
    }
    return reason;
}

void RetainedTreeModel::setTarget(uint32_t node) {
    startReset();
    clearItems();
    target_ = kNoNode;
    empty_reason_ = whyEmpty(node);
    if (empty_reason_.isEmpty()) {
        target_ = node;
        Item top;
        top.kind = is_virtual(node) ? VirtualRootItem : ObjectItem;
        top.node = node;
        addTopItem(std::move(top));
    }
    finishReset();
}

uint32_t RetainedTreeModel::nodeAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return kNoNode;
    const Item& it = itemAt(index);
    return it.kind == ObjectItem ? it.node : kNoNode;
}

bool RetainedTreeModel::mayHaveChildren(const Item& it) const {
    if (it.kind == kMoreKind || !analysis_ || !analysis_->dominators()) return false;
    return !analysis_->dominators()->children(it.node).empty();
}

void RetainedTreeModel::populate(int32_t id, std::vector<Item>&, std::vector<uint32_t>& candidates) const {
    candidates = analysis_->dominators()->children_by_retained_size(item(id).node);
}

RetainedTreeModel::Item RetainedTreeModel::makeChild(int32_t, uint32_t node) const {
    Item child;
    child.kind = is_virtual(node) ? VirtualRootItem : ObjectItem;
    child.node = node;
    return child;
}

int RetainedTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant RetainedTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item& it = itemAt(index);
    if (it.kind == kMoreKind) return moreItemData(it, index.column(), role, QStringLiteral("objects"));
    const Snapshot& s = analysis_->snapshot();
    const DominatorTree& tree = *analysis_->dominators();
    const uint32_t n = it.node;
    const int column = index.column();
    const bool virtual_root = it.kind == VirtualRootItem;
    const QString name = n == kSuperRoot         ? QStringLiteral("all GC roots")
                         : n == kUnexplainedRoot ? QStringLiteral("held from outside the graph (unexplained surplus)")
                                                 : QString::fromStdString(describe_node_at(s, n));
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case ObjectColumn: return name;
                case RetainedBytesColumn: return bytes_text(tree.retained_size(n));
                case RetainedObjectsColumn: return count_text(tree.retained_count(n));
                case ShallowBytesColumn: return virtual_root ? QVariant() : QVariant(bytes_text(s.node_size[n]));
            }
            return {};
        case NodeIdRole: return virtual_root ? QVariant() : QVariant::fromValue<quint32>(n);
        case SortKeyRole:
            switch (column) {
                case ObjectColumn: return name;
                case RetainedBytesColumn: return QVariant::fromValue<qulonglong>(tree.retained_size(n));
                case RetainedObjectsColumn: return QVariant::fromValue<qulonglong>(tree.retained_count(n));
                case ShallowBytesColumn: return virtual_root ? QVariant() : QVariant::fromValue<qulonglong>(s.node_size[n]);
            }
            return {};
        case Qt::TextAlignmentRole:
            return column == ObjectColumn ? QVariant() : QVariant::fromValue(int(kNumberAlignment));
        case Qt::ToolTipRole:
            switch (column) {
                case RetainedBytesColumn:
                    return QStringLiteral("%1 freed with this object").arg(exact_bytes_text(tree.retained_size(n)));
                case ShallowBytesColumn: return virtual_root ? QVariant() : QVariant(exact_bytes_text(s.node_size[n]));
                default:
                    if (n == kUnexplainedRoot) {
                        return QStringLiteral("Objects kept alive by references no object or root accounts for: "
                                              "C/C++ code or leaks");
                    }
                    return name;
            }
        default:
            return {};
    }
}

QVariant RetainedTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case ObjectColumn: return QStringLiteral("Object");
        case RetainedBytesColumn: return QStringLiteral("Retained");
        case RetainedObjectsColumn: return QStringLiteral("Objects");
        case ShallowBytesColumn: return QStringLiteral("Shallow");
    }
    return {};
}

}  // namespace refscope::app
