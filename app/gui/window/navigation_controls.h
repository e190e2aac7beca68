// Back and Forward over the workspace's selections, as a browser has them:
// the actions (Alt+Left, Alt+Right) for the menu and the toolbar, and the
// mouse's side buttons anywhere in the window.
#pragma once

#include <QObject>

class QAction;
class QMainWindow;

namespace refscope::app {

class Workspace;

class NavigationControls : public QObject {
    Q_OBJECT
public:
    NavigationControls(Workspace* workspace, QMainWindow* window);

    QAction* backAction() const { return back_; }
    QAction* forwardAction() const { return forward_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void update();

    Workspace* workspace_;
    QMainWindow* window_;
    QAction* back_;
    QAction* forward_;
};

}  // namespace refscope::app
