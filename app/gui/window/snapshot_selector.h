// The timeline bar: which open snapshot is shown, which one it is compared
// with (the baseline, snapshot 1) and, for the three-snapshot technique, the
// middle snapshot (2) — the current one is then snapshot 3. The baseline and
// middle choices list the other snapshots of the current one's process
// (snapshots of different processes cannot be compared).
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;

namespace refscope::app {

class SnapshotTimeline;

class SnapshotSelector : public QWidget {
    Q_OBJECT

public:
    explicit SnapshotSelector(SnapshotTimeline* timeline, QWidget* parent = nullptr);

    QComboBox* currentBox() const { return current_box_; }
    QComboBox* baselineBox() const { return baseline_box_; }
    QComboBox* middleBox() const { return middle_box_; }

    // Shown after the combos: why the comparison failed, or what it is.
    void setComparisonNote(const QString& text, bool is_error);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void onCurrentPicked(int row);
    void onBaselinePicked(int row);
    void onMiddlePicked(int row);

    SnapshotTimeline* timeline_;
    QComboBox* current_box_;
    QComboBox* baseline_box_;
    QComboBox* middle_box_;
    QLabel* middle_label_;
    QLabel* note_;
    bool note_is_error_ = false;
};

}  // namespace refscope::app
