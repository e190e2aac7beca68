// The diff panel: what changed per type between the baseline and the current
// snapshot (DiffModel: counts, bytes, new, freed, and survivors with a middle
// snapshot). Choosing a type lists its new objects (or, with three
// snapshots, its survivors) in the objects panel.
#pragma once

#include <cstdint>
#include <vector>

#include <QWidget>

#include "session/comparison.h"

class QLabel;
class QTableView;

namespace refscope::app {

class DiffModel;

class DiffPanel : public QWidget {
    Q_OBJECT

public:
    explicit DiffPanel(QWidget* parent = nullptr);

    // Null: no baseline; `error` says why there is no comparison, if known.
    void setComparison(const ComparisonPtr& comparison, const QString& error = {});
    bool selectType(const QString& name);

    DiffModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QString caption() const;

signals:
    void typeActivated(const QString& caption, const std::vector<uint32_t>& objects);

private:
    void onCurrentRowChanged();

    ComparisonPtr comparison_;
    DiffModel* model_;
    QLabel* caption_;
    QTableView* view_;
};

}  // namespace refscope::app
