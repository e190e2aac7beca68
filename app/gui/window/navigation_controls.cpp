#include "window/navigation_controls.h"

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QMainWindow>
#include <QMouseEvent>

#include "window/workspace.h"

namespace refscope::app {

NavigationControls::NavigationControls(Workspace* workspace, QMainWindow* window)
    : QObject(window), workspace_(workspace), window_(window) {
    // Spelled out (not QKeySequence::Back, which some platform themes leave
    // empty), like the window's other shortcuts.
    back_ = new QAction(QIcon::fromTheme(QStringLiteral("go-previous")), tr("&Back"), window);
    back_->setObjectName(QStringLiteral("goBack"));
    back_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    back_->setStatusTip(tr("Select the object selected before this one"));
    forward_ = new QAction(QIcon::fromTheme(QStringLiteral("go-next")), tr("&Forward"), window);
    forward_->setObjectName(QStringLiteral("goForward"));
    forward_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    forward_->setStatusTip(tr("Select the object you went back from"));
    for (QAction* action : {back_, forward_}) window->addAction(action);
    connect(back_, &QAction::triggered, workspace_, &Workspace::goBack);
    connect(forward_, &QAction::triggered, workspace_, &Workspace::goForward);
    connect(workspace_, &Workspace::historyChanged, this, &NavigationControls::update);
    // The side buttons go to whichever widget is under the pointer, and most
    // take any press: seen here first, for every widget of this window.
    qApp->installEventFilter(this);
    update();
}

bool NavigationControls::eventFilter(QObject* watched, QEvent* event) {
    // A quick second press of the same button arrives as a double click.
    if (event->type() != QEvent::MouseButtonPress && event->type() != QEvent::MouseButtonDblClick) return false;
    const auto button = static_cast<QMouseEvent*>(event)->button();
    if (button != Qt::BackButton && button != Qt::ForwardButton) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->window() != window_ || !workspace_->isVisible()) return false;
    (button == Qt::BackButton ? back_ : forward_)->trigger();
    return true;
}

void NavigationControls::update() {
    back_->setEnabled(workspace_->canGoBack());
    forward_->setEnabled(workspace_->canGoForward());
}

}  // namespace refscope::app
