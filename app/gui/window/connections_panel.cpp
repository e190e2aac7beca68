#include "window/connections_panel.h"

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTime>
#include <QToolButton>
#include <QVBoxLayout>

#include "session/live_process_model.h"
#include "session/live_session.h"

namespace refscope::app {

ConnectionsPanel::ConnectionsPanel(LiveSession* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new LiveProcessModel(session, this)) {
    setObjectName(QStringLiteral("connectionsPanel"));

    address_ = new QLabel(this);
    address_->setObjectName(QStringLiteral("liveAddress"));
    address_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    address_->setWordWrap(true);
    listen_button_ = new QPushButton(this);
    listen_button_->setObjectName(QStringLiteral("liveListen"));
    connect(listen_button_, &QPushButton::clicked, this, [this] { emit listenRequested(!session_->isListening()); });
    copy_button_ = new QPushButton(tr("Copy Commands"), this);
    copy_button_->setObjectName(QStringLiteral("copyLiveCommands"));
    copy_button_->setToolTip(tr("Copy the command lines that run a program connected to this app, or attach a running one"));
    connect(copy_button_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(commandsText()); });

    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("liveProcesses"));
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setWordWrap(false);
    // Every column but the command line fits its text (State was cut off);
    // the command line takes what is left and elides.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(LiveProcessModel::CommandLine, QHeaderView::Stretch);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table_, &QWidget::customContextMenuRequested, this, &ConnectionsPanel::showProcessMenu);

    snapshot_button_ = new QPushButton(tr("Take Snapshot"), this);
    snapshot_button_->setObjectName(QStringLiteral("takeSnapshot"));
    connect(snapshot_button_, &QPushButton::clicked, this, [this] { emit takeSnapshotRequested(false); });
    collect_button_ = new QPushButton(tr("Collect + Snapshot"), this);
    collect_button_->setObjectName(QStringLiteral("collectSnapshot"));
    collect_button_->setToolTip(tr("Run gc.collect() in the process first, then take the snapshot"));
    connect(collect_button_, &QPushButton::clicked, this, [this] { emit takeSnapshotRequested(true); });
    baseline_button_ = new QPushButton(tr("Mark as Baseline"), this);
    baseline_button_->setObjectName(QStringLiteral("markBaseline"));
    baseline_button_->setToolTip(tr("Compare the process's next snapshots with its latest one"));
    connect(baseline_button_, &QPushButton::clicked, this, &ConnectionsPanel::markBaselineRequested);
    label_button_ = new QPushButton(tr("Label…"), this);
    label_button_->setObjectName(QStringLiteral("labelProcess"));
    label_button_->setToolTip(tr("Name the process; its next snapshots carry the label"));
    connect(label_button_, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString label = QInputDialog::getText(this, tr("Label"), tr("Label for the next snapshots:"),
                                                    QLineEdit::Normal, {}, &ok);
        if (ok) setLabel(label);
    });
    disconnect_button_ = new QPushButton(tr("Disconnect"), this);
    disconnect_button_->setObjectName(QStringLiteral("disconnectProcess"));
    disconnect_button_->setToolTip(tr("Close the connection to the selected processes, or to the only one "
                                      "connected (they keep running; a snapshot they are sending is discarded)"));
    connect(disconnect_button_, &QPushButton::clicked, this, [this] {
        for (const uint64_t id : disconnectTargets()) session_->disconnectProcess(id);
    });
    attach_button_ = new QPushButton(tr("Attach to Process…"), this);
    attach_button_->setObjectName(QStringLiteral("attachProcess"));
    connect(attach_button_, &QPushButton::clicked, this, &ConnectionsPanel::attachRequested);

    auto_check_ = new QCheckBox(tr("Every"), this);
    auto_check_->setObjectName(QStringLiteral("autoSnapshots"));
    auto_check_->setToolTip(tr("Take a snapshot of every connected process at this interval "
                               "(a process still sending the last one is skipped)"));
    auto_seconds_ = new QSpinBox(this);
    auto_seconds_->setObjectName(QStringLiteral("autoSeconds"));
    auto_seconds_->setRange(1, 24 * 3600);
    auto_seconds_->setValue(60);
    auto_seconds_->setSuffix(tr(" s"));
    auto_collect_ = new QCheckBox(tr("collect first"), this);
    auto_collect_->setObjectName(QStringLiteral("autoCollect"));
    connect(auto_check_, &QCheckBox::toggled, this, &ConnectionsPanel::applyAutomatic);
    connect(auto_seconds_, &QSpinBox::valueChanged, this, &ConnectionsPanel::applyAutomatic);
    connect(auto_collect_, &QCheckBox::toggled, this, &ConnectionsPanel::applyAutomatic);

    log_toggle_ = new QToolButton(this);
    log_toggle_->setObjectName(QStringLiteral("liveLogToggle"));
    log_toggle_->setCheckable(true);
    log_toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    log_toggle_->setArrowType(Qt::RightArrow);
    log_toggle_->setText(tr("Log"));
    log_toggle_->setToolTip(tr("Show the log of connections, refusals, discards and drops"));
    connect(log_toggle_, &QToolButton::toggled, this, &ConnectionsPanel::setLogShown);

    log_ = new QPlainTextEdit(this);
    log_->setObjectName(QStringLiteral("liveLog"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);  // bounded: a long session logs a lot
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto* top = new QHBoxLayout;
    top->addWidget(address_, 1);
    top->addWidget(copy_button_);
    top->addWidget(listen_button_);
    auto* commands = new QHBoxLayout;
    commands->addWidget(snapshot_button_);
    commands->addWidget(collect_button_);
    commands->addWidget(baseline_button_);
    commands->addWidget(label_button_);
    commands->addWidget(disconnect_button_);
    commands->addSpacing(12);
    commands->addWidget(auto_check_);
    commands->addWidget(auto_seconds_);
    commands->addWidget(auto_collect_);
    commands->addStretch(1);
    commands->addWidget(attach_button_);
    commands->addWidget(log_toggle_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_, 3);
    layout->addLayout(commands);
    layout->addWidget(log_, 2);
    // Compact by default: the dock shares the window with the suspects, so
    // the log (read when something went wrong) starts collapsed, and
    // warnings open it (appendLog).
    log_->hide();

    connect(session_, &LiveSession::logLine, this, &ConnectionsPanel::appendLog);
    connect(session_, &LiveSession::listeningChanged, this, &ConnectionsPanel::updateState);
    connect(session_, &LiveSession::processAdded, this, &ConnectionsPanel::updateState);
    connect(session_, &LiveSession::processChanged, this, &ConnectionsPanel::updateState);
    connect(session_, &LiveSession::processesReset, this, &ConnectionsPanel::updateState);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ConnectionsPanel::updateState);
    updateState();
}

std::vector<uint64_t> ConnectionsPanel::selectedConnections() const {
    std::vector<uint64_t> ids;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
        const uint64_t id = model_->connectionAt(row.row());
        const LiveProcess* p = session_->process(id);
        if (p && p->connected) ids.push_back(id);
    }
    return ids;
}

std::vector<uint64_t> ConnectionsPanel::disconnectTargets() const {
    std::vector<uint64_t> ids = selectedConnections();
    if (!ids.empty()) return ids;
    ids = session_->connectedIds();
    if (ids.size() > 1) ids.clear();
    return ids;
}

std::vector<uint64_t> ConnectionsPanel::targetConnections() const {
    std::vector<uint64_t> ids = selectedConnections();
    return ids.empty() ? session_->connectedIds() : ids;
}

uint64_t ConnectionsPanel::chosenConnection() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) return model_->connectionAt(rows.front().row());
    const auto& processes = session_->processes();
    for (auto p = processes.rbegin(); p != processes.rend(); ++p) {
        if (!p->latestSnapshot.isEmpty()) return p->connection;
    }
    return 0;
}

QString ConnectionsPanel::commandsText() const {
    if (!session_->isListening()) return {};
    return tr("# Run a program connected to refscope:\n%1\n# Connect a running Python process (replace PID):\n%2\n")
        .arg(session_->runCommand(), session_->attachCommand());
}

void ConnectionsPanel::setLabel(const QString& label) {
    for (const uint64_t id : targetConnections()) session_->setLabel(id, label);
}

void ConnectionsPanel::appendLog(const QString& line, bool warning) {
    const QString time = QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
    // The log follows new lines unless the person scrolled up to read.
    QScrollBar* bar = log_->verticalScrollBar();
    const bool at_end = bar->value() == bar->maximum();
    log_->appendPlainText(warning ? QStringLiteral("%1  warning: %2").arg(time, line) : QStringLiteral("%1  %2").arg(time, line));
    if (at_end) bar->setValue(bar->maximum());
    ++log_lines_;
    log_toggle_->setText(tr("Log (%1)").arg(log_lines_));
    // The first warning opens the log; a person who closes it again is not
    // interrupted by every later one (an "Every N s" session can warn often).
    if (warning && !warned_) log_toggle_->setChecked(true);
    warned_ = warned_ || warning;
}

void ConnectionsPanel::setLogShown(bool shown) {
    log_toggle_->setChecked(shown);
    log_toggle_->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    log_->setVisible(shown);
    if (shown) log_->verticalScrollBar()->setValue(log_->verticalScrollBar()->maximum());
}

QSize ConnectionsPanel::sizeHint() const {
    // Three process rows and the command rows: the dock opens below the
    // workspace without taking a third of the window (the default hint of a
    // table and a log is several hundred pixels); more processes scroll.
    const int row = table_->verticalHeader()->defaultSectionSize();
    const int table = table_->horizontalHeader()->sizeHint().height() + 3 * row + 2 * table_->frameWidth();
    // A word-wrapped label's own hint assumes a narrow label, three or four
    // lines for the address; at the width it has beside its buttons it is
    // usually one.
    const int panel_width = width() > 100 ? width() : window()->width();
    const int label_width = panel_width - copy_button_->sizeHint().width() - listen_button_->sizeHint().width() - 40;
    const int address = std::max(address_->heightForWidth(std::max(label_width, 100)),
                                 copy_button_->sizeHint().height());
    const int rest = address + snapshot_button_->sizeHint().height() + 24;
    const int log = log_->isVisible() ? 6 * fontMetrics().lineSpacing() : 0;
    return {QWidget::sizeHint().width(), table + rest + log};
}

void ConnectionsPanel::showProcessMenu(const QPoint& pos) {
    // Only on a process: on the empty part of the table the commands would
    // act on every connected process, which a right click does not mean.
    if (!table_->indexAt(pos).isValid()) return;
    // The commands of the buttons, for the process under the pointer (the
    // right press has selected its row): enabled exactly as the buttons are.
    auto* menu = new QMenu(table_);
    menu->setObjectName(QStringLiteral("processMenu"));
    menu->setAttribute(Qt::WA_DeleteOnClose);
    for (QPushButton* button : {snapshot_button_, collect_button_, baseline_button_, label_button_, disconnect_button_}) {
        QAction* action = menu->addAction(button->text());
        action->setObjectName(button->objectName());
        action->setEnabled(button->isEnabled());
        connect(action, &QAction::triggered, button, &QPushButton::click);
    }
    menu->popup(table_->viewport()->mapToGlobal(pos));
}

void ConnectionsPanel::applyAutomatic() {
    session_->setAutomaticSnapshots(auto_check_->isChecked() ? auto_seconds_->value() : 0, auto_collect_->isChecked());
}

void ConnectionsPanel::updateState() {
    const bool listening = session_->isListening();
    if (listening) {
        address_->setText(tr("Listening on <code>%1</code> · token file <code>%2</code> · snapshots saved in <code>%3</code>")
                              .arg(session_->address().toHtmlEscaped(), session_->tokenFile().toHtmlEscaped(),
                                   session_->sessionDir().toHtmlEscaped()));
    } else {
        address_->setText(tr("Not listening. Start listening to let Python programs connect."));
    }
    listen_button_->setText(listening ? tr("Stop Listening") : tr("Start Listening"));
    copy_button_->setEnabled(listening);
    const bool any = !targetConnections().empty();
    snapshot_button_->setEnabled(any);
    collect_button_->setEnabled(any);
    label_button_->setEnabled(any);
    // Like Take Snapshot, it needs no choice with one process; never "all"
    // of several by default.
    disconnect_button_->setEnabled(!disconnectTargets().empty());
    baseline_button_->setEnabled(chosenConnection() != 0);
    attach_button_->setEnabled(true);
    if (!listening && auto_check_->isChecked()) auto_check_->setChecked(false);
}

}  // namespace refscope::app
