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

// A running frame's local's name, from its root record's label.
QString root_local_name(const Snapshot& s, uint32_t record) {
    const auto label = analysis::parse_frame_root_label(s.strings.view(s.roots[record].label));
    return label ? to_qstring(analysis::escape_text(label->local, 100)) : QStringLiteral("?");
}

}  // namespace

InspectorModel::InspectorModel(QObject* parent) : BatchedTreeModel(parent) { setBatchSize(kBatchSize); }

void InspectorModel::setAnalysis(AnalysisPtr analysis) {
    startReset();
    analysis_ = std::move(analysis);
    target_ = kNoNode;
    counts_.fill(0);
    frame_ = {};
    clearItems();
    finishReset();
}

void InspectorModel::setTarget(uint32_t node) {
    startReset();
    clearItems();
    counts_.fill(0);
    frame_ = {};
    target_ = analysis_ && analysis_->has_graph() && node < analysis_->snapshot().node_count() ? node : kNoNode;
    if (target_ != kNoNode) {
        // One pass over the object's own edges; a group's edge ids are
        // gathered only when a view opens it (populate).
        const Snapshot& s = analysis_->snapshot();
        for (const uint32_t e : analysis_->index().out_edges(target_)) ++counts_[groupOf(s.edge_kind[e])];
        // A running 3.11+ frame's locals are its thread's, not its edges.
        frame_ = analysis::running_frame(s, analysis_->roots(), target_);
        counts_[Locals] += frame_.locals.size();
        for (uint8_t g = 0; g < GroupCount; ++g) {
            if (counts_[g] == 0 && !(g == Locals && frame_.ambiguous)) continue;
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
    return it.kind == FieldItem || it.kind == RootLocalItem ? it.node : kNoNode;
}

uint32_t InspectorModel::edgeAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return analysis::kNoEdge;
    const Item& it = itemAt(index);
    return it.kind == FieldItem ? it.edge : analysis::kNoEdge;
}

uint32_t InspectorModel::rootRecordAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return analysis::kNoRootRecord;
    const Item& it = itemAt(index);
    return it.kind == RootLocalItem ? it.edge : analysis::kNoRootRecord;
}

QString InspectorModel::frameLocation() const {
    if (target_ == kNoNode) return {};
    // A running frame's own root record, "frame app.py:12 in main" (3.11+:
    // with ", frame object" after it), is the only place the snapshot
    // records the line it is at.
    if (frame_.record != analysis::kNoRootRecord) return to_qstring(analysis::escape_text(frame_.location, 300));
    const Snapshot& s = analysis_->snapshot();
    const std::string_view type = analysis::type_name(s, target_);
    if (counts_[Locals] == 0 && type != "frame" && type != "generator" && type != "coroutine" &&
        type != "async_generator")
        return {};
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

void InspectorModel::populate(int32_t id, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const {
    const auto group = static_cast<Group>(item(id).node);
    const Snapshot& s = analysis_->snapshot();
    if (group == Locals) {
        // A running frame's locals (as many as its code has slots) first.
        if (frame_.ambiguous) {
            Item note;
            note.kind = NoteItem;
            fixed.push_back(std::move(note));
        }
        for (const uint32_t record : frame_.locals) {
            Item local;
            local.kind = RootLocalItem;
            local.edge = record;
            local.node = s.roots[record].node;
            fixed.push_back(std::move(local));
        }
    }
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
    if (it.kind == NoteItem) return noteData(index.column(), role);
    return it.kind == GroupItem ? groupData(it, index.column(), role) : fieldData(it, index.column(), role);
}

QVariant InspectorModel::groupData(const Item& it, int column, int role) const {
    const auto group = static_cast<Group>(it.node);
    switch (role) {
        case Qt::DisplayRole:
            if (column != FieldColumn) return {};
            if (group == Locals && frame_.ambiguous) return QStringLiteral("%1 (not matched)").arg(groupTitle(group));
            return QStringLiteral("%1 (%2)").arg(groupTitle(group), count_text(counts_[group]));
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
            if (group == Locals && frame_.record != analysis::kNoRootRecord && !frame_.locals.empty()) {
                return QStringLiteral("The frame is running: its locals are held by its thread's stack "
                                      "(root records), not by the frame object");
            }
            return {};
        default: return {};
    }
}

QVariant InspectorModel::fieldData(const Item& it, int column, int role) const {
    const Snapshot& s = analysis_->snapshot();
    const analysis::GraphIndex& graph = analysis_->index();
    const analysis::DominatorTree* tree = analysis_->dominators();
    const uint32_t n = it.node;
    // A running frame's local is a root record (it.edge), not an edge.
    const bool root = it.kind == RootLocalItem;
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case FieldColumn:
                    if (root) return QStringLiteral("local %1").arg(root_local_name(s, it.edge));
                    return QString::fromStdString(analysis::describe_edge(s, it.edge));
                case ValueColumn: return QString::fromStdString(analysis::describe_node(s, n));
                case NotesColumn:
                    if (root) return QStringLiteral("thread stack");
                    return edge_notes(graph, it.edge).join(QStringLiteral(", "));
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
            if (column == FieldColumn) return root ? QVariant() : edge_foreground(graph, it.edge);
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
                case FieldColumn:
                    if (root) {
                        return QStringLiteral("Held by the running frame's thread: root record \"%1\"")
                            .arg(to_qstring(analysis::escape_text(s.strings.view(s.roots[it.edge].label), 400)));
                    }
                    return edge_tooltip(graph, it.edge);
                case ValueColumn:
                    return QStringLiteral("%1\nClick (or double-click, Enter) to select it")
                        .arg(QString::fromStdString(analysis::describe_node_at(s, n)));
                case SizeColumn: return exact_bytes_text(s.node_size[n]);
                default: return {};
            }
        default: return {};
    }
}

QVariant InspectorModel::noteData(int column, int role) const {
    if (role == Qt::DisplayRole && column == FieldColumn) return QStringLiteral("(locals not listed)");
    if ((role == Qt::DisplayRole && column == ValueColumn) || (role == Qt::ToolTipRole && column <= ValueColumn)) {
        return QStringLiteral("%1 runs more than once on this thread and the snapshot's records cannot tell "
                              "which locals are this activation's")
            .arg(to_qstring(analysis::escape_text(frame_.location, 300)));
    }
    if (role == Qt::ForegroundRole) return QGuiApplication::palette().color(QPalette::PlaceholderText);
    return {};
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
