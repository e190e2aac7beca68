#include "models/text_colours.h"

#include <QGuiApplication>

namespace refscope::app {

QColor text_colour(TextRole role, const QPalette& palette) {
    const bool dark = is_dark_palette(palette);
    switch (role) {
        case TextRole::Error: return dark ? QColor(0xff, 0x80, 0x8b) : QColor(0xb0, 0x00, 0x20);
        case TextRole::GcInvisible: return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xaa, 0x1e, 0x1e);
        case TextRole::Muted: {
            // Half way between the text and the base: quieter than the
            // text in any theme, still well apart from the background.
            const QColor text = palette.color(QPalette::Text);
            const QColor base = palette.color(QPalette::Base);
            return QColor((text.red() * 3 + base.red() * 2) / 5, (text.green() * 3 + base.green() * 2) / 5,
                          (text.blue() * 3 + base.blue() * 2) / 5);
        }
    }
    return palette.color(QPalette::Text);
}

QColor text_colour(TextRole role) { return text_colour(role, QGuiApplication::palette()); }

QString text_colour_name(TextRole role) { return text_colour(role).name(); }

QString text_colour_name(TextRole role, const QPalette& palette) { return text_colour(role, palette).name(); }

}  // namespace refscope::app
