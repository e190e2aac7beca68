#include "window/suspects_panel.h"

#include "window/column_fit.h"
#include "window/row_table_view.h"

#include <algorithm>

#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/suspects_model.h"
#include "window/object_sets.h"

namespace refscope::app {

namespace {

// Gives the reason pane under the table room for kReasonLines lines of its
// text the first time the splitter has a height (a stretch factor gave it
// about three: a typical reason, its type and a few bullets, some wrapped,
// needed scrolling); the table keeps the rest, at least half. After that the
// splitter is the user's: window resizes scale both, as splitters do.
class InitialReasonHeight : public QObject {
public:
    static constexpr int kReasonLines = 8;

    InitialReasonHeight(QSplitter* split, QLabel* reason) : QObject(split), split_(split), reason_(reason) {
        split->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched != split_ || event->type() != QEvent::Resize || split_->height() <= 0) return false;
        const int total = split_->height() - split_->handleWidth();
        const int wanted = kReasonLines * reason_->fontMetrics().lineSpacing() + 2 * reason_->margin();
        const int reason = std::min(wanted, total / 2);
        split_->setSizes({total - reason, reason});
        split_->removeEventFilter(this);
        deleteLater();
        return false;
    }

private:
    QSplitter* split_;
    QLabel* reason_;
};

}  // namespace

SuspectsPanel::SuspectsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("suspectsPanel"));
    model_ = new SuspectsModel(this);
    headline_ = new QLabel(this);
    headline_->setObjectName(QStringLiteral("suspectsHeadline"));
    headline_->setWordWrap(true);

    // The ranking's own order until a header is clicked.
    view_ = make_row_table(this, QStringLiteral("suspectsView"), model_, -1, Qt::AscendingOrder);
    new ColumnFit(view_,
                  {SuspectsModel::TypeColumn, SuspectsModel::ConfidenceColumn, SuspectsModel::ObjectsColumn,
                   SuspectsModel::RetainedBytesColumn, SuspectsModel::ScoreColumn},
                  {SuspectsModel::TypeColumn});
    view_->setColumnWidth(SuspectsModel::EvidenceColumn, 240);

    reason_ = new QLabel(this);
    reason_->setObjectName(QStringLiteral("suspectReason"));
    reason_->setWordWrap(true);
    reason_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    reason_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    reason_->setMargin(4);
    auto* reason_area = new QScrollArea(this);
    reason_area->setWidget(reason_);
    reason_area->setWidgetResizable(true);
    reason_area->setFrameShape(QFrame::NoFrame);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(view_);
    split->addWidget(reason_area);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    new InitialReasonHeight(split, reason_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addWidget(split, 1);

    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SuspectsPanel::onCurrentRowChanged);
    setFocusProxy(view_);  // Alt+1 lands in the table
}

void SuspectsPanel::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    comparison_.reset();
    model_->setSuspects(analysis_);
    reason_->clear();
    chosen_type_.clear();  // another snapshot: the Objects panel starts empty too
    updateHeadline();
}

void SuspectsPanel::setComparison(const ComparisonPtr& comparison) {
    comparison_ = comparison && comparison->current() == analysis_ ? comparison : nullptr;
    std::shared_ptr<const analysis::LeakSuspects> ranked;
    if (comparison_) ranked = {comparison_, &comparison_->suspects()};
    model_->setSuspects(analysis_, ranked);
    reason_->clear();
    updateHeadline();
    followChosen();
}

void SuspectsPanel::followChosen() {
    if (chosen_type_.empty()) return;
    const std::string& type = chosen_type_;
    int found = -1;
    for (int row = 0; row < model_->rowCount(); ++row) {
        const analysis::SuspectGroup* group = model_->groupAt(row);
        if (group->type != type) continue;
        if (found < 0 || group->confidence == chosen_confidence_) found = row;
        if (group->confidence == chosen_confidence_) break;
    }
    if (found < 0) {
        // Kept: the ranking shown while a comparison is computed may lack
        // the row the comparison's ranking has again.
        emit suspectReranked({}, {});
        return;
    }
    following_ = true;
    view_->setCurrentIndex(model_->index(found, SuspectsModel::TypeColumn));
    following_ = false;
    view_->scrollTo(view_->currentIndex());
}

const analysis::LeakSuspects* SuspectsPanel::suspects() const { return model_->suspects(); }

bool SuspectsPanel::selectRow(int row) {
    if (row < 0 || row >= model_->rowCount()) return false;
    const QModelIndex index = model_->index(row, SuspectsModel::TypeColumn);
    if (view_->currentIndex().row() == row) {
        onCurrentRowChanged();  // chosen again: show it again
    } else {
        view_->setCurrentIndex(index);
    }
    view_->scrollTo(index);
    return true;
}

QString SuspectsPanel::reasonText() const { return reason_->text(); }

void SuspectsPanel::updateHeadline() {
    const analysis::LeakSuspects* ranked = suspects();
    if (analysis_ && !analysis_->has_graph()) {
        headline_->setText(tr("Analysing… the leak suspects are ranked once the reference graph is analysed "
                              "(the status bar shows how far it is)."));
        return;
    }
    if (!analysis_ || !ranked) {
        headline_->setText(analysis_ ? tr("No leak suspects: this snapshot was analysed without them.") : QString());
        return;
    }
    const size_t high = ranked->high_confidence_count();
    const size_t low = ranked->groups().size() - high;
    QString text = high == 0 ? tr("No high-confidence leak suspects") :
                   high == 1 ? tr("<b>1</b> high-confidence leak suspect")
                             : tr("<b>%1</b> high-confidence leak suspects").arg(count_text(high));
    if (low > 0) text += tr(", %1 low-confidence (grey: probably static state held from C, or only large)").arg(count_text(low));
    text += comparison_ ? tr(" — with the growth since the baseline") : tr(" — this snapshot alone; choose a baseline to see growth");
    headline_->setText(text);
}

void SuspectsPanel::onCurrentRowChanged() {
    const QModelIndex current = view_->currentIndex();
    const analysis::SuspectGroup* row = current.isValid() ? model_->groupAt(current.row()) : nullptr;
    if (!row || !analysis_ || !suspects()) {
        reason_->clear();
        return;
    }
    QStringList lines;
    for (const std::string& reason : row->reasons) lines << QStringLiteral("• ") + to_qstring(reason).toHtmlEscaped();
    reason_->setText(QStringLiteral("<b>%1</b><br>%2").arg(to_qstring(row->type).toHtmlEscaped(), lines.join(QStringLiteral("<br>"))));
    chosen_type_ = row->type;
    chosen_confidence_ = row->confidence;
    std::vector<uint32_t> objects = objects_of_suspect(analysis_->snapshot(), *suspects(), *row);
    if (following_) {
        emit suspectReranked(to_qstring(chosen_type_), objects);
    } else {
        emit suspectActivated(to_qstring(chosen_type_), objects, row->representative);
    }
}

}  // namespace refscope::app
