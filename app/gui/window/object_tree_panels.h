// The two trees about the selected object:
//   Retainers — who holds it, who holds them, ... up to the roots
//               (RetainersTreeModel), opened along its retention path;
//   Retained  — what it keeps alive: its dominator subtree
//               (RetainedTreeModel).
// Both are lazy and batched ("… N more" opens the next batch).
// Double-clicking (or Enter on) an object makes it the selection.
#pragma once

#include <cstdint>

#include <QWidget>

#include "session/analysis_ptr.h"

class QLabel;
class QModelIndex;
class QTreeView;

namespace refscope::app {

class RetainedTreeModel;
class RetainersTreeModel;

class RetainersPanel : public QWidget {
    Q_OBJECT

public:
    explicit RetainersPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // Shows who holds `node` and opens the tree along its chain to a root.
    void showObject(uint32_t node);

    RetainersTreeModel* model() const { return model_; }
    QTreeView* view() const { return view_; }

signals:
    void objectActivated(uint32_t node);

private:
    void onActivated(const QModelIndex& index);

    RetainersTreeModel* model_;
    QLabel* caption_;
    QTreeView* view_;
};

class RetainedPanel : public QWidget {
    Q_OBJECT

public:
    explicit RetainedPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    void showObject(uint32_t node);

    RetainedTreeModel* model() const { return model_; }
    QTreeView* view() const { return view_; }

signals:
    void objectActivated(uint32_t node);

private:
    void onActivated(const QModelIndex& index);

    RetainedTreeModel* model_;
    QLabel* caption_;
    QTreeView* view_;
};

}  // namespace refscope::app
