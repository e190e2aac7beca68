// Help ▸ Keyboard Shortcuts: every action of the window that has a shortcut,
// read from the actions themselves when the dialog opens, so the list
// cannot go stale, plus the keys that are not actions (the graph's zoom,
// the mouse's side buttons).
#pragma once

class QDialog;
class QWidget;

namespace refscope::app {

// A non-modal dialog over `window` (deleted when closed).
QDialog* make_shortcuts_dialog(QWidget* window);

}  // namespace refscope::app
