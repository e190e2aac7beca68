#include "window/text_size.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QWidget>

namespace refscope::app {

namespace {
const QString kSettingKey = QStringLiteral("appearance/textPointSize");
}  // namespace

TextSize::TextSize(QWidget* parent) : QObject(parent) {
    // A desktop font given in pixels has no point size (-1): count from the
    // pixels at 96 dpi, which is what Qt itself assumes there.
    const QFont font = QApplication::font();
    desktop_points_ = font.pointSize() > 0 ? font.pointSize() : std::max(kMinPoints, font.pixelSize() * 72 / 96);

    // Ctrl+Alt: Ctrl++/Ctrl+- already zoom the graph (two actions on one
    // key fire neither), and the text size is a rarer, window-wide choice.
    larger_ = new QAction(tr("&Larger Text"), parent);
    larger_->setObjectName(QStringLiteral("largerText"));
    // "=" too: on most layouts "+" needs Shift, and people press Ctrl+Alt+=.
    larger_->setShortcuts({QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Equal)});
    smaller_ = new QAction(tr("&Smaller Text"), parent);
    smaller_->setObjectName(QStringLiteral("smallerText"));
    smaller_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Minus));
    default_ = new QAction(tr("&Default Text Size"), parent);
    default_->setObjectName(QStringLiteral("defaultText"));
    default_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_0));
    for (QAction* action : {larger_, smaller_, default_}) parent->addAction(action);
    connect(larger_, &QAction::triggered, this, [this] { setPointSize(pointSize() + 1); });
    connect(smaller_, &QAction::triggered, this, [this] { setPointSize(pointSize() - 1); });
    connect(default_, &QAction::triggered, this, &TextSize::resetToDefault);

    const int saved = QSettings().value(kSettingKey, 0).toInt();
    if (saved > 0) {
        apply(std::clamp(saved, kMinPoints, kMaxPoints));
    } else {
        updateActions();
    }
}

int TextSize::pointSize() const {
    const QFont font = QApplication::font();
    return font.pointSize() > 0 ? font.pointSize() : desktop_points_;
}

void TextSize::setPointSize(int points) {
    points = std::clamp(points, kMinPoints, kMaxPoints);
    QSettings().setValue(kSettingKey, points);
    apply(points);
}

void TextSize::resetToDefault() {
    QSettings().remove(kSettingKey);
    apply(desktop_points_);
}

void TextSize::apply(int points) {
    QFont font = QApplication::font();
    font.setPointSize(points);
    QApplication::setFont(font);
    updateActions();
}

void TextSize::updateActions() {
    const int points = pointSize();
    larger_->setEnabled(points < kMaxPoints);
    smaller_->setEnabled(points > kMinPoints);
    default_->setEnabled(points != desktop_points_);
}

}  // namespace refscope::app
