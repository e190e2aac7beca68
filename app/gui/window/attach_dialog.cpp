#include "window/attach_dialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QVersionNumber>

#include "refscope/live/process_list.h"
#include "session/attach_job.h"
#include "session/live_session.h"

namespace refscope::app {

namespace {

enum Column { PidColumn, PythonColumn, UserColumn, CommandColumn };
constexpr int kPidRole = Qt::UserRole + 1;

}  // namespace

AttachDialog::AttachDialog(LiveSession* session, QWidget* parent)
    : QDialog(parent), session_(session), job_(new AttachJob(this)) {
    setObjectName(QStringLiteral("attachDialog"));
    setWindowTitle(tr("Attach to Process"));
    resize(820, 480);

    auto* intro = new QLabel(tr("Connect a running Python program to refscope without changing its code. "
                                "gdb schedules the connection at a point where the interpreter may run Python."),
                             this);
    intro->setWordWrap(true);
    filter_ = new QLineEdit(this);
    filter_->setObjectName(QStringLiteral("attachFilter"));
    filter_->setPlaceholderText(tr("Filter by pid, user or command line"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, &AttachDialog::applyFilter);
    refresh_button_ = new QPushButton(tr("&Refresh"), this);
    refresh_button_->setObjectName(QStringLiteral("attachRefresh"));
    connect(refresh_button_, &QPushButton::clicked, this, &AttachDialog::refresh);

    list_ = new QTreeWidget(this);
    list_->setObjectName(QStringLiteral("attachProcesses"));
    list_->setRootIsDecorated(false);
    list_->setUniformRowHeights(true);
    list_->setHeaderLabels({tr("PID"), tr("Python"), tr("User"), tr("Command line")});
    list_->header()->setStretchLastSection(true);
    list_->setSortingEnabled(true);
    list_->sortByColumn(PidColumn, Qt::AscendingOrder);
    connect(list_, &QTreeWidget::itemSelectionChanged, this, &AttachDialog::updateButtons);
    connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (!job_->isRunning() && (item->flags() & Qt::ItemIsEnabled)) attachTo(item->data(PidColumn, kPidRole).toLongLong());
    });

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("attachMessage"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    busy_ = new QProgressBar(this);
    busy_->setObjectName(QStringLiteral("attachProgress"));
    busy_->setRange(0, 0);
    busy_->setMaximumWidth(160);
    busy_->hide();

    attach_button_ = new QPushButton(tr("&Attach"), this);
    attach_button_->setObjectName(QStringLiteral("attachButton"));
    attach_button_->setDefault(true);
    connect(attach_button_, &QPushButton::clicked, this, [this] {
        const QList<QTreeWidgetItem*> selected = list_->selectedItems();
        if (!selected.isEmpty()) attachTo(selected.front()->data(PidColumn, kPidRole).toLongLong());
    });
    cancel_button_ = new QPushButton(tr("Cancel Attach"), this);
    cancel_button_->setObjectName(QStringLiteral("attachCancel"));
    connect(cancel_button_, &QPushButton::clicked, job_, &AttachJob::cancel);
    close_button_ = new QPushButton(tr("Close"), this);
    connect(close_button_, &QPushButton::clicked, this, &QDialog::reject);

    connect(job_, &AttachJob::progress, message_, &QLabel::setText);
    connect(job_, &AttachJob::finished, this, [this](const AttachJob::Outcome& outcome) {
        setBusy(false);
        if (outcome.ok) {
            message_->setText(outcome.message);
            accept();
            return;
        }
        message_->setText(outcome.code == QLatin1String("cancelled")
                              ? outcome.message
                              : tr("<b>Could not attach:</b> %1").arg(outcome.message.toHtmlEscaped()));
    });

    auto* search = new QHBoxLayout;
    search->addWidget(filter_, 1);
    search->addWidget(refresh_button_);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(busy_);
    bottom->addWidget(message_, 1);
    bottom->addWidget(cancel_button_);
    bottom->addWidget(attach_button_);
    bottom->addWidget(close_button_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(search);
    layout->addWidget(list_, 1);
    layout->addLayout(bottom);

    setBusy(false);
    refresh();
}

QString AttachDialog::whyNotAttachable(bool sameUser, const QString& user, const QString& pythonVersion) {
    if (!sameUser) return tr("runs as %1: only %1 or root can attach to it").arg(user);
    // The probe supports CPython 3.9 to 3.13 (README, "Python versions").
    const QVersionNumber version = QVersionNumber::fromString(pythonVersion);
    if (!pythonVersion.isEmpty() && (version < QVersionNumber(3, 9) || version >= QVersionNumber(3, 14))) {
        return tr("Python %1: the probe supports Python 3.9 to 3.13").arg(pythonVersion);
    }
    return {};
}

void AttachDialog::refresh() {
    const QList<QTreeWidgetItem*> selected = list_->selectedItems();
    const qint64 keep = selected.isEmpty() ? 0 : selected.front()->data(PidColumn, kPidRole).toLongLong();
    list_->setSortingEnabled(false);
    list_->clear();
    for (const live::PythonProcess& p : live::list_python_processes()) {
        QStringList argv;
        for (const std::string& word : p.argv) argv << QString::fromStdString(word);
        const QString user = QString::fromStdString(p.user);
        const QString version = QString::fromStdString(p.python_version);
        auto* item = new QTreeWidgetItem(list_);
        item->setData(PidColumn, Qt::DisplayRole, qlonglong(p.pid));
        item->setData(PidColumn, kPidRole, qlonglong(p.pid));
        item->setText(PythonColumn, version.isEmpty() ? tr("?") : version);
        item->setText(UserColumn, user);
        item->setText(CommandColumn, argv.isEmpty() ? QString::fromStdString(p.executable) : argv.join(QLatin1Char(' ')));
        const QString why = whyNotAttachable(p.attachable, user, version);
        if (!why.isEmpty()) {
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
            for (int c = 0; c <= CommandColumn; ++c) item->setToolTip(c, why);
        } else {
            item->setToolTip(CommandColumn, item->text(CommandColumn));
        }
        if (p.pid == keep) item->setSelected(true);
    }
    list_->setSortingEnabled(true);
    list_->resizeColumnToContents(PidColumn);
    list_->resizeColumnToContents(PythonColumn);
    list_->resizeColumnToContents(UserColumn);
    applyFilter();
    if (!job_->isRunning() && list_->topLevelItemCount() == 0) message_->setText(tr("No Python process is running."));
}

void AttachDialog::applyFilter() {
    const QString needle = filter_->text().trimmed();
    for (int i = 0; i < list_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = list_->topLevelItem(i);
        bool match = needle.isEmpty();
        for (int c = 0; c <= CommandColumn && !match; ++c) match = item->text(c).contains(needle, Qt::CaseInsensitive);
        item->setHidden(!match);
        if (!match) item->setSelected(false);
    }
    updateButtons();
}

void AttachDialog::attachTo(qint64 pid) {
    if (job_->isRunning()) return;
    if (!session_->isListening()) {
        message_->setText(tr("<b>Could not attach:</b> the app is not listening (Live ▸ Start Listening)"));
        return;
    }
    setBusy(true);
    job_->start(pid, session_->address(), session_->tokenFile());
    updateButtons();
}

void AttachDialog::setBusy(bool busy) {
    busy_->setVisible(busy);
    cancel_button_->setVisible(busy);
    refresh_button_->setEnabled(!busy);
    list_->setEnabled(!busy);
    updateButtons();
}

void AttachDialog::updateButtons() {
    attach_button_->setEnabled(!job_->isRunning() && !list_->selectedItems().isEmpty());
}

}  // namespace refscope::app
