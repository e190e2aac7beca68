// The right-click menu of everything that shows objects or groups of them —
// the suspects, summary, diff and objects tables, the retainers and retained
// trees, the graph's nodes: one list of actions, so an object offers the same
// things wherever it is shown (show in graph, show referrers, show what it
// retains, copy address, copy path, filter by its type or the row's group).
//
// The menu is popped up, not exec()'d: it runs no nested event loop, so a
// drawing or a model that changes meanwhile cannot pull data from under it,
// and tests drive it as a person does (right click, then choose).
#pragma once

#include <cstdint>

#include <QString>

#include "refscope/snapshot.h"

class QAbstractItemView;
class QMenu;
class QModelIndex;

namespace refscope::app {

class Workspace;

// What a right click is about.
struct MenuSubject {
    // The object (a group row: its representative, kNoNode when it has none).
    uint32_t node = kNoNode;
    // The group's filter term (FilterTermRole); empty: the object's type.
    QString filterTerm;
};

// The subject of a model row: NodeIdRole and FilterTermRole of `index`.
MenuSubject menu_subject(const QModelIndex& index);

// Adds the actions for `subject` to `menu`. Each one acts through the
// workspace's public slots, so a selection made here is a step of Back/Forward
// like any other. `in_graph`: the menu of a graph node, which already is the
// graph (no "Show in Graph").
void fill_object_menu(QMenu& menu, Workspace& workspace, const MenuSubject& subject, bool in_graph = false);

// Gives `view` the menu on right click (Qt::CustomContextMenu). The menu is
// the view's child named "objectMenu" while it is open and deletes itself on
// closing.
void attach_object_menu(QAbstractItemView* view, Workspace& workspace);

}  // namespace refscope::app
