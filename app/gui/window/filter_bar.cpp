#include "window/filter_bar.h"

#include <QCompleter>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>

namespace refscope::app {

FilterBar::FilterBar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("filterBar"));
    edit_ = new QLineEdit(this);
    edit_->setObjectName(QStringLiteral("filterEdit"));
    edit_->setPlaceholderText(tr("Filter objects, e.g.  type:app.* size>1KB  unreachable  "
                                 "-tracked  new  (Enter to apply, Ctrl+F)"));
    edit_->setClearButtonEnabled(true);
    edit_->setToolTip(tr("Fields: type: module: preview: address: size retained refcount surplus "
                         "unexplained distance referrers referents\nFlags: new unreachable reachable "
                         "cycle root immortal tracked native typeobject suspect\nCombine with AND, OR, "
                         "-term / not term and parentheses (docs/filter-language.md)."));
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("filterError"));
    error_->setStyleSheet(QStringLiteral("color: #b00020;"));
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setWordWrap(true);
    error_->hide();

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

void FilterBar::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    is_new_ = {};
    edit_->blockSignals(true);
    edit_->clear();
    edit_->blockSignals(false);
    result_ = FilterResult{};
    result_.ok = true;
    showError(result_);
    setEnabled(analysis_ != nullptr);
}

void FilterBar::setNewColumn(std::span<const uint8_t> is_new) { is_new_ = is_new; }

QString FilterBar::text() const { return edit_->text(); }

void FilterBar::apply() {
    if (!analysis_) return;
    FilterResult result = run_filter(*analysis_, edit_->text(), is_new_);
    showError(result);
    if (!result.ok) return;  // the views keep the last good filter
    result_ = std::move(result);
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
    edit_->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    if (result.errorColumn > 0) edit_->setCursorPosition(result.errorColumn - 1);
}

void FilterBar::updateCompletions(const QString& text) {
    if (!analysis_) return;
    completions_->setStringList(filter_completions(text, *analysis_));
}

}  // namespace refscope::app
