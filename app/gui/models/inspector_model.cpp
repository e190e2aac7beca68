#include "models/inspector_model.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "refscope/analysis/descriptions.h"

namespace refscope::app {

using format::EdgeKind;

namespace {

// What "… N more" calls a group's rows.
QString group_noun(InspectorModel::Group group) {
    switch (group) {
        case InspectorModel::Attributes: return QStringLiteral("attributes");
        case InspectorModel::DictItems: return QStringLiteral("items");
        case InspectorModel::Slots: return QStringLiteral("slots");
        case InspectorModel::Elements: return QStringLiteral("elements");
        case InspectorModel::Locals: return QStringLiteral("locals");
        case InspectorModel::NativeChildren: return QStringLiteral("native children");
        case InspectorModel::Fields: return QStringLiteral("fields");
        case InspectorModel::Other: return QStringLiteral("references");
        case InspectorModel::DictKeys: return QStringLiteral("keys");
        case InspectorModel::GroupCount: break;
    }
    return {};
}

// The node that `node`'s Field edge labelled one of `fields` points to.
uint32_t field_target(const analysis::GraphIndex& index, uint32_t node, std::initializer_list<std::string_view> fields) {
    const Snapshot& s = index.snapshot();
    for (const uint32_t e : index.out_edges(node)) {
        if (index.kind(e) != EdgeKind::Field) continue;
        const std::string_view label = s.strings.view(s.edge_label[e]);
        for (const std::string_view field : fields) {
            if (label == field) return index.target(e);
        }
    }
    return kNoNode;
}

}  // namespace

InspectorModel::InspectorModel(QObject* parent) : BatchedTreeModel(parent) { setBatchSize(kBatchSize); }

void InspectorModel::setAnalysis(AnalysisPtr analysis) {
    startReset();
    analysis_ = std::move(analysis);
    target_ = kNoNode;
    counts_.fill(0);
    clearItems();
    finishReset();
}

void InspectorModel::setTarget(uint32_t node) {
    startReset();
    clearItems();
    counts_.fill(0);
    target_ = analysis_ && analysis_->has_graph() && node < analysis_->snapshot().node_count() ? node : kNoNode;
    if (target_ != kNoNode) {
        // One pass over the object's own edges; a group's edge ids are
        // gathered only when a view opens it (populate).
        const Snapshot& s = analysis_->snapshot();
        for (const uint32_t e : analysis_->index().out_edges(target_)) ++counts_[groupOf(s.edge_kind[e])];
        for (uint8_t g = 0; g < GroupCount; ++g) {
            if (counts_[g] == 0) continue;
            Item group;
            group.kind = GroupItem;
            group.node = g;  // the group, not a node
            addTopItem(std::move(group));
        }
    }
    finishReset();
}

InspectorModel::Group InspectorModel::groupOf(uint8_t kind) {
    switch (static_cast<EdgeKind>(kind)) {
        case EdgeKind::Attribute: return Attributes;
        case EdgeKind::DictValue: return DictItems;
        case EdgeKind::DictKey: return DictKeys;
        case EdgeKind::Slot: return Slots;
        case EdgeKind::Index:
        case EdgeKind::SetMember: return Elements;
        case EdgeKind::Local: return Locals;
        case EdgeKind::Native: return NativeChildren;
        case EdgeKind::Field: return Fields;
        case EdgeKind::Reference:
        case EdgeKind::Weak: return Other;
    }
    return Other;  // a kind a newer probe writes
}

QString InspectorModel::groupTitle(Group group) {
    switch (group) {
        case Attributes: return QStringLiteral("Attributes");
        case DictItems: return QStringLiteral("Dict items");
        case Slots: return QStringLiteral("Slots");
        case Elements: return QStringLiteral("Elements");
        case Locals: return QStringLiteral("Frame locals");
        case NativeChildren: return QStringLiteral("Native children (held by C/C++)");
        case Fields: return QStringLiteral("Fields");
        case Other: return QStringLiteral("Other references");
        case DictKeys: return QStringLiteral("Dict keys");
        case GroupCount: break;
    }
    return {};
}

QModelIndex InspectorModel::groupIndex(Group group) const {
    for (int row = 0; row < rowCount(); ++row) {
        const QModelIndex top = index(row, 0);
        if (itemAt(top).node == group) return top;
    }
    return {};
}

uint32_t InspectorModel::nodeAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return kNoNode;
    const Item& it = itemAt(index);
    return it.kind == FieldItem ? it.node : kNoNode;
}

uint32_t InspectorModel::edgeAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return analysis::kNoEdge;
    const Item& it = itemAt(index);
    return it.kind == FieldItem ? it.edge : analysis::kNoEdge;
}

QString InspectorModel::frameLocation() const {
    if (target_ == kNoNode) return {};
    const Snapshot& s = analysis_->snapshot();
    const std::string_view type = analysis::type_name(s, target_);
    if (counts_[Locals] == 0 && type != "frame" && type != "generator" && type != "coroutine" &&
        type != "async_generator")
        return {};
    // A running frame is a root of its thread, which the probe labels
    // "frame app.py:12 in main" (3.11+: with ", frame object" after it): the
    // only place the snapshot records the line it is at.
    for (const uint32_t record : analysis_->roots().roots_of(target_)) {
        const RootRef& root = s.roots[record];
        std::string_view label = s.strings.view(root.label);
        if (root.kind != format::RootKind::ThreadStack || !label.starts_with("frame ")) continue;
        label.remove_prefix(6);
        constexpr std::string_view kFrameObject = ", frame object";
        if (label.ends_with(kFrameObject)) label.remove_suffix(kFrameObject.size());
        return to_qstring(analysis::escape_text(label, 300));
    }
    // Otherwise (a finished frame a traceback keeps, a suspended generator)
    // its code object names the function (its preview) and the file.
    const analysis::GraphIndex& graph = analysis_->index();
    const uint32_t code = field_target(graph, target_, {"f_code", "gi_code", "cr_code", "ag_code"});
    if (code == kNoNode || s.node_preview[code] == 0) return {};
    const QString function = to_qstring(analysis::escape_text(s.strings.view(s.node_preview[code])));
    const uint32_t file = field_target(graph, code, {"co_filename"});
    if (file == kNoNode || s.node_preview[file] == 0) return function;
    return QStringLiteral("%1 (%2)").arg(function, to_qstring(analysis::escape_text(s.strings.view(s.node_preview[file]), 300)));
}

bool InspectorModel::mayHaveChildren(const Item& item) const { return item.kind == GroupItem; }

void InspectorModel::populate(int32_t id, std::vector<Item>&, std::vector<uint32_t>& candidates) const {
    const auto group = static_cast<Group>(item(id).node);
    const Snapshot& s = analysis_->snapshot();
    candidates.reserve(counts_[group]);
    for (const uint32_t e : analysis_->index().out_edges(target_)) {
        if (groupOf(s.edge_kind[e]) == group) candidates.push_back(e);
    }
}

InspectorModel::Item InspectorModel::makeChild(int32_t, uint32_t edge) const {
    Item child;
    child.kind = FieldItem;
    child.edge = edge;
    child.node = analysis_->index().target(edge);
    return child;
}

int InspectorModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item& it = itemAt(index);
    if (it.kind == kMoreKind) {
        return moreItemData(it, index.column(), role, group_noun(static_cast<Group>(item(it.parent).node)));
    }
    return it.kind == GroupItem ? groupData(it, index.column(), role) : fieldData(it, index.column(), role);
}

QVariant InspectorModel::groupData(const Item& it, int column, int role) const {
    const auto group = static_cast<Group>(it.node);
    switch (role) {
        case Qt::DisplayRole:
            if (column == FieldColumn) return QStringLiteral("%1 (%2)").arg(groupTitle(group), count_text(counts_[group]));
            return {};
        case Qt::FontRole: {
            QFont font;
            font.setBold(true);
            return font;
        }
        case Qt::ToolTipRole:
            if (group == NativeChildren) {
                return QStringLiteral("References held by C/C++ code: reported by the extension, or (inferred) "
                                      "found in the memory of an object nobody describes");
            }
            if (group == DictKeys) return QStringLiteral("The key objects of the dict items above");
            return {};
        default: return {};
    }
}

QVariant InspectorModel::fieldData(const Item& it, int column, int role) const {
    const Snapshot& s = analysis_->snapshot();
    const analysis::GraphIndex& graph = analysis_->index();
    const analysis::DominatorTree* tree = analysis_->dominators();
    const uint32_t n = it.node;
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case FieldColumn: return QString::fromStdString(analysis::describe_edge(s, it.edge));
                case ValueColumn: return QString::fromStdString(analysis::describe_node(s, n));
                case NotesColumn: return edge_notes(graph, it.edge).join(QStringLiteral(", "));
                case SizeColumn: return bytes_text(s.node_size[n]);
                case RetainedColumn: return tree ? QVariant(retained_text(*tree, n)) : QVariant();
            }
            return {};
        case NodeIdRole: return QVariant::fromValue<quint32>(n);
        case SortKeyRole:
            if (column == SizeColumn) return QVariant::fromValue<qulonglong>(s.node_size[n]);
            if (column == RetainedColumn) return tree ? QVariant::fromValue<qulonglong>(tree->retained_size(n)) : QVariant();
            return fieldData(it, column, Qt::DisplayRole);
        case Qt::TextAlignmentRole:
            if (column >= SizeColumn) return QVariant::fromValue(int(kNumberAlignment));
            return {};
        case Qt::ForegroundRole:
            if (column == FieldColumn) return edge_foreground(graph, it.edge);
            // The value reads as a link: a click on it selects the object.
            if (column == ValueColumn) return QGuiApplication::palette().color(QPalette::Link);
            return {};
        case Qt::FontRole:
            if (column == ValueColumn) {
                QFont font;
                font.setUnderline(true);
                return font;
            }
            return {};
        case Qt::ToolTipRole:
            switch (column) {
                case FieldColumn: return edge_tooltip(graph, it.edge);
                case ValueColumn:
                    return QStringLiteral("%1\nClick (or double-click, Enter) to select it")
                        .arg(QString::fromStdString(analysis::describe_node_at(s, n)));
                case SizeColumn: return exact_bytes_text(s.node_size[n]);
                default: return {};
            }
        default: return {};
    }
}

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case FieldColumn: return QStringLiteral("Field");
        case ValueColumn: return QStringLiteral("Value");
        case NotesColumn: return QStringLiteral("Notes");
        case SizeColumn: return QStringLiteral("Size");
        case RetainedColumn: return QStringLiteral("Retained");
    }
    return {};
}

}  // namespace refscope::app
