// The object inspector (issue 16, item 4): what the selected object holds.
//
// A header says what the object is — its description, type, size, retained
// size, refcount, preview, where a frame runs (function and line), and
// where it was allocated when the snapshot has tracebacks (a link that
// opens the line, as in the path panel) — and a tree lists its fields
// (InspectorModel): attributes, dict items, slots, container elements,
// frame locals, native children, C-level fields, other references, each
// with its value's description, size and retained size.
//
// Every value is a link: clicking the value, or double-clicking (Enter on)
// a row, makes it the workspace's selection, so Back returns to the object
// inspected before — exploring a heap by following fields is browsing.
//
// Built as a detail tab following the one selection, like the retainers
// and retained trees, so it costs nothing new per selection beyond one pass
// over the object's own edges; a group shows its first
// InspectorModel::kBatchSize rows and a "… N more" row loads the next ones,
// so a dict of a million items opens as fast as one of three.
#pragma once

#include <cstdint>

#include <QWidget>

#include "session/analysis_ptr.h"

class QLabel;
class QModelIndex;
class QTreeView;

namespace refscope::app {

class InspectorModel;

class InspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // Inspects `node`; kNoNode clears the panel.
    void showObject(uint32_t node);

    InspectorModel* model() const { return model_; }
    QTreeView* view() const { return view_; }
    QLabel* header() const { return header_; }
    // The header as plain text (what a person reads), "" when empty.
    QString headerText() const;

signals:
    // A value was activated: select it everywhere.
    void objectActivated(uint32_t node);
    // The allocation site's link was clicked: open that frame's line
    // (PathPanel::openFrame does, and says how it went).
    void allocationFrameActivated(uint32_t frame);

private:
    void onActivated(const QModelIndex& index);
    void renderHeader();

    InspectorModel* model_;
    QLabel* header_;
    QTreeView* view_;
};

}  // namespace refscope::app
