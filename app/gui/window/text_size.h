// View ▸ Larger Text / Smaller Text / Default Text Size (Ctrl+Alt++,
// Ctrl+Alt+-, Ctrl+Alt+0): the app's font size, a setting kept between
// runs. It changes the application font, so every panel, header and menu
// follows at once; table rows are measured from the font (row_table_view.cpp
// measures again on a font change), and the graph opens at a zoom where node
// text is as tall as this font (GraphView::readableZoom). Sizes are whole
// points from 6 to 32; the default is the desktop's own font.
#pragma once

#include <QObject>

class QAction;
class QWidget;

namespace refscope::app {

class TextSize : public QObject {
    Q_OBJECT

public:
    // Reads the saved size and applies it. `parent` gets the actions (so
    // their shortcuts work anywhere in it).
    explicit TextSize(QWidget* parent);

    QAction* largerAction() const { return larger_; }
    QAction* smallerAction() const { return smaller_; }
    QAction* defaultAction() const { return default_; }

    // The font size now, in points, and setting it (clamped; saved).
    int pointSize() const;
    void setPointSize(int points);
    // Back to the desktop's font; the saved setting is removed.
    void resetToDefault();

    static constexpr int kMinPoints = 6;
    static constexpr int kMaxPoints = 32;

private:
    void apply(int points);
    void updateActions();

    int desktop_points_;  // the application font's size before any setting
    QAction* larger_;
    QAction* smaller_;
    QAction* default_;
};

}  // namespace refscope::app
