// The filter field above the panels: the filter language of
// docs/filter-language.md ("type:app.* size>1KB unreachable"), run when
// Enter is pressed on a worker thread (FilterJob: a preview search over ten
// million objects takes a few hundred milliseconds), with completions of field names, flags, types and modules
// as one types. A wrong query never reaches the views: its error is shown in
// place — the message, the column it points at, the field outlined and the
// cursor put there.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "models/filter_runner.h"
#include "session/analysis_ptr.h"

class QCompleter;
class QProgressBar;
class QLabel;
class QLineEdit;
class QStringListModel;

namespace refscope::app {

class FilterJob;

class FilterBar : public QWidget {
    Q_OBJECT

public:
    explicit FilterBar(QWidget* parent = nullptr);

    // Clears the text and the error.
    void setAnalysis(AnalysisPtr analysis);
    // The `new` column (comparison's), one byte per node; empty without a
    // baseline (then `new` is refused with a clear message).
    void setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new);
    // A query is running.
    bool busy() const;

    QLineEdit* lineEdit() const { return edit_; }
    QLabel* errorLabel() const { return error_; }
    QString text() const;
    // The last applied query's result (ok with null nodes: no filter).
    const FilterResult& result() const { return result_; }

public slots:
    // Runs the query in the field (Enter does this); the result arrives
    // with filterChanged, or the error is shown.
    void apply();
    void clear();
    void focusField();

signals:
    // A query was applied successfully (null nodes: every object).
    void filterChanged(const refscope::app::FilterResult& result);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    // A desktop switching between light and dark: the error colours again.
    void changeEvent(QEvent* event) override;

private:
    void showError(const FilterResult& result);
    void applyErrorColours();
    void onFinished(const FilterResult& result, const QString& text);
    void updateCompletions(const QString& text);

    AnalysisPtr analysis_;
    std::shared_ptr<const std::vector<uint8_t>> is_new_;
    FilterJob* job_;
    QProgressBar* busy_bar_;
    FilterResult result_;
    QLineEdit* edit_;
    QLabel* error_;
    QCompleter* completer_;
    QStringListModel* completions_;
};

}  // namespace refscope::app
