#include "models/suspects_model.h"

#include <algorithm>
#include <numeric>

#include <QColor>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "models/text_colours.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

QString score_text(double score) { return QString::number(score, 'f', 1); }

}  // namespace

SuspectsModel::SuspectsModel(QObject* parent) : SortableTableModel(parent) {}

void SuspectsModel::setSuspects(AnalysisPtr analysis, std::shared_ptr<const LeakSuspects> suspects) {
    beginResetModel();
    analysis_ = std::move(analysis);
    suspects_ = std::move(suspects);
    if (!suspects_ && analysis_ && analysis_->suspects()) {
        suspects_ = std::shared_ptr<const LeakSuspects>(analysis_, analysis_->suspects());
    }
    rows_ = sortedRows();
    endResetModel();
}

const SuspectGroup* SuspectsModel::groupAt(int row) const {
    if (row < 0 || row >= rowCount()) return nullptr;
    return &suspects_->groups()[rows_[static_cast<size_t>(row)]];
}

int SuspectsModel::rowOfType(std::string_view type) const {
    for (int row = 0; row < rowCount(); ++row) {
        if (groupAt(row)->type == type) return row;
    }
    return -1;
}

uint32_t SuspectsModel::representativeNode(int row) const {
    const SuspectGroup* group = groupAt(row);
    return group ? group->representative : kNoNode;
}

std::vector<uint32_t> SuspectsModel::sortedRows() const {
    std::vector<uint32_t> rows(suspects_ ? suspects_->groups().size() : 0);
    std::iota(rows.begin(), rows.end(), 0u);
    const int column = sortColumn();
    if (column < 0 || column >= ColumnCount) return rows;  // the ranking's order
    const auto& groups = suspects_->groups();
    const bool ascending = sortOrder() == Qt::AscendingOrder;
    // Ties keep the ranking's order whichever way the column sorts.
    const auto compare = [&](const auto& a, const auto& b) { return ascending ? a < b : b < a; };
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t x, uint32_t y) {
        const SuspectGroup& a = groups[x];
        const SuspectGroup& b = groups[y];
        switch (column) {
            case TypeColumn: return a.type != b.type && compare(a.type, b.type);
            case ConfidenceColumn: return a.confidence != b.confidence && compare(a.confidence, b.confidence);
            case ObjectsColumn: return a.objects != b.objects && compare(a.objects, b.objects);
            case RetainedBytesColumn:
                return a.retained_bytes != b.retained_bytes && compare(a.retained_bytes, b.retained_bytes);
            case ScoreColumn: return a.score != b.score && compare(a.score, b.score);
            case EvidenceColumn: {
                const std::string ka = suspect_kind_names(a.kinds), kb = suspect_kind_names(b.kinds);
                return ka != kb && compare(ka, kb);
            }
            case ReasonColumn: return a.reason != b.reason && compare(a.reason, b.reason);
        }
        return false;
    });
    return rows;
}

void SuspectsModel::sort(int column, Qt::SortOrder order) {
    setSortState(column, order);
    reorder(sortedRows(), rows_.size());
}

int SuspectsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SuspectsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const SuspectGroup& g = *groupAt(index.row());
    const int column = index.column();
    const bool low = g.confidence == SuspectConfidence::Low;
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case TypeColumn: return QString::fromStdString(g.type);
                case ConfidenceColumn: return to_qstring(suspect_confidence_name(g.confidence));
                case ObjectsColumn: return count_text(g.objects);
                case RetainedBytesColumn: return bytes_text(g.retained_bytes);
                case ScoreColumn: return score_text(g.score);
                case EvidenceColumn: return QString::fromStdString(suspect_kind_names(g.kinds));
                case ReasonColumn: return QString::fromStdString(g.reason);
            }
            return {};
        case FilterTermRole: return filter_term(QStringLiteral("type"), QString::fromStdString(g.type));
        case NodeIdRole:
            return g.representative == kNoNode ? QVariant() : QVariant::fromValue<quint32>(g.representative);
        case SortKeyRole:
            switch (column) {
                case TypeColumn: return QString::fromStdString(g.type);
                case ConfidenceColumn: return static_cast<int>(g.confidence);
                case ObjectsColumn: return QVariant::fromValue<qulonglong>(g.objects);
                case RetainedBytesColumn: return QVariant::fromValue<qulonglong>(g.retained_bytes);
                case ScoreColumn: return g.score;
                case EvidenceColumn: return QString::fromStdString(suspect_kind_names(g.kinds));
                case ReasonColumn: return QString::fromStdString(g.reason);
            }
            return {};
        case Qt::TextAlignmentRole:
            if (column == ObjectsColumn || column == RetainedBytesColumn || column == ScoreColumn) {
                return QVariant::fromValue(int(kNumberAlignment));
            }
            return {};
        case Qt::ForegroundRole:
            return low ? QVariant(text_colour(TextRole::Muted)) : QVariant();
        case Qt::ToolTipRole: {
            // Every reason, one per line, whatever the column.
            QString text = QStringLiteral("%1 (%2 confidence): %3 objects, %4 shallow, %5 retained")
                               .arg(QString::fromStdString(g.type), to_qstring(suspect_confidence_name(g.confidence)),
                                    count_text(g.objects), bytes_text(g.shallow_bytes), bytes_text(g.retained_bytes));
            for (const std::string& reason : g.reasons) text += QStringLiteral("\n\u2022 ") + QString::fromStdString(reason);
            if (low) {
                text += QStringLiteral("\nLow confidence: probably static state held from C (the interpreter's or an extension's), or only large");
            }
            return text;
        }
        default:
            return {};
    }
}

QVariant SuspectsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case TypeColumn: return QStringLiteral("Type");
        case ConfidenceColumn: return QStringLiteral("Confidence");
        case ObjectsColumn: return QStringLiteral("Objects");
        case RetainedBytesColumn: return QStringLiteral("Retained");
        case ScoreColumn: return QStringLiteral("Score");
        case EvidenceColumn: return QStringLiteral("Evidence");
        case ReasonColumn: return QStringLiteral("Reason");
    }
    return {};
}

}  // namespace refscope::app
