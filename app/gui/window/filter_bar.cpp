#include "window/filter_bar.h"

#include <QAction>
#include <QCompleter>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>

#include "models/filter_job.h"
#include "models/text_colours.h"

namespace refscope::app {

FilterBar::FilterBar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("filterBar"));
    edit_ = new QLineEdit(this);
    edit_->setObjectName(QStringLiteral("filterEdit"));
    edit_->setPlaceholderText(tr("Filter objects, e.g.  type:app.* size>1KB  unreachable  "
                                 "-tracked  new  (Enter to apply, Ctrl+F)"));
    edit_->setClearButtonEnabled(true);
    edit_->installEventFilter(this);
    edit_->setToolTip(tr("Fields: type: module: preview: address: size retained refcount surplus "
                         "unexplained distance referrers referents\nFlags: new unreachable reachable "
                         "cycle root immortal tracked native typeobject suspect\nCombine with AND, OR, "
                         "-term / not term and parentheses (docs/filter-language.md)."));
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("filterError"));
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setWordWrap(true);
    error_->hide();
    applyErrorColours();

    job_ = new FilterJob(this);
    connect(job_, &FilterJob::finished, this, &FilterBar::onFinished);
    busy_bar_ = new QProgressBar(this);
    busy_bar_->setRange(0, 0);  // busy indicator
    busy_bar_->setMaximumWidth(80);
    busy_bar_->setMaximumHeight(edit_->sizeHint().height() / 2);
    busy_bar_->setTextVisible(false);
    busy_bar_->hide();

    completions_ = new QStringListModel(this);
    completer_ = new QCompleter(completions_, this);
    completer_->setCaseSensitivity(Qt::CaseInsensitive);
    completer_->setCompletionMode(QCompleter::PopupCompletion);
    completer_->setMaxVisibleItems(12);
    edit_->setCompleter(completer_);

    auto* label = new QLabel(tr("F&ilter:"), this);
    label->setBuddy(edit_);
    auto* row = new QHBoxLayout;
    row->addWidget(label);
    row->addWidget(edit_, 1);
    row->addWidget(busy_bar_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 2);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addWidget(error_);

    connect(edit_, &QLineEdit::returnPressed, this, &FilterBar::apply);
    connect(edit_, &QLineEdit::textEdited, this, &FilterBar::updateCompletions);
    // Clearing the field (its clear button) removes the filter at once.
    connect(edit_, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (!text.isEmpty()) return;
        if (result_.nodes) {
            apply();
        } else {
            showError(result_);
        }
    });
    result_.ok = true;
}

namespace {

// The line edit's own editing keys, which keep their meaning in the field
// even where a window action has the same shortcut (Ctrl+C copies the
// field's text there, not the path).
bool is_editing_key(const QKeyEvent& key) {
    for (const auto standard : {QKeySequence::Copy, QKeySequence::Cut, QKeySequence::Paste, QKeySequence::Undo,
                                QKeySequence::Redo, QKeySequence::SelectAll, QKeySequence::DeleteStartOfWord,
                                QKeySequence::DeleteEndOfWord}) {
        if (key.matches(standard)) return true;
    }
    return false;
}

}  // namespace

// QLineEdit claims Ctrl+<letter> combinations for Emacs-style editing on
// Linux (Ctrl+E: end of line) before the window's shortcuts see them, so
// Ctrl+E (export) did nothing while the filter had the focus. A Ctrl
// combination that is a window action's shortcut goes to the action, unless
// it is one of the field's editing keys.
bool FilterBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == edit_ && event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->modifiers() & Qt::ControlModifier) && !is_editing_key(*key)) {
            const QKeySequence pressed(key->keyCombination());
            for (const QAction* action : window()->findChildren<QAction*>()) {
                if (action->isEnabled() && action->shortcuts().contains(pressed)) {
                    event->ignore();
                    return true;
                }
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FilterBar::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    is_new_.reset();
    job_->cancel();
    busy_bar_->hide();
    edit_->blockSignals(true);
    edit_->clear();
    edit_->blockSignals(false);
    result_ = FilterResult{};
    result_.ok = true;
    showError(result_);
    setEnabled(analysis_ != nullptr);
}

void FilterBar::setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new) { is_new_ = std::move(is_new); }

bool FilterBar::busy() const { return job_->busy(); }

QString FilterBar::text() const { return edit_->text(); }

void FilterBar::apply() {
    if (!analysis_) return;
    job_->start(analysis_, edit_->text(), is_new_);
    busy_bar_->show();
}

void FilterBar::onFinished(const FilterResult& result, const QString& text) {
    Q_UNUSED(text);
    busy_bar_->setVisible(job_->busy());
    showError(result);
    if (!result.ok) return;  // the views keep the last good filter
    result_ = result;
    emit filterChanged(result_);
}

void FilterBar::clear() {
    edit_->clear();
}

void FilterBar::focusField() {
    edit_->setFocus(Qt::ShortcutFocusReason);
    edit_->selectAll();
}

void FilterBar::showError(const FilterResult& result) {
    if (result.ok) {
        error_->hide();
        error_->clear();
        edit_->setStyleSheet(QString());
        return;
    }
    // "unknown field 'sise' at column 7: did you mean 'size'?" under the
    // field (the message names the column), and the cursor put there.
    QString text = result.error;
    if (result.errorColumn > 0 && !text.contains(QLatin1String("column"))) {
        text += tr(" (at column %1)").arg(result.errorColumn);
    }
    error_->setText(text);
    error_->show();
    applyErrorColours();
    if (result.errorColumn > 0) edit_->setCursorPosition(result.errorColumn - 1);
}

void FilterBar::updateCompletions(const QString& text) {
    if (!analysis_) return;
    completions_->setStringList(filter_completions(text, *analysis_));
}

void FilterBar::applyErrorColours() {
    // Style sheets hold a colour, not a palette role: set again when the
    // palette changes (text_colours.h picks the shade for its base).
    const QString colour = text_colour_name(TextRole::Error, palette());
    error_->setStyleSheet(QStringLiteral("color: %1;").arg(colour));
    edit_->setStyleSheet(error_->isVisibleTo(this) ? QStringLiteral("QLineEdit { border: 1px solid %1; }").arg(colour)
                                                   : QString());
}

void FilterBar::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyErrorColours();
}

}  // namespace refscope::app
