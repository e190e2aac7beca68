#include "models/filter_runner.h"

#include <string>

#include "refscope/analysis/filter_columns.h"
#include "refscope/analysis/filter_query.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

// Where in the text the term that needs the missing column starts (1-based).
int column_of_term(const FilterQuery& query, const std::string& name) {
    for (const FilterTerm& term : query.program) {
        const bool field_term = term.kind == FilterTerm::Kind::Text || term.kind == FilterTerm::Kind::Number ||
                                term.kind == FilterTerm::Kind::Address;
        if ((field_term && filter_field_name(term.field) == name) ||
            (term.kind == FilterTerm::Kind::Flag && filter_flag_name(term.flag) == name)) {
            return static_cast<int>(term.offset) + 1;
        }
    }
    return 0;
}

FilterResult failure(QString message, int column) {
    FilterResult result;
    result.error = std::move(message);
    result.errorColumn = column;
    return result;
}

// The UTF-16 column (what a QLineEdit counts) of a 1-based byte column.
int utf16_column(const std::string& utf8, size_t byte_column) {
    if (byte_column == 0) return 0;
    const size_t bytes = std::min(byte_column - 1, utf8.size());
    return static_cast<int>(QString::fromUtf8(utf8.data(), static_cast<qsizetype>(bytes)).size()) + 1;
}

}  // namespace

FilterResult run_filter(const SnapshotAnalysis& analysis, const QString& text, std::span<const uint8_t> is_new) {
    const std::string query_text = text.toStdString();
    FilterQuery query;
    try {
        query = parse_filter(query_text);
    } catch (const FilterSyntaxError& e) {
        return failure(QString::fromStdString(e.what()), utf16_column(query_text, e.column()));
    }
    if (query.matches_everything()) {
        FilterResult everything;
        everything.ok = true;
        return everything;
    }

    const FilterColumns columns(analysis, filter_needs(query), is_new);
    try {
        FilterResult result;
        result.nodes = std::make_shared<const std::vector<uint32_t>>(select_nodes(query, columns.context()));
        result.ok = true;
        return result;
    } catch (const FilterContextError& e) {
        QString message = QString::fromStdString(e.what());
        if (e.term() == "new") message += QStringLiteral(" (choose a baseline snapshot first)");
        return failure(message, utf16_column(query_text, static_cast<size_t>(column_of_term(query, e.term()))));
    } catch (const std::exception& e) {
        return failure(QString::fromStdString(e.what()), 0);
    }
}

QStringList filter_completions(const QString& prefix, const SnapshotAnalysis& analysis, int limit) {
    const std::string text = prefix.toStdString();
    const std::vector<std::string> words =
        analysis::filter_completions(text, analysis.snapshot(), static_cast<size_t>(std::max(limit, 0)));
    // Core completes the last word; the completer wants the whole line.
    size_t start = text.size();
    while (start > 0) {
        const char c = text[start - 1];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')') break;
        --start;
    }
    const QString lead = QString::fromStdString(text.substr(0, start));
    QStringList completions;
    completions.reserve(static_cast<qsizetype>(words.size()));
    for (const std::string& word : words) completions.append(lead + QString::fromStdString(word));
    return completions;
}

}  // namespace refscope::app
