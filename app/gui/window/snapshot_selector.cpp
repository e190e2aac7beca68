#include "window/snapshot_selector.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

#include "models/text_colours.h"
#include "session/snapshot_timeline.h"

namespace refscope::app {

namespace {

// Item data: the snapshot's position in the timeline, -1 for "none".
constexpr int kNone = -1;

int picked(const QComboBox* box, int row) { return row < 0 ? kNone : box->itemData(row).toInt(); }

void select_data(QComboBox* box, int value) {
    const int row = box->findData(value);
    box->setCurrentIndex(row < 0 ? 0 : row);
}

}  // namespace

SnapshotSelector::SnapshotSelector(SnapshotTimeline* timeline, QWidget* parent)
    : QWidget(parent), timeline_(timeline) {
    setObjectName(QStringLiteral("snapshotSelector"));
    current_box_ = new QComboBox(this);
    current_box_->setObjectName(QStringLiteral("currentSnapshot"));
    current_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    current_box_->setToolTip(tr("The snapshot shown (Ctrl+PgUp / Ctrl+PgDown: previous / next)"));
    baseline_box_ = new QComboBox(this);
    baseline_box_->setObjectName(QStringLiteral("baselineSnapshot"));
    baseline_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    baseline_box_->setToolTip(tr("Compare with an earlier snapshot of the same process: growth, new objects"));
    middle_box_ = new QComboBox(this);
    middle_box_->setObjectName(QStringLiteral("middleSnapshot"));
    middle_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    middle_box_->setToolTip(tr("Three-snapshot technique: objects allocated between the baseline and this "
                               "snapshot that are still alive in the shown one"));
    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("comparisonNote"));
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    auto* current_label = new QLabel(tr("&Snapshot:"), this);
    current_label->setBuddy(current_box_);
    auto* baseline_label = new QLabel(tr("&Baseline:"), this);
    baseline_label->setBuddy(baseline_box_);
    middle_label_ = new QLabel(tr("&Middle:"), this);
    middle_label_->setBuddy(middle_box_);
    layout->addWidget(current_label);
    layout->addWidget(current_box_);
    layout->addSpacing(12);
    layout->addWidget(baseline_label);
    layout->addWidget(baseline_box_);
    layout->addSpacing(12);
    layout->addWidget(middle_label_);
    layout->addWidget(middle_box_);
    layout->addSpacing(12);
    layout->addWidget(note_, 1);

    connect(current_box_, &QComboBox::activated, this, &SnapshotSelector::onCurrentPicked);
    connect(baseline_box_, &QComboBox::activated, this, &SnapshotSelector::onBaselinePicked);
    connect(middle_box_, &QComboBox::activated, this, &SnapshotSelector::onMiddlePicked);
    connect(timeline_, &SnapshotTimeline::snapshotsChanged, this, &SnapshotSelector::rebuild);
    connect(timeline_, &SnapshotTimeline::comparisonChanged, this, &SnapshotSelector::rebuild);
    rebuild();
}

void SnapshotSelector::setComparisonNote(const QString& text, bool is_error) {
    note_->setText(text);
    note_is_error_ = is_error;
    note_->setStyleSheet(is_error ? QStringLiteral("color: %1;").arg(text_colour_name(TextRole::Error, palette()))
                                  : QString());
}

void SnapshotSelector::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // A style sheet holds a colour, not a role: the error's shade again.
    if (event->type() == QEvent::PaletteChange) setComparisonNote(note_->text(), note_is_error_);
}

void SnapshotSelector::rebuild() {
    const QSignalBlocker block_current(current_box_);
    const QSignalBlocker block_baseline(baseline_box_);
    const QSignalBlocker block_middle(middle_box_);
    current_box_->clear();
    baseline_box_->clear();
    middle_box_->clear();

    const AnalysisPtr current = timeline_->current();
    for (int i = 0; i < timeline_->count(); ++i) {
        const AnalysisPtr a = timeline_->at(i);
        // The pid says which process a snapshot belongs to; the tooltip has
        // the whole command line and the file.
        current_box_->addItem(QStringLiteral("pid %1 — %2").arg(a->snapshot().header.pid).arg(SnapshotTimeline::snapshotLabel(*a)), i);
        current_box_->setItemData(current_box_->count() - 1,
                                  SnapshotTimeline::processLabel(a->snapshot()) + QLatin1Char('\n') +
                                      QString::fromStdString(a->path()),
                                  Qt::ToolTipRole);
    }
    select_data(current_box_, timeline_->indexOf(current));

    baseline_box_->addItem(tr("none"), kNone);
    middle_box_->addItem(tr("none"), kNone);
    for (const AnalysisPtr& a : timeline_->sameProcess(current)) {
        if (a == current) continue;
        const int index = timeline_->indexOf(a);
        baseline_box_->addItem(SnapshotTimeline::snapshotLabel(*a), index);
        if (a != timeline_->baseline()) middle_box_->addItem(SnapshotTimeline::snapshotLabel(*a), index);
    }
    select_data(baseline_box_, timeline_->indexOf(timeline_->baseline()));
    select_data(middle_box_, timeline_->indexOf(timeline_->middle()));
    baseline_box_->setEnabled(baseline_box_->count() > 1);
    middle_box_->setEnabled(timeline_->baseline() != nullptr && middle_box_->count() > 1);
    if (!timeline_->baseline()) setComparisonNote({}, false);
}

void SnapshotSelector::onCurrentPicked(int row) { timeline_->setCurrent(timeline_->at(picked(current_box_, row))); }

void SnapshotSelector::onBaselinePicked(int row) { timeline_->setBaseline(timeline_->at(picked(baseline_box_, row))); }

void SnapshotSelector::onMiddlePicked(int row) { timeline_->setMiddle(timeline_->at(picked(middle_box_, row))); }

}  // namespace refscope::app
