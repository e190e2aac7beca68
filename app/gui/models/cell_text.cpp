#include "models/cell_text.h"

#include <algorithm>

#include <QColor>

#include "models/text_colours.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/subgraph.h"

namespace refscope::app {

namespace {

// `text` of the magnitude of `value`, with "+" or "-" in front unless zero.
template <typename Format>
QString with_sign(int64_t value, Format text_of) {
    const uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    const QString text = text_of(magnitude);
    if (value > 0) return QLatin1Char('+') + text;
    if (value < 0) return QLatin1Char('-') + text;
    return text;
}

}  // namespace

QString to_qstring(std::string_view utf8) {
    return QString::fromUtf8(utf8.data(), static_cast<qsizetype>(utf8.size()));
}

QString count_text(uint64_t count) {
    return QString::fromStdString(analysis::with_thousands(count));
}

QString signed_count_text(int64_t count) { return with_sign(count, count_text); }

QString bytes_text(uint64_t bytes) {
    return QString::fromStdString(analysis::human_bytes(bytes));
}

QString signed_bytes_text(int64_t bytes) { return with_sign(bytes, bytes_text); }

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

QString distance_tooltip(const analysis::RetentionPaths& paths, uint32_t node) {
    return paths.reachable(node)
               ? QStringLiteral("%1 references from the nearest GC root").arg(count_text(paths.distance(node)))
               : QStringLiteral("No path from GC roots");
}

QString retained_text(const analysis::DominatorTree& tree, uint32_t node) {
    return tree.reachable(node) ? bytes_text(tree.retained_size(node)) : QStringLiteral("\u2013");
}

QString root_class_text(const Snapshot& s, const RootRef& root) {
    QString text = to_qstring(analysis::root_class_name(analysis::root_class_of(root.kind)));
    const std::string_view thread = analysis::root_thread_name(s, root);
    if (!thread.empty()) text += QStringLiteral(" (thread %1)").arg(to_qstring(thread));
    return text;
}

QString cycle_text(const analysis::Cycles* cycles, uint32_t node) {
    if (!cycles || cycles->cycle_of(node) == analysis::kNoCycle) return {};
    const uint32_t cycle = cycles->cycle_of(node);
    return QStringLiteral("It is in cycle #%1 (%2 objects, %3): %4")
        .arg(cycle)
        .arg(count_text(cycles->info(cycle).members), bytes_text(cycles->info(cycle).bytes),
             QString::fromStdString(cycles->explain(cycle)));
}

QString filter_term(const QString& field, const QString& value) {
    const bool plain = !value.isEmpty() && std::none_of(value.begin(), value.end(), [](QChar c) {
        return c.isSpace() || c == u'(' || c == u')' || c == u'"' || c == u'\\';
    });
    if (plain) return field + u':' + value;
    QString quoted = value;
    quoted.replace(u'\\', QStringLiteral("\\\\")).replace(u'"', QStringLiteral("\\\""));
    return field + QStringLiteral(":\"") + quoted + u'"';
}

QStringList edge_notes(const analysis::GraphIndex& index, uint32_t edge) {
    const Snapshot& s = index.snapshot();
    QStringList notes;
    if (s.edge_kind[edge] == static_cast<uint8_t>(format::EdgeKind::Weak)) notes << QStringLiteral("weak");
    if (!(s.edge_flags[edge] & format::kEdgeOwned)) notes << QStringLiteral("not owned");
    if (s.edge_flags[edge] & format::kEdgeInferred) notes << QStringLiteral("inferred");
    if (index.hidden_from_gc(edge)) notes << QStringLiteral("GC-invisible");
    return notes;
}

QString edge_tooltip(const analysis::GraphIndex& index, uint32_t edge) {
    const Snapshot& s = index.snapshot();
    return QStringLiteral("%1 %2 (%3)")
        .arg(to_qstring(analysis::edge_kind_name(s.edge_kind[edge])),
             QString::fromStdString(analysis::describe_edge(s, edge)),
             index.hidden_from_gc(edge) ? QStringLiteral("owned, not reported by tp_traverse: the garbage collector cannot see it")
             : (s.edge_flags[edge] & format::kEdgeOwned) ? QStringLiteral("owned")
                                                         : QStringLiteral("not owned"));
}

QVariant edge_foreground(const analysis::GraphIndex& index, uint32_t edge) {
    if (index.hidden_from_gc(edge)) return text_colour(TextRole::GcInvisible);
    if (!index.retains(edge)) return text_colour(TextRole::Muted);
    return {};
}

}  // namespace refscope::app
