#include "models/type_summary_model.h"

#include <algorithm>
#include <string_view>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "refscope/analysis/dominator_tree.h"

namespace refscope::app {

using analysis::GroupBy;

namespace {

QString header_tooltip(int column) {
    switch (column) {
        case TypeSummaryModel::NameColumn: return QStringLiteral("The type's qualified name, or the module");
        case TypeSummaryModel::ObjectsColumn: return QStringLiteral("Objects of the group");
        case TypeSummaryModel::ShallowBytesColumn:
            return QStringLiteral("Shallow bytes: the objects' own sizes");
        case TypeSummaryModel::RetainedBytesColumn:
            return QStringLiteral(
                "Bytes freed if the group's objects went away: retained sizes of the objects no other "
                "object of the group dominates");
        case TypeSummaryModel::UnexplainedColumn:
            return QStringLiteral(
                "Unexplained surplus: references to these objects that no object, root or extension "
                "accounts for (C/C++ code or a leak)");
        case TypeSummaryModel::DeltaObjectsColumn:
            return QStringLiteral("Change in objects of the type since the baseline snapshot");
        case TypeSummaryModel::DeltaBytesColumn:
            return QStringLiteral("Change in shallow bytes of the type since the baseline snapshot");
    }
    return {};
}

}  // namespace

TypeSummaryModel::TypeSummaryModel(QObject* parent) : SortableTableModel(parent) {
    setSortState(ShallowBytesColumn, Qt::DescendingOrder);
}

void TypeSummaryModel::setAnalysis(AnalysisPtr analysis, GroupBy by,
                                   std::shared_ptr<const std::vector<uint32_t>> selection) {
    beginResetModel();
    analysis_ = std::move(analysis);
    by_ = by == GroupBy::Module ? GroupBy::Module : GroupBy::Type;
    selection_ = std::move(selection);
    diff_.reset();
    buildGroups();
    countSelection();
    endResetModel();
}

void TypeSummaryModel::setSelection(std::shared_ptr<const std::vector<uint32_t>> nodes) {
    beginResetModel();
    selection_ = std::move(nodes);
    countSelection();
    endResetModel();
}

bool TypeSummaryModel::setBaseline(std::shared_ptr<const analysis::SnapshotDiff> diff) {
    const bool fits = !diff || (analysis_ && diff->is_new.size() == analysis_->snapshot().node_count());
    diff_ = fits ? std::move(diff) : nullptr;
    computeDeltas();
    if (rows_.empty()) return fits;
    if (sortColumn() == DeltaObjectsColumn || sortColumn() == DeltaBytesColumn) {
        reorder(sortedRows(rows_), groups_.size());
    }
    emit dataChanged(index(0, DeltaObjectsColumn), index(rowCount() - 1, DeltaBytesColumn));
    return fits;
}

void TypeSummaryModel::buildGroups() {
    groups_.clear();
    type_group_.clear();
    is_module_type_.clear();
    module_object_group_.clear();
    if (!analysis_) return;
    const Snapshot& s = analysis_->snapshot();
    const size_t type_count = s.types.size();
    std::unordered_map<std::string_view, uint32_t> by_name;
    const auto group_named = [&](std::string_view name) {
        const auto [it, inserted] = by_name.try_emplace(name, static_cast<uint32_t>(groups_.size()));
        if (inserted) groups_.push_back(Group{std::string(name)});
        return it->second;
    };
    // Same names as core's group_objects(): the CLI's `summary` rows.
    const std::string_view unnamed = by_ == GroupBy::Type ? "(unknown type)" : "(no module)";
    type_group_.assign(type_count + 1, 0);
    is_module_type_.assign(type_count + 1, 0);
    for (size_t t = 0; t < type_count; ++t) {
        const std::string_view name = s.strings.view(by_ == GroupBy::Type ? s.types[t].name : s.types[t].module);
        type_group_[t] = group_named(name.empty() ? unnamed : name);
        is_module_type_[t] = by_ == GroupBy::Module && s.strings.view(s.types[t].name) == "module";
    }
    type_group_[type_count] = group_named(unnamed);
    if (by_ == GroupBy::Module) {
        // A module object belongs to the module it is (its preview is its name).
        for (uint32_t n = 0; n < s.node_count(); ++n) {
            const size_t t = std::min<size_t>(s.node_type[n], type_count);
            if (is_module_type_[t] && s.node_preview[n] != 0) {
                module_object_group_.emplace(s.node_preview[n], group_named(s.strings.view(s.node_preview[n])));
            }
        }
    }
}

uint32_t TypeSummaryModel::groupOf(uint32_t node) const {
    const Snapshot& s = analysis_->snapshot();
    const size_t t = std::min<size_t>(s.node_type[node], s.types.size());
    if (is_module_type_[t] && s.node_preview[node] != 0) return module_object_group_.at(s.node_preview[node]);
    return type_group_[t];
}

void TypeSummaryModel::countSelection() {
    for (Group& g : groups_) g.objects = g.bytes = g.retained = 0, g.unexplained = 0;
    rows_.clear();
    total_objects_ = total_bytes_ = 0;
    if (!analysis_) return;
    const Snapshot& s = analysis_->snapshot();
    const uint32_t node_count = static_cast<uint32_t>(s.node_count());

    std::vector<uint8_t> selected;
    if (selection_) {
        selected.assign(node_count, 0);
        for (uint32_t n : *selection_) {
            if (n < node_count) selected[n] = 1;
        }
    }
    const auto count = [&](uint32_t n) {
        Group& g = groups_[groupOf(n)];
        ++g.objects;
        g.bytes += s.node_size[n];
    };
    if (selection_) {
        for (uint32_t n = 0; n < node_count; ++n) {
            if (selected[n]) count(n);
        }
    } else {
        for (uint32_t n = 0; n < node_count; ++n) count(n);
    }
    if (analysis_->has_graph()) {
        for (const analysis::NodeCount& c : analysis_->roots().unexplained_nodes()) {
            if (!selection_ || selected[c.node]) groups_[groupOf(c.node)].unexplained += c.references;
        }
    }
    computeRetained(selection_ ? &selected : nullptr);
    computeDeltas();

    for (uint32_t g = 0; g < groups_.size(); ++g) {
        if (groups_[g].objects == 0) continue;
        rows_.push_back(g);
        total_objects_ += groups_[g].objects;
        total_bytes_ += groups_[g].bytes;
    }
    rows_ = sortedRows(std::move(rows_));
}

void TypeSummaryModel::computeRetained(const std::vector<uint8_t>* selected) {
    const analysis::DominatorTree* tree = analysis_->dominators();
    if (!tree) return;
    const Snapshot& s = analysis_->snapshot();
    const uint32_t node_count = static_cast<uint32_t>(s.node_count());
    const auto member = [&](uint32_t n) { return n < node_count && (!selected || (*selected)[n]); };

    // Depth-first over the dominator tree from the super-root. open[g] counts
    // the objects of group g on the current root-to-node chain: an object
    // entered while open[g] == 0 is dominated by no other object of its
    // group, so its retained size counts.
    std::vector<uint32_t> open(groups_.size(), 0);
    struct Frame {
        uint32_t node;
        uint32_t next_child;
    };
    std::vector<Frame> stack{{analysis::kSuperRoot, 0}};
    while (!stack.empty()) {
        const uint32_t node = stack.back().node;
        const auto children = tree->children(node);
        if (stack.back().next_child < children.size()) {
            const uint32_t child = children[stack.back().next_child++];
            if (member(child)) {
                const uint32_t g = groupOf(child);
                if (open[g]++ == 0) groups_[g].retained += tree->retained_size(child);
            }
            stack.push_back({child, 0});
        } else {
            if (member(node)) --open[groupOf(node)];
            stack.pop_back();
        }
    }
    for (uint32_t n = 0; n < node_count; ++n) {
        if (member(n) && !tree->reachable(n)) groups_[groupOf(n)].retained += s.node_size[n];
    }
}

void TypeSummaryModel::computeDeltas() {
    for (Group& g : groups_) g.has_delta = false, g.delta_objects = g.delta_bytes = 0;
    if (!diff_) return;
    std::unordered_map<std::string_view, const analysis::TypeDelta*> changed;
    for (const analysis::TypeDelta& d : by_ == GroupBy::Module ? diff_->modules : diff_->types) {
        changed.emplace(d.name, &d);
    }
    for (Group& g : groups_) {
        g.has_delta = true;  // a type the diff does not list did not change
        const auto found = changed.find(g.name);
        if (found == changed.end()) continue;
        g.delta_objects = found->second->object_delta();
        g.delta_bytes = found->second->byte_delta();
    }
}

uint64_t TypeSummaryModel::sortKey(uint32_t group, int column) const {
    const Group& g = groups_[group];
    switch (column) {
        case ObjectsColumn: return g.objects;
        case ShallowBytesColumn: return g.bytes;
        case RetainedBytesColumn: return g.retained;
        case UnexplainedColumn: return signed_sort_key(g.unexplained);
        case DeltaObjectsColumn: return signed_sort_key(g.delta_objects);
        case DeltaBytesColumn: return signed_sort_key(g.delta_bytes);
    }
    return 0;
}

std::vector<uint32_t> TypeSummaryModel::sortedRows(std::vector<uint32_t> rows) const {
    const int column = sortColumn();
    const bool ascending = sortOrder() == Qt::AscendingOrder;
    const auto by_name = [&](uint32_t a, uint32_t b) { return groups_[a].name < groups_[b].name; };
    if (column == NameColumn) {
        std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
            return ascending ? by_name(a, b) : by_name(b, a);
        });
    } else if (column > NameColumn && column < ColumnCount) {
        // Ties by name, ascending either way: the order reads the same.
        std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
            const uint64_t ka = sortKey(a, column);
            const uint64_t kb = sortKey(b, column);
            if (ka != kb) return ascending ? ka < kb : ka > kb;
            // Equal bytes: more objects first when descending, as the CLI's
            // `summary` orders (bytes, objects, name).
            if (column == ShallowBytesColumn && groups_[a].objects != groups_[b].objects) {
                return ascending ? groups_[a].objects < groups_[b].objects
                                 : groups_[a].objects > groups_[b].objects;
            }
            return by_name(a, b);
        });
    }
    return rows;
}

void TypeSummaryModel::sort(int column, Qt::SortOrder order) {
    setSortState(column, order);
    reorder(sortedRows(rows_), groups_.size());
}

QString TypeSummaryModel::groupName(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    return QString::fromStdString(groups_[rows_[static_cast<size_t>(row)]].name);
}

int TypeSummaryModel::rowOfGroup(const QString& name) const {
    const std::string wanted = name.toStdString();
    for (size_t row = 0; row < rows_.size(); ++row) {
        if (groups_[rows_[row]].name == wanted) return static_cast<int>(row);
    }
    return -1;
}

std::vector<uint32_t> TypeSummaryModel::nodesOf(int row) const {
    std::vector<uint32_t> nodes;
    if (row < 0 || row >= rowCount()) return nodes;
    const uint32_t group = rows_[static_cast<size_t>(row)];
    nodes.reserve(groups_[group].objects);
    const uint32_t node_count = static_cast<uint32_t>(analysis_->snapshot().node_count());
    if (selection_) {
        for (uint32_t n : *selection_) {
            if (n < node_count && groupOf(n) == group) nodes.push_back(n);
        }
        std::sort(nodes.begin(), nodes.end());
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    } else {
        for (uint32_t n = 0; n < node_count; ++n) {
            if (groupOf(n) == group) nodes.push_back(n);
        }
    }
    return nodes;
}

bool TypeSummaryModel::analysing() const { return analysis_ && !analysis_->has_graph(); }

QString TypeSummaryModel::analysingText() { return QStringLiteral("analysing\u2026"); }

int TypeSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TypeSummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Group& g = groups_[rows_[static_cast<size_t>(index.row())]];
    const int column = index.column();
    const bool retained_known = analysis_->dominators() != nullptr;
    // The columns that need the graph say so rather than show a zero.
    if (analysing() && (column == RetainedBytesColumn || column == UnexplainedColumn)) {
        if (role == Qt::DisplayRole) return analysingText();
        if (role == Qt::ToolTipRole) return QStringLiteral("Known when the analysis of the reference graph is done");
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(int(kNumberAlignment));
        return {};
    }
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case NameColumn: return QString::fromStdString(g.name);
                case ObjectsColumn: return count_text(g.objects);
                case ShallowBytesColumn: return bytes_text(g.bytes);
                case RetainedBytesColumn: return retained_known ? QVariant(bytes_text(g.retained)) : QVariant();
                case UnexplainedColumn: return count_text(static_cast<uint64_t>(std::max<int64_t>(g.unexplained, 0)));
                case DeltaObjectsColumn: return g.has_delta ? QVariant(signed_count_text(g.delta_objects)) : QVariant();
                case DeltaBytesColumn: return g.has_delta ? QVariant(signed_bytes_text(g.delta_bytes)) : QVariant();
            }
            return {};
        case SortKeyRole:
            switch (column) {
                case NameColumn: return QString::fromStdString(g.name);
                case ObjectsColumn: return QVariant::fromValue<qulonglong>(g.objects);
                case ShallowBytesColumn: return QVariant::fromValue<qulonglong>(g.bytes);
                case RetainedBytesColumn: return retained_known ? QVariant::fromValue<qulonglong>(g.retained) : QVariant();
                case UnexplainedColumn: return QVariant::fromValue<qlonglong>(g.unexplained);
                case DeltaObjectsColumn: return g.has_delta ? QVariant::fromValue<qlonglong>(g.delta_objects) : QVariant();
                case DeltaBytesColumn: return g.has_delta ? QVariant::fromValue<qlonglong>(g.delta_bytes) : QVariant();
            }
            return {};
        case FilterTermRole:
            // The unnamed groups ("(unknown type)") are no name a term can select.
            if (g.name.empty() || g.name.front() == '(') return {};
            return filter_term(by_ == GroupBy::Module ? QStringLiteral("module") : QStringLiteral("type"),
                               QString::fromStdString(g.name));
        case Qt::TextAlignmentRole:
            return column == NameColumn ? QVariant() : QVariant::fromValue(int(kNumberAlignment));
        case Qt::ToolTipRole:
            switch (column) {
                case NameColumn:
                    return QStringLiteral("%1: %2 objects, %3 shallow")
                        .arg(QString::fromStdString(g.name), count_text(g.objects), exact_bytes_text(g.bytes));
                case ShallowBytesColumn: return exact_bytes_text(g.bytes);
                case RetainedBytesColumn:
                    return retained_known ? exact_bytes_text(g.retained)
                                          : QStringLiteral("Retained sizes were not computed for this snapshot");
                case UnexplainedColumn:
                    return g.unexplained > 0
                               ? QStringLiteral("%1 references the garbage collector cannot see: C/C++ code or a leak")
                                     .arg(count_text(static_cast<uint64_t>(g.unexplained)))
                               : QStringLiteral("Every reference to these objects is accounted for");
                case DeltaObjectsColumn:
                case DeltaBytesColumn:
                    if (g.has_delta) {
                        return QStringLiteral("Whole %1 since the baseline: %2 objects, %3")
                            .arg(by_ == GroupBy::Module ? QStringLiteral("module") : QStringLiteral("type"))
                            .arg(signed_count_text(g.delta_objects), signed_bytes_text(g.delta_bytes));
                    }
                    return QStringLiteral("Choose a baseline snapshot to see changes");
            }
            return {};
        default:
            return {};
    }
}

QVariant TypeSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            // "Type's module": the module defining each object's type, which
            // is `builtins` for every dict and list, not the module holding
            // them (issue 16: a plain "Module" said the latter).
            case NameColumn: return by_ == GroupBy::Module ? QStringLiteral("Type's module") : QStringLiteral("Type");
            case ObjectsColumn: return QStringLiteral("Objects");
            case ShallowBytesColumn: return QStringLiteral("Shallow");
            case RetainedBytesColumn: return QStringLiteral("Retained");
            case UnexplainedColumn: return QStringLiteral("Unexplained");
            case DeltaObjectsColumn: return QStringLiteral("\u0394 Objects");
            case DeltaBytesColumn: return QStringLiteral("\u0394 Bytes");
        }
    }
    if (role == Qt::ToolTipRole) return header_tooltip(section);
    if (role == Qt::TextAlignmentRole && section != NameColumn) return QVariant::fromValue(int(kNumberAlignment));
    return {};
}

}  // namespace refscope::app
