// The few colours the app's text carries meaning with — an error, a
// reference the garbage collector cannot see, a row that matters less — as
// the desktop's palette needs them. A fixed dark red (#b00020) reads on a
// white base and all but vanishes on a dark one, so each role has a light
// and a dark-theme shade of the same hue, chosen by the palette's base. The
// graph's colours (graph/graph_style.h) decide "dark" with the same test.
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace refscope::app {

enum class TextRole {
    Error,        // a filter's or a comparison's error
    GcInvisible,  // a reference tp_traverse does not report
    Muted,        // a low-confidence suspect, a reference that keeps nothing alive
};

// The palette's base (a view's background) is dark: a dark theme. Inline:
// the graph library asks it too, without linking the models.
inline bool is_dark_palette(const QPalette& palette) { return palette.color(QPalette::Base).lightness() < 128; }

// The colour of `role` on `palette`'s base (the application's palette when
// none is given: models have no widget to ask).
QColor text_colour(TextRole role, const QPalette& palette);
QColor text_colour(TextRole role);
// "#rrggbb", for style sheets and rich text. A widget that puts it in a
// style sheet sets it again on QEvent::PaletteChange (a style sheet holds a
// colour, not a role).
QString text_colour_name(TextRole role);
QString text_colour_name(TextRole role, const QPalette& palette);

}  // namespace refscope::app
