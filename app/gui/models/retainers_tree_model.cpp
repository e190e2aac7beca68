#include "models/retainers_tree_model.h"

#include <algorithm>

#include <QColor>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "models/id_sort.h"
#include "models/text_colours.h"
#include "refscope/analysis/descriptions.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

// The root's class and how many references it holds.
QString root_notes(const Snapshot& s, const RootRef& root) {
    QString text = root_class_text(s, root);
    if (root.count == 0) {
        text += QStringLiteral(", all surplus");
    } else if (root.count != 1) {
        text += QStringLiteral(", \u00d7%1").arg(root.count);
    }
    return text;
}

}  // namespace

RetainersTreeModel::RetainersTreeModel(QObject* parent) : BatchedTreeModel(parent) {}

void RetainersTreeModel::setAnalysis(AnalysisPtr analysis) {
    startReset();
    analysis_ = std::move(analysis);
    target_ = kNoNode;
    preferred_edge_.clear();
    clearItems();
    finishReset();
}

void RetainersTreeModel::setTarget(uint32_t node) {
    startReset();
    clearItems();
    preferred_edge_.clear();
    target_ = analysis_ && node < analysis_->snapshot().node_count() ? node : kNoNode;
    if (target_ != kNoNode) {
        Item top;
        top.kind = ObjectItem;
        top.node = target_;
        addTopItem(std::move(top));
    }
    finishReset();
}

uint32_t RetainersTreeModel::nodeAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return kNoNode;
    const Item& it = itemAt(index);
    return it.kind == ObjectItem ? it.node : kNoNode;
}

bool RetainersTreeModel::onAncestorChain(int32_t id, uint32_t node) const {
    for (int32_t at = id; at > 0; at = item(at).parent) {
        if (item(at).kind == ObjectItem && item(at).node == node) return true;
    }
    return false;
}

bool RetainersTreeModel::mayHaveChildren(const Item& it) const {
    if (it.kind != ObjectItem || !analysis_) return false;
    return analysis_->index().in_degree(it.node) > 0 || analysis_->roots().is_root(it.node) ||
           analysis_->roots().unexplained(it.node) > 0;
}

void RetainersTreeModel::populate(int32_t id, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const {
    const uint32_t node = item(id).node;
    const GraphIndex& index = analysis_->index();
    const RootClasses& roots = analysis_->roots();
    const RetentionPaths& paths = analysis_->paths();
    for (uint32_t record : roots.roots_of(node)) {
        Item root;
        root.kind = RootRecordItem;
        root.node = record;
        fixed.push_back(std::move(root));
    }
    if (roots.unexplained(node) > 0) {
        Item unexplained;
        unexplained.kind = UnexplainedItem;
        unexplained.node = node;
        fixed.push_back(std::move(unexplained));
    }
    const std::span<const uint32_t> in = index.in_edges(node);
    candidates.assign(in.begin(), in.end());
    const auto preferred = preferred_edge_.find(node);
    const uint32_t first = preferred != preferred_edge_.end() ? preferred->second : paths.parent_edge(node);
    // The chain towards the roots first, then what keeps the object alive,
    // nearest a root first (unreached sources last), then by edge id: one
    // key per edge (a type object can have a million referrers).
    std::vector<KeyedId> keyed(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
        const uint32_t e = candidates[i];
        const uint64_t key = (uint64_t{e != first} << 63) | (uint64_t{!index.retains(e)} << 62) |
                             paths.distance(index.source(e));
        keyed[i] = {key, e};
    }
    sort_keyed_ids(keyed);
    for (size_t i = 0; i < keyed.size(); ++i) candidates[i] = keyed[i].id;
}

RetainersTreeModel::Item RetainersTreeModel::makeChild(int32_t parent, uint32_t edge) const {
    Item child;
    child.kind = ObjectItem;
    child.edge = edge;
    child.node = analysis_->index().source(edge);
    child.cycle = onAncestorChain(parent, child.node);
    return child;
}

QModelIndexList RetainersTreeModel::revealChainToRoot() {
    QModelIndexList chain;
    if (target_ == kNoNode || rowCount() == 0) return chain;
    const GraphIndex& index = analysis_->index();
    const RetentionPaths& paths = analysis_->paths();
    // The edges to follow, from the target outwards.
    std::vector<uint32_t> edges;
    if (paths.reachable(target_)) {
        for (uint32_t n = target_; paths.parent_edge(n) != kNoEdge; n = index.source(paths.parent_edge(n))) {
            edges.push_back(paths.parent_edge(n));
        }
    } else {
        const NoPathExplanation why = paths.explain_unreachable(target_);
        edges.assign(why.holder_edges.rbegin(), why.holder_edges.rend());
        for (uint32_t e : edges) preferred_edge_[index.target(e)] = e;
    }
    QModelIndex at = this->index(0, 0);
    chain.append(at);
    for (uint32_t edge : edges) {
        if (canFetchMore(at)) fetchMore(at);
        QModelIndex next;
        while (!next.isValid()) {
            const int rows = rowCount(at);
            for (int row = 0; row < rows && !next.isValid(); ++row) {
                const QModelIndex child = this->index(row, 0, at);
                const Item& it = itemAt(child);
                if (it.kind == ObjectItem && it.edge == edge) next = child;
            }
            if (next.isValid() || rows == 0) break;
            const QModelIndex last = this->index(rows - 1, 0, at);
            if (!showMore(last)) break;  // listed already: no such edge (cannot happen)
        }
        if (!next.isValid() || itemAt(next).cycle) break;
        chain.append(next);
        at = next;
    }
    return chain;
}

int RetainersTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QString RetainersTreeModel::notes(const Item& it) const {
    QStringList notes;
    if (it.edge != kNoEdge) notes = edge_notes(analysis_->index(), it.edge);
    if (it.cycle) notes << QStringLiteral("(cycle)");
    if (analysis_->roots().is_root(it.node)) notes << QStringLiteral("GC root");
    if (analysis_->roots().unexplained(it.node) > 0) notes << QStringLiteral("unexplained surplus");
    return notes.join(QStringLiteral(", "));
}

QVariant RetainersTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item& it = itemAt(index);
    if (it.kind == kMoreKind) return moreItemData(it, index.column(), role, QStringLiteral("referrers"));
    const Snapshot& s = analysis_->snapshot();
    const int column = index.column();

    if (it.kind == RootRecordItem) {
        const RootRef& root = s.roots[it.node];
        switch (role) {
            case Qt::DisplayRole:
                if (column == ObjectColumn) return QStringLiteral("root: %1").arg(QString::fromStdString(describe_root(s, root)));
                if (column == NotesColumn) return root_notes(s, root);
                return {};
            case Qt::ToolTipRole:
                return QStringLiteral("Held by a GC root (%1): %2")
                    .arg(root_notes(s, root), QString::fromStdString(describe_root(s, root)));
            default: return {};
        }
    }
    if (it.kind == UnexplainedItem) {
        const int64_t count = analysis_->roots().unexplained(it.node);
        switch (role) {
            case Qt::DisplayRole:
                if (column == ObjectColumn) return QStringLiteral("held from outside the graph");
                if (column == NotesColumn) {
                    return QStringLiteral("%1 unexplained %2").arg(count_text(static_cast<uint64_t>(count)),
                                                                   count == 1 ? QStringLiteral("reference") : QStringLiteral("references"));
                }
                return {};
            case Qt::ToolTipRole:
                return QStringLiteral("%1 references to this object are held by nothing in the snapshot and by no "
                                      "root: C/C++ code the garbage collector cannot see, or a leak")
                    .arg(count_text(static_cast<uint64_t>(count)));
            case Qt::ForegroundRole: return text_colour(TextRole::GcInvisible);
            default: return {};
        }
    }

    const uint32_t n = it.node;
    const DominatorTree* tree = analysis_->dominators();
    const RetentionPaths& paths = analysis_->paths();
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case ObjectColumn: return QString::fromStdString(describe_node_at(s, n));
                case ViaColumn: return it.edge == kNoEdge ? QString() : QString::fromStdString(describe_edge(s, it.edge));
                case NotesColumn: return notes(it);
                case SizeColumn: return bytes_text(s.node_size[n]);
                case RetainedColumn: return tree ? QVariant(retained_text(*tree, n)) : QVariant();
                case DistanceColumn: return distance_text(paths.distance(n));
            }
            return {};
        case NodeIdRole: return QVariant::fromValue<quint32>(n);
        case SortKeyRole:
            switch (column) {
                case SizeColumn: return QVariant::fromValue<qulonglong>(s.node_size[n]);
                case RetainedColumn: return tree ? QVariant::fromValue<qulonglong>(tree->retained_size(n)) : QVariant();
                case DistanceColumn: return QVariant::fromValue<quint32>(paths.distance(n));
            }
            return data(index, Qt::DisplayRole);
        case Qt::TextAlignmentRole:
            if (column >= SizeColumn) return QVariant::fromValue(int(kNumberAlignment));
            return {};
        case Qt::ForegroundRole:
            if (it.edge != kNoEdge && column == ViaColumn) {
                const QVariant color = edge_foreground(analysis_->index(), it.edge);
                if (color.isValid()) return color;
            }
            if (it.cycle) return text_colour(TextRole::Muted);
            return {};
        case Qt::ToolTipRole:
            switch (column) {
                case ViaColumn:
                    if (it.edge == kNoEdge) return {};
                    return edge_tooltip(analysis_->index(), it.edge);
                case SizeColumn: return exact_bytes_text(s.node_size[n]);
                case DistanceColumn: return distance_tooltip(paths, n);
                default:
                    if (it.cycle) return QStringLiteral("%1: already above in this branch (a reference cycle)").arg(QString::fromStdString(describe_node_at(s, n)));
                    return QString::fromStdString(describe_node_at(s, n));
            }
        default:
            return {};
    }
}

QVariant RetainersTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case ObjectColumn: return QStringLiteral("Object");
        case ViaColumn: return QStringLiteral("Via");
        case NotesColumn: return QStringLiteral("Notes");
        case SizeColumn: return QStringLiteral("Size");
        case RetainedColumn: return QStringLiteral("Retained");
        case DistanceColumn: return QStringLiteral("Distance");
    }
    return {};
}

}  // namespace refscope::app
