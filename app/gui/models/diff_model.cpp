#include "models/diff_model.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "models/cell_text.h"
#include "models/model_roles.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

QString header_tooltip(int column) {
    switch (column) {
        case DiffModel::ObjectsAColumn: return QStringLiteral("Objects of the type in the baseline");
        case DiffModel::ObjectsBColumn: return QStringLiteral("Objects of the type in the current snapshot");
        case DiffModel::BytesAColumn: return QStringLiteral("Shallow bytes in the baseline");
        case DiffModel::BytesBColumn: return QStringLiteral("Shallow bytes in the current snapshot");
        case DiffModel::NewColumn:
            return QStringLiteral("Objects in the current snapshot with no object of the same type at the same "
                                  "address in the baseline");
        case DiffModel::FreedColumn: return QStringLiteral("Baseline objects gone from the current snapshot");
        case DiffModel::SurvivorsColumn:
            return QStringLiteral("Allocated between snapshots 1 and 2 and still alive in 3: the likeliest leaks");
    }
    return {};
}

}  // namespace

DiffModel::DiffModel(QObject* parent) : SortableTableModel(parent) {}

void DiffModel::setDiff(std::shared_ptr<const SnapshotDiff> diff) {
    beginResetModel();
    diff_ = std::move(diff);
    rebuild();
    endResetModel();
}

void DiffModel::setSurvivors(std::shared_ptr<const SurvivorReport> survivors) {
    beginResetModel();
    survivors_ = std::move(survivors);
    rebuild();
    endResetModel();
}

void DiffModel::rebuild() {
    table_.clear();
    std::unordered_map<std::string_view, size_t> by_name;
    if (diff_) {
        for (const TypeDelta& d : diff_->types) {
            by_name.emplace(d.name, table_.size());
            table_.push_back(Row{&d, d.name});
        }
    }
    if (survivors_) {
        for (const SurvivorGroup& g : survivors_->groups) {
            auto found = by_name.find(g.type);
            if (found == by_name.end()) {
                found = by_name.emplace(g.type, table_.size()).first;
                table_.push_back(Row{nullptr, g.type});
            }
            table_[found->second].survivors = g.objects;
            table_[found->second].survivor_bytes = g.bytes;
        }
    }
    rows_ = sortedRows();
}

QVariant DiffModel::sortKey(const Row& row, int column) const {
    const TypeDelta* d = row.delta;
    const auto count = [&](uint64_t TypeDelta::*field) {
        return d ? QVariant::fromValue<qulonglong>(d->*field) : QVariant();
    };
    switch (column) {
        case TypeColumn: return QString::fromStdString(row.name);
        case ObjectsAColumn: return count(&TypeDelta::objects_a);
        case ObjectsBColumn: return count(&TypeDelta::objects_b);
        case DeltaObjectsColumn: return QVariant::fromValue<qlonglong>(d ? d->object_delta() : 0);
        case BytesAColumn: return count(&TypeDelta::bytes_a);
        case BytesBColumn: return count(&TypeDelta::bytes_b);
        case DeltaBytesColumn: return QVariant::fromValue<qlonglong>(d ? d->byte_delta() : 0);
        case NewColumn: return count(&TypeDelta::new_objects);
        case FreedColumn: return count(&TypeDelta::freed_objects);
        case SurvivorsColumn: return survivors_ ? QVariant::fromValue<qulonglong>(row.survivors) : QVariant();
    }
    return {};
}

std::vector<uint32_t> DiffModel::sortedRows() const {
    std::vector<uint32_t> rows(table_.size());
    std::iota(rows.begin(), rows.end(), 0u);
    const int column = sortColumn();
    if (column < 0 || column >= ColumnCount) return rows;
    const bool ascending = sortOrder() == Qt::AscendingOrder;
    std::vector<QVariant> keys(table_.size());
    for (size_t i = 0; i < table_.size(); ++i) keys[i] = sortKey(table_[i], column);
    // Empty cells last either way; ties keep the diff's order.
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
        const QVariant& x = keys[a];
        const QVariant& y = keys[b];
        if (x.isValid() != y.isValid()) return x.isValid();
        if (!x.isValid()) return false;
        const QPartialOrdering ordering = QVariant::compare(x, y);
        return ascending ? ordering == QPartialOrdering::Less : ordering == QPartialOrdering::Greater;
    });
    return rows;
}

void DiffModel::sort(int column, Qt::SortOrder order) {
    setSortState(column, order);
    reorder(sortedRows(), table_.size());
}

QString DiffModel::typeName(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    return QString::fromStdString(table_[rows_[static_cast<size_t>(row)]].name);
}

int DiffModel::rowOfType(const QString& name) const {
    const std::string wanted = name.toStdString();
    for (size_t row = 0; row < rows_.size(); ++row) {
        if (table_[rows_[row]].name == wanted) return static_cast<int>(row);
    }
    return -1;
}

int DiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiffModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& row = table_[rows_[static_cast<size_t>(index.row())]];
    const TypeDelta* d = row.delta;
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case TypeColumn: return QString::fromStdString(row.name);
                case ObjectsAColumn: return d ? QVariant(count_text(d->objects_a)) : QVariant();
                case ObjectsBColumn: return d ? QVariant(count_text(d->objects_b)) : QVariant();
                case DeltaObjectsColumn: return signed_count_text(d ? d->object_delta() : 0);
                case BytesAColumn: return d ? QVariant(bytes_text(d->bytes_a)) : QVariant();
                case BytesBColumn: return d ? QVariant(bytes_text(d->bytes_b)) : QVariant();
                case DeltaBytesColumn: return signed_bytes_text(d ? d->byte_delta() : 0);
                case NewColumn: return d ? QVariant(count_text(d->new_objects)) : QVariant();
                case FreedColumn: return d ? QVariant(count_text(d->freed_objects)) : QVariant();
                case SurvivorsColumn: return survivors_ ? QVariant(count_text(row.survivors)) : QVariant();
            }
            return {};
        case SortKeyRole: return sortKey(row, column);
        case FilterTermRole: return filter_term(QStringLiteral("type"), QString::fromStdString(row.name));
        case Qt::TextAlignmentRole:
            return column == TypeColumn ? QVariant() : QVariant::fromValue(int(kNumberAlignment));
        case Qt::ToolTipRole:
            if (!d && column != SurvivorsColumn) {
                return QStringLiteral("%1 did not change between the two snapshots compared").arg(QString::fromStdString(row.name));
            }
            switch (column) {
                case BytesAColumn: return exact_bytes_text(d->bytes_a);
                case BytesBColumn: return exact_bytes_text(d->bytes_b);
                case DeltaBytesColumn:
                    return QStringLiteral("%1 bytes").arg(signed_count_text(d->byte_delta()));
                case NewColumn: return QStringLiteral("%1 new objects, %2").arg(count_text(d->new_objects), exact_bytes_text(d->new_bytes));
                case FreedColumn:
                    return QStringLiteral("%1 freed objects, %2").arg(count_text(d->freed_objects), exact_bytes_text(d->freed_bytes));
                case SurvivorsColumn:
                    if (!survivors_) return QStringLiteral("Open a third snapshot to find survivors");
                    return QStringLiteral("%1 survivors, %2").arg(count_text(row.survivors), exact_bytes_text(row.survivor_bytes));
                default: return QString::fromStdString(row.name);
            }
        default:
            return {};
    }
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::ToolTipRole) return header_tooltip(section);
    if (role != Qt::DisplayRole) return {};
    switch (section) {
        case TypeColumn: return QStringLiteral("Type");
        // Which snapshot is which, in the header itself (not "A"/"B").
        case ObjectsAColumn: return QStringLiteral("Baseline objects");
        case ObjectsBColumn: return QStringLiteral("Current objects");
        case DeltaObjectsColumn: return QStringLiteral("\u0394 Objects");
        case BytesAColumn: return QStringLiteral("Baseline bytes");
        case BytesBColumn: return QStringLiteral("Current bytes");
        case DeltaBytesColumn: return QStringLiteral("\u0394 Bytes");
        case NewColumn: return QStringLiteral("New");
        case FreedColumn: return QStringLiteral("Freed");
        case SurvivorsColumn: return QStringLiteral("Survivors");
    }
    return {};
}

}  // namespace refscope::app
