#include "models/cell_text.h"

#include "refscope/analysis/edge_labels.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/subgraph.h"

namespace refscope::app {

QString to_qstring(std::string_view utf8) {
    return QString::fromUtf8(utf8.data(), static_cast<qsizetype>(utf8.size()));
}

QString count_text(uint64_t count) {
    return QString::fromStdString(analysis::with_thousands(count));
}

QString signed_count_text(int64_t count) {
    const uint64_t magnitude = count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
    const QString digits = count_text(magnitude);
    if (count > 0) return QLatin1Char('+') + digits;
    if (count < 0) return QLatin1Char('-') + digits;
    return digits;
}

QString bytes_text(uint64_t bytes) {
    return QString::fromStdString(analysis::human_bytes(bytes));
}

QString signed_bytes_text(int64_t bytes) {
    const uint64_t magnitude = bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
    const QString text = bytes_text(magnitude);
    if (bytes > 0) return QLatin1Char('+') + text;
    if (bytes < 0) return QLatin1Char('-') + text;
    return text;
}

QString exact_bytes_text(uint64_t bytes) {
    return count_text(bytes) + (bytes == 1 ? QStringLiteral(" byte") : QStringLiteral(" bytes"));
}

QString preview_text(const Snapshot& s, uint32_t node, size_t max_bytes) {
    if (node >= s.node_count() || s.node_preview[node] == 0) return {};
    const std::string_view preview = s.strings.view(s.node_preview[node]);
    if (analysis::type_name(s, node) == "str") {
        return QString::fromStdString(analysis::quote_text(preview, max_bytes));
    }
    // quote_text escapes control characters and invalid UTF-8 and cuts at a
    // character boundary; the quotes it adds (and the escaped quote inside)
    // only make sense for text, so they come off again here.
    std::string quoted = analysis::quote_text(preview, max_bytes);
    std::string plain;
    plain.reserve(quoted.size());
    for (size_t i = 1; i + 1 < quoted.size(); ++i) {
        if (quoted[i] == '\\' && i + 2 < quoted.size() && (quoted[i + 1] == '\'' || quoted[i + 1] == '\\')) {
            ++i;
        }
        plain += quoted[i];
    }
    return QString::fromStdString(plain);
}

QString distance_text(uint32_t distance) {
    if (distance == analysis::kUnreached) return QStringLiteral("\u221e");
    return count_text(distance);
}

}  // namespace refscope::app
