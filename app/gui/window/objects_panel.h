// The objects panel: the objects of the chosen group or filter, one row each
// (ObjectTableModel: address, type, preview, sizes, distance, refcount,
// surplus, new), sorted inside the model so a million rows stay quick.
// Choosing a row makes that object the selection.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "session/analysis_ptr.h"

class QLabel;
class QTableView;

namespace refscope::app {

class ObjectTableModel;

class ObjectsPanel : public QWidget {
    Q_OBJECT

public:
    explicit ObjectsPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // What the rows are ("app.Session", "filter: size>1KB") and the objects.
    void setObjects(const QString& caption, std::vector<uint32_t> nodes);
    void setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new);
    // Highlights the object's row if it is listed (a selection made
    // elsewhere); emits nothing.
    void showSelection(uint32_t node);

    ObjectTableModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QString caption() const;

signals:
    void objectActivated(uint32_t node);

private:
    void onCurrentRowChanged();

    AnalysisPtr analysis_;
    ObjectTableModel* model_;
    QTableView* view_;
    QLabel* caption_;
    bool showing_selection_ = false;
};

}  // namespace refscope::app
