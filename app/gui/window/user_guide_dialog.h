// Help ▸ User Guide: docs/user-guide.md, compiled into the app as a
// resource (resources/refscope.qrc lists the docs file itself, so the guide
// on GitHub and the one in the app are one text), rendered from Markdown in
// a dialog with its headings as contents and a find field. Offline: nothing
// is fetched; external links open in the desktop's browser.
#pragma once

class QDialog;
class QWidget;

namespace refscope::app {

// The resource the guide is read from.
inline constexpr const char* kUserGuideResource = ":/refscope/user-guide.md";

// Shows the guide over `window`: raises the one already open, or opens a
// non-modal dialog (deleted when closed). Returns it.
QDialog* show_user_guide(QWidget* window);

}  // namespace refscope::app
