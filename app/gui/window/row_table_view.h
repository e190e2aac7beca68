// The one way the app's panels make a table of rows (suspects, summary,
// objects, diff): whole-row single selection, no word wrap, and fixed row
// heights — with millions of rows the view must never measure a row; and the
// one way they make a tree of objects (retainers, retained, inspector).
#pragma once

#include <vector>

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
// whole-row selection and no expanding on double-click (a double-click
// selects the object). Its columns are fitted to its viewport (ColumnFit):
// `main_column` takes the width left, the other `text_columns` give up
// theirs for it, and long text is elided in the middle, whole in the tooltip.
QTreeView* make_object_tree(QWidget* parent, const QString& object_name, QAbstractItemModel* model,
                            int main_column, std::vector<int> text_columns);

}  // namespace refscope::app
