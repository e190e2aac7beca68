// The one way the app's panels make a table of rows (suspects, summary,
// objects, diff): whole-row single selection, no word wrap, and fixed row
// heights — with millions of rows the view must never measure a row; and the
// one way they make a tree of objects (retainers, retained, inspector).
#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QTreeView;
class QWidget;

namespace refscope::app {

// A table over `model`, sortable, starting with `sort_column` in `order`
// (-1: the model's own order until a header is clicked).
QTableView* make_row_table(QWidget* parent, const QString& object_name, QAbstractItemModel* model,
                           int sort_column, Qt::SortOrder order);

// A tree over `model` with uniform row heights (cheap layout for long lists),
// whole-row selection, no expanding on double-click (a double-click selects
// the object) and `stretch_column` taking the width left.
QTreeView* make_object_tree(QWidget* parent, const QString& object_name, QAbstractItemModel* model,
                            int stretch_column);

}  // namespace refscope::app
