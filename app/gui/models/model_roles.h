// Item-data roles shared by every model of the app, so the window can follow
// a selection from any view to any other.
#pragma once

#include <Qt>

namespace refscope::app {

enum ModelRole : int {
    // The snapshot node id (quint32) of the object a row or item stands for;
    // invalid QVariant for rows that are not one object (groups, totals).
    NodeIdRole = Qt::UserRole + 1,
    // The raw value a column sorts by (number or string), for proxies and tests.
    SortKeyRole,
    // true on the "… N more" item of a tree whose children are shown in
    // batches; the window calls the model's showMore() on it.
    MoreRowsRole,
    // The filter-language term that selects the objects a group row stands
    // for ("type:app.Leaky", "module:app"; filter_term() writes it); invalid
    // for rows that are one object (their type is the object's) or a group
    // no term names ("(unknown type)"). The right-click menu's "Filter by".
    FilterTermRole,
};

}  // namespace refscope::app
