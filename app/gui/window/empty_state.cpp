#include "window/empty_state.h"

#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace refscope::app {

EmptyState::EmptyState(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("emptyState"));
    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/refscope/refscope.svg")).pixmap(96, 96));
    icon->setAlignment(Qt::AlignCenter);

    auto* title = new QLabel(tr("Open a snapshot or connect a process"), this);
    title->setObjectName(QStringLiteral("emptyStateTitle"));
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    title->setFont(big);
    title->setAlignment(Qt::AlignCenter);

    auto* hint = new QLabel(
        tr("Take a snapshot of a Python program with the refscope probe:<br>"
           "<code>python3 -m refscope run app.py --snapshot-at-exit heap.rscope</code><br>"
           "or from the program: <code>refscope.snapshot(\"heap.rscope\")</code>.<br>"
           "Open several snapshots of one process to see what grew; drop files here to open them.<br>"
           "Or connect a running program: Live ▸ Start Listening, then run it with the command the "
           "Connections panel copies, or attach to it (Live ▸ Attach to Process…)."),
        this);
    hint->setTextFormat(Qt::RichText);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setTextInteractionFlags(Qt::TextSelectableByMouse);

    open_button_ = new QPushButton(tr("&Open Snapshot…"), this);
    open_button_->setObjectName(QStringLiteral("emptyStateOpen"));
    open_button_->setDefault(true);
    connect(open_button_, &QPushButton::clicked, this, &EmptyState::openRequested);

    connect_button_ = new QPushButton(tr("&Connect a Process…"), this);
    connect_button_->setObjectName(QStringLiteral("emptyStateConnect"));
    connect(connect_button_, &QPushButton::clicked, this, &EmptyState::connectRequested);

    recent_list_ = new QListWidget(this);
    recent_list_->setObjectName(QStringLiteral("emptyStateRecent"));
    recent_list_->setMaximumWidth(560);
    recent_list_->setFrameShape(QFrame::NoFrame);
    connect(recent_list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit openRecentRequested(item->data(Qt::UserRole).toString());
    });

    auto* layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(icon);
    layout->addSpacing(12);
    layout->addWidget(title);
    layout->addSpacing(8);
    layout->addWidget(hint);
    layout->addSpacing(16);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(open_button_);
    buttons->addWidget(connect_button_);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addSpacing(16);
    layout->addWidget(recent_list_, 1, Qt::AlignHCenter);
    layout->addStretch(3);
    setRecentFiles({});
}

void EmptyState::setRecentFiles(const QStringList& files) {
    recent_list_->clear();
    for (const QString& path : files) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(tr("%1 — %2").arg(info.fileName(), info.path()), recent_list_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
        if (!info.exists()) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    recent_list_->setVisible(!files.isEmpty());
    recent_list_->setMaximumHeight(files.isEmpty() ? 0 : recent_list_->sizeHintForRow(0) * (int(files.size()) + 1));
}

}  // namespace refscope::app
