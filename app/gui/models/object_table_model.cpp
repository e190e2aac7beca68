#include "models/object_table_model.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "refscope/analysis/descriptions.h"

namespace refscope::app {

namespace {

bool counted(const Snapshot& s, uint32_t node) {
    return (s.node_flags[node] & (format::kNodeImmortal | format::kNodeNative)) == 0;
}

QString integer_text(int64_t value) {
    return value < 0 ? signed_count_text(value) : count_text(static_cast<uint64_t>(value));
}

// The first 8 bytes of `text` as a big-endian number (zero padded): comparing
// two prefixes compares the texts' first 8 bytes, so most of a string sort
// is a sort of integers.
uint64_t prefix_key(std::string_view text) {
    unsigned char bytes[8] = {};
    if (!text.empty()) std::memcpy(bytes, text.data(), std::min<size_t>(text.size(), 8));
    uint64_t key = 0;
    for (unsigned char b : bytes) key = (key << 8) | b;
    return key;
}

QString header_tooltip(int column) {
    switch (column) {
        case ObjectTableModel::AddressColumn: return QStringLiteral("The object's address in the process");
        case ObjectTableModel::TypeColumn: return QStringLiteral("The object's type");
        case ObjectTableModel::PreviewColumn:
            return QStringLiteral("A short value: str text, numbers, names, container lengths");
        case ObjectTableModel::SizeColumn: return QStringLiteral("Shallow size: the object's own bytes");
        case ObjectTableModel::RetainedColumn:
            return QStringLiteral("Retained size: the bytes freed if this object were freed (its dominator subtree)");
        case ObjectTableModel::DistanceColumn:
            return QStringLiteral("References from the nearest GC root; \u221e: no path from any root");
        case ObjectTableModel::RefcountColumn: return QStringLiteral("The object's reference count");
        case ObjectTableModel::SurplusColumn:
            return QStringLiteral("Refcount minus the references from other objects in the snapshot");
        case ObjectTableModel::UnexplainedColumn:
            return QStringLiteral(
                "Surplus no root accounts for: references the garbage collector cannot see (C/C++ code or a leak)");
        case ObjectTableModel::NewColumn: return QStringLiteral("Allocated since the baseline snapshot");
    }
    return {};
}

}  // namespace

ObjectTableModel::ObjectTableModel(QObject* parent) : SortableTableModel(parent) {}

void ObjectTableModel::setAnalysis(AnalysisPtr analysis) {
    beginResetModel();
    analysis_ = std::move(analysis);
    rows_.clear();
    increasing_.clear();
    is_new_.reset();
    preview_rank_.clear();
    type_rank_.clear();
    row_of_node_.clear();
    endResetModel();
}

void ObjectTableModel::setNodes(std::vector<uint32_t> nodes) {
    beginResetModel();
    const size_t node_count = analysis_ ? analysis_->snapshot().node_count() : 0;
    std::erase_if(nodes, [&](uint32_t n) { return n >= node_count; });
    increasing_ = nodes;
    if (!std::is_sorted(increasing_.begin(), increasing_.end())) std::sort(increasing_.begin(), increasing_.end());
    rows_ = sortColumn() >= 0 ? sortedRows() : std::move(nodes);
    row_of_node_.clear();
    endResetModel();
}

void ObjectTableModel::setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new) {
    if (is_new && (!analysis_ || is_new->size() != analysis_->snapshot().node_count())) is_new.reset();
    is_new_ = std::move(is_new);
    if (sortColumn() == NewColumn && !rows_.empty()) {
        row_of_node_.clear();
        reorder(sortedRows(), analysis_->snapshot().node_count());
    }
    if (!rows_.empty()) emit dataChanged(index(0, NewColumn), index(rowCount() - 1, NewColumn));
}

uint32_t ObjectTableModel::nodeAt(int row) const {
    return row >= 0 && row < rowCount() ? rows_[static_cast<size_t>(row)] : kNoNode;
}

int ObjectTableModel::rowOf(uint32_t node) const {
    if (!analysis_ || node >= analysis_->snapshot().node_count()) return -1;
    if (row_of_node_.empty()) {
        row_of_node_.assign(analysis_->snapshot().node_count(), -1);
        for (size_t row = 0; row < rows_.size(); ++row) row_of_node_[rows_[row]] = static_cast<int32_t>(row);
    }
    return row_of_node_[node];
}

const std::vector<uint32_t>& ObjectTableModel::typeRank() const {
    if (!type_rank_.empty()) return type_rank_;
    const Snapshot& s = analysis_->snapshot();
    const size_t type_count = s.types.size();
    // The name the type column shows, "?" for a nameless type or a bad id.
    const auto name_of = [&](size_t t) -> std::string_view {
        const std::string_view name = t < type_count ? s.strings.view(s.types[t].name) : std::string_view();
        return name.empty() ? std::string_view("?") : name;
    };
    std::vector<uint32_t> order(type_count + 1);
    for (size_t t = 0; t <= type_count; ++t) order[t] = static_cast<uint32_t>(t);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return name_of(a) < name_of(b); });
    type_rank_.assign(type_count + 1, 0);
    uint32_t rank = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        if (i > 0 && name_of(order[i]) != name_of(order[i - 1])) ++rank;
        type_rank_[order[i]] = rank;
    }
    return type_rank_;
}

const std::vector<uint32_t>& ObjectTableModel::previewRank() const {
    if (!preview_rank_.empty()) return preview_rank_;
    const Snapshot& s = analysis_->snapshot();
    const size_t string_count = s.strings.size();
    // Only the strings some node uses as its preview take part.
    std::vector<uint8_t> used(string_count, 0);
    for (uint32_t id : s.node_preview) {
        if (id < string_count) used[id] = 1;
    }
    used[0] = 0;
    std::vector<uint32_t> ids;
    for (uint32_t id = 1; id < string_count; ++id) {
        if (used[id]) ids.push_back(id);
    }
    // Each text is read once: its first 16 bytes as two big-endian numbers
    // and its length. Strings live scattered on the heap, so reading them
    // is the cost; most texts differ within 16 bytes, and only the few that
    // do not are compared as whole texts.
    const size_t n = ids.size();
    std::vector<uint64_t> head(n), next(n);
    std::vector<uint32_t> length(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string_view text = s.strings.view(ids[i]);
        head[i] = prefix_key(text);
        next[i] = text.size() > 8 ? prefix_key(text.substr(8)) : 0;
        length[i] = static_cast<uint32_t>(std::min<size_t>(text.size(), UINT32_MAX));
    }
    std::vector<KeyedId> order(n);  // ids here are positions in `ids`
    for (size_t i = 0; i < n; ++i) order[i] = {head[i], static_cast<uint32_t>(i)};
    sort_keyed_ids(order);
    // same[i]: order[i] has the same text as order[i - 1].
    std::vector<uint8_t> same(n, 0);
    const auto whole_text_sort = [&](size_t first, size_t last) {
        const auto begin = order.begin() + static_cast<std::ptrdiff_t>(first);
        const auto end = order.begin() + static_cast<std::ptrdiff_t>(last);
        std::sort(begin, end, [&](const KeyedId& a, const KeyedId& b) {
            const std::string_view x = s.strings.view(ids[a.id]), y = s.strings.view(ids[b.id]);
            return x != y ? x < y : a.id < b.id;
        });
        for (size_t i = first + 1; i < last; ++i) {
            same[i] = s.strings.view(ids[order[i].id]) == s.strings.view(ids[order[i - 1].id]);
        }
    };
    // Calls visit(first, last) for each run of equal keys (2+ items) in [first, last).
    const auto for_each_run = [&](size_t first, size_t last, auto&& visit) {
        for (size_t at = first; at < last;) {
            size_t end = at + 1;
            while (end < last && order[end].key == order[at].key) ++end;
            if (end - at > 1) visit(at, end);
            at = end;
        }
    };
    const auto ends_within = [&](size_t first, size_t last, uint32_t bytes) {
        for (size_t i = first; i < last; ++i) {
            if (length[order[i].id] > bytes) return false;
        }
        return true;
    };
    std::vector<KeyedId> run;
    for_each_run(0, n, [&](size_t first, size_t last) {
        // Equal first 8 bytes. Texts that all end there: compare whole
        // (equal texts, or a NUL byte the zero padding hid).
        if (ends_within(first, last, 8)) return whole_text_sort(first, last);
        run.clear();
        for (size_t i = first; i < last; ++i) run.push_back({next[order[i].id], order[i].id});
        sort_keyed_ids(run);
        std::copy(run.begin(), run.end(), order.begin() + static_cast<std::ptrdiff_t>(first));
        // Equal first 16 bytes: compare whole.
        for_each_run(first, last, [&](size_t from, size_t to) { whole_text_sort(from, to); });
    });
    // Rank 0: no preview. Equal texts share a rank, so their rows tie and
    // fall back to node order.
    preview_rank_.assign(string_count, 0);
    uint32_t rank = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!same[i]) ++rank;
        preview_rank_[ids[order[i].id]] = rank;
    }
    return preview_rank_;
}

std::vector<uint32_t> ObjectTableModel::sortedRows() const {
    // From increasing ids: ties then need no work (the sort is stable).
    std::vector<uint32_t> rows = increasing_;
    if (!analysis_ || rows.empty()) return rows;
    const Snapshot& s = analysis_->snapshot();
    const analysis::RootClasses& roots = analysis_->roots();
    const analysis::DominatorTree* tree = analysis_->dominators();
    const Qt::SortOrder order = sortOrder();
    [&] {
    switch (sortColumn()) {
        case AddressColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) { return s.node_address[n]; });
        case TypeColumn: {
            const std::vector<uint32_t>& rank = typeRank();
            const size_t type_count = s.types.size();
            return sort_ids_by_key(rows, order, [&](uint32_t n) {
                return rank[std::min<size_t>(s.node_type[n], type_count)];
            });
        }
        case PreviewColumn: {
            const std::vector<uint32_t>& rank = previewRank();
            return sort_ids_by_key(rows, order, [&](uint32_t n) {
                const uint32_t id = s.node_preview[n];
                return id < rank.size() ? rank[id] : 0u;
            });
        }
        case SizeColumn: return sort_ids_by_key(rows, order, [&](uint32_t n) { return s.node_size[n]; });
        case RetainedColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) { return tree ? tree->retained_size(n) : 0; });
        case DistanceColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) { return analysis_->paths().distance(n); });
        case RefcountColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) { return signed_sort_key(s.node_refcount[n]); });
        case SurplusColumn:
            // Immortal and native objects have no surplus: below every number.
            return sort_ids_by_key(rows, order, [&](uint32_t n) -> uint64_t {
                if (!counted(s, n)) return 0;
                return signed_sort_key(s.node_refcount[n] - static_cast<int64_t>(roots.owned_in(n)));
            });
        case UnexplainedColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) { return signed_sort_key(roots.unexplained(n)); });
        case NewColumn:
            return sort_ids_by_key(rows, order, [&](uint32_t n) -> uint64_t { return is_new_ && (*is_new_)[n]; });
    }
    }();
    return rows;
}

void ObjectTableModel::sort(int column, Qt::SortOrder order) {
    setSortState(column, order);
    if (rows_.empty()) return;
    row_of_node_.clear();
    reorder(sortedRows(), analysis_->snapshot().node_count());
}

int ObjectTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ObjectTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const uint32_t n = rows_[static_cast<size_t>(index.row())];
    const Snapshot& s = analysis_->snapshot();
    const analysis::RootClasses& roots = analysis_->roots();
    const analysis::DominatorTree* tree = analysis_->dominators();
    const int column = index.column();
    const bool is_counted = counted(s, n);
    const bool immortal = (s.node_flags[n] & format::kNodeImmortal) != 0;
    const auto uncounted_text = [&] { return immortal ? QStringLiteral("immortal") : QStringLiteral("native"); };

    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case AddressColumn: return QString::fromStdString(analysis::format_address(s.node_address[n]));
                case TypeColumn: return to_qstring(analysis::type_name(s, n));
                case PreviewColumn: return preview_text(s, n);
                case SizeColumn: return bytes_text(s.node_size[n]);
                case RetainedColumn: return tree ? QVariant(retained_text(*tree, n)) : QVariant();
                case DistanceColumn: return distance_text(analysis_->paths().distance(n));
                case RefcountColumn: return is_counted ? integer_text(s.node_refcount[n]) : uncounted_text();
                case SurplusColumn:
                    return is_counted ? integer_text(s.node_refcount[n] - static_cast<int64_t>(roots.owned_in(n)))
                                      : QStringLiteral("\u2013");
                case UnexplainedColumn: return is_counted ? integer_text(roots.unexplained(n)) : QStringLiteral("\u2013");
                case NewColumn:
                    if (!is_new_) return {};
                    return (*is_new_)[n] ? QStringLiteral("new") : QString();
            }
            return {};
        case NodeIdRole: return QVariant::fromValue<quint32>(n);
        case SortKeyRole:
            switch (column) {
                case AddressColumn: return QVariant::fromValue<qulonglong>(s.node_address[n]);
                case TypeColumn: return to_qstring(analysis::type_name(s, n));
                case PreviewColumn: return to_qstring(s.strings.view(s.node_preview[n]));
                case SizeColumn: return QVariant::fromValue<qulonglong>(s.node_size[n]);
                case RetainedColumn: return tree ? QVariant::fromValue<qulonglong>(tree->retained_size(n)) : QVariant();
                case DistanceColumn: return QVariant::fromValue<quint32>(analysis_->paths().distance(n));
                case RefcountColumn: return QVariant::fromValue<qlonglong>(s.node_refcount[n]);
                case SurplusColumn:
                    return is_counted ? QVariant::fromValue<qlonglong>(s.node_refcount[n] - roots.owned_in(n)) : QVariant();
                case UnexplainedColumn: return QVariant::fromValue<qlonglong>(roots.unexplained(n));
                case NewColumn: return is_new_ ? QVariant((*is_new_)[n] != 0) : QVariant();
            }
            return {};
        case Qt::TextAlignmentRole:
            switch (column) {
                case SizeColumn:
                case RetainedColumn:
                case DistanceColumn:
                case RefcountColumn:
                case SurplusColumn:
                case UnexplainedColumn: return QVariant::fromValue(int(kNumberAlignment));
            }
            return {};
        case Qt::ToolTipRole:
            switch (column) {
                case AddressColumn:
                case TypeColumn: return QString::fromStdString(analysis::describe_node_at(s, n));
                case PreviewColumn: return preview_text(s, n, 2000);
                case SizeColumn: return exact_bytes_text(s.node_size[n]);
                case RetainedColumn:
                    if (!tree) return QStringLiteral("Retained sizes were not computed for this snapshot");
                    if (!tree->reachable(n)) {
                        return QStringLiteral(
                            "Not reached from any root or unexplained holder: garbage, or held only through a "
                            "reference the garbage collector cannot see");
                    }
                    return QStringLiteral("%1 in %2 objects")
                        .arg(exact_bytes_text(tree->retained_size(n)), count_text(tree->retained_count(n)));
                case DistanceColumn: return distance_tooltip(analysis_->paths(), n);
                case RefcountColumn:
                case SurplusColumn:
                case UnexplainedColumn: {
                    if (!is_counted) {
                        return immortal ? QStringLiteral("Immortal object: its refcount means nothing")
                                        : QStringLiteral("Native (C/C++) object: no refcount");
                    }
                    const analysis::SurplusBreakdown b = roots.breakdown(n);
                    return QStringLiteral("refcount %1 = %2 owned references from objects + %3 surplus "
                                          "(interpreter %4, thread stack %5, extension %6, unexplained %7)")
                        .arg(integer_text(b.refcount), count_text(b.owned_in), integer_text(b.surplus),
                             integer_text(b.explained[0]), integer_text(b.explained[1]), integer_text(b.explained[2]),
                             integer_text(b.unexplained));
                }
            }
            return {};
        default:
            return {};
    }
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case AddressColumn: return QStringLiteral("Address");
            case TypeColumn: return QStringLiteral("Type");
            case PreviewColumn: return QStringLiteral("Preview");
            case SizeColumn: return QStringLiteral("Size");
            case RetainedColumn: return QStringLiteral("Retained");
            case DistanceColumn: return QStringLiteral("Distance");
            case RefcountColumn: return QStringLiteral("Refcount");
            case SurplusColumn: return QStringLiteral("Surplus");
            case UnexplainedColumn: return QStringLiteral("Unexplained");
            case NewColumn: return QStringLiteral("New");
        }
    }
    if (role == Qt::ToolTipRole) return header_tooltip(section);
    return {};
}

}  // namespace refscope::app
