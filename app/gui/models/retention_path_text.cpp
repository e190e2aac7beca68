#include "models/retention_path_text.h"

#include "models/cell_text.h"
#include "models/text_colours.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/finalizer_traps.h"

namespace refscope::app {

using namespace refscope::analysis;

namespace {

constexpr char16_t kArrow[] = u" \u2192 ";

PathHop hop_along(const GraphIndex& index, uint32_t edge, uint32_t node) {
    const Snapshot& s = index.snapshot();
    PathHop hop;
    hop.node = node;
    hop.edge = edge;
    hop.object = QString::fromStdString(describe_node(s, node));
    if (edge != kNoEdge) {
        hop.edgeLabel = QString::fromStdString(describe_edge(s, edge));
        hop.gcInvisible = index.hidden_from_gc(edge);
        hop.weak = s.edge_kind[edge] == static_cast<uint8_t>(format::EdgeKind::Weak);
    }
    return hop;
}

// root → … chain text starting with `start`.
QString chain_text(QString start, const std::vector<PathHop>& hops) {
    const QString arrow = QString::fromUtf16(kArrow);
    for (size_t i = 1; i < hops.size(); ++i) start += arrow + hops[i].edgeLabel + arrow + hops[i].object;
    return start;
}

QString node_link(const PathHop& hop) {
    return QStringLiteral("<a href=\"refscope:node/%1\">%2</a>").arg(hop.node).arg(hop.object.toHtmlEscaped());
}

QString edge_html(const PathHop& hop) {
    QString text = QStringLiteral("<code>%1</code>").arg(hop.edgeLabel.toHtmlEscaped());
    if (hop.gcInvisible) {
        text = QStringLiteral("<span style=\"color:%1\">%2 <i>(GC-invisible)</i></span>").arg(text_colour_name(TextRole::GcInvisible), text);
    } else if (hop.weak) {
        text += QStringLiteral(" <i>(weak)</i>");
    }
    return text;
}

}  // namespace

PathDescription describe_path(const SnapshotAnalysis& analysis, uint32_t node) {
    PathDescription path;
    const Snapshot& s = analysis.snapshot();
    if (node >= s.node_count()) return path;
    path.target = node;
    path.targetText = QString::fromStdString(describe_node_at(s, node));
    const RetentionPaths& paths = analysis.paths();
    if (const auto found = paths.path_to(node)) {
        path.hasPath = true;
        const RootRef& root = s.roots[found->root_record];
        path.rootLabel = QString::fromStdString(describe_root(s, root));
        path.rootClass = root_class_text(s, root);
        path.hops.push_back(hop_along(analysis.index(), kNoEdge, found->root_node));
        for (uint32_t e : found->edges) path.hops.push_back(hop_along(analysis.index(), e, s.edge_target[e]));
        if (const auto trap = finalizer_trap_on_path(analysis.index(), *found))
            path.finalizerNote = QString::fromStdString(finalizer_path_note(s, *trap));
        return path;
    }
    const NoPathExplanation why = paths.explain_unreachable(node);
    path.explanation = QString::fromStdString(why.text);
    if (const QString cycle = cycle_text(analysis.cycles(), node); !cycle.isEmpty()) {
        path.explanation += QStringLiteral(". ") + cycle;
    }
    if (why.holder != kNoNode) {
        path.hops.push_back(hop_along(analysis.index(), kNoEdge, why.holder));
        for (uint32_t e : why.holder_edges) path.hops.push_back(hop_along(analysis.index(), e, s.edge_target[e]));
    }
    return path;
}

QString path_as_text(const PathDescription& path) {
    if (path.target == kNoNode) return {};
    if (path.hasPath) {
        QString text = chain_text(path.rootLabel + QString::fromUtf16(kArrow) + path.hops.front().object, path.hops);
        if (!path.finalizerNote.isEmpty()) text += QStringLiteral("\n\n") + path.finalizerNote;
        return text;
    }
    QString text = path.targetText + QStringLiteral(": ") + path.explanation;
    if (!path.hops.empty()) {
        // A blank line between, as `refscope-cli path` prints it.
        text += QStringLiteral("\n\nheld through: ") + chain_text(path.hops.front().object, path.hops);
    }
    return text;
}

QString path_as_html(const PathDescription& path) {
    if (path.target == kNoNode) return {};
    const QString arrow = QStringLiteral(" &rarr; ");
    const auto chain = [&](QString start) {
        for (size_t i = 1; i < path.hops.size(); ++i) {
            start += arrow + edge_html(path.hops[i]) + arrow + node_link(path.hops[i]);
        }
        return start;
    };
    if (path.hasPath) {
        QString html = chain(QStringLiteral("<b>%1</b> <span style=\"color:gray\">(%2 root)</span>")
                                 .arg(path.rootLabel.toHtmlEscaped(), path.rootClass.toHtmlEscaped()) +
                             arrow + node_link(path.hops.front()));
        if (!path.finalizerNote.isEmpty())
            html += QStringLiteral("<br><b style=\"color:%1\">%2</b>").arg(text_colour_name(TextRole::GcInvisible), path.finalizerNote.toHtmlEscaped());
        return html;
    }
    PathHop target;
    target.node = path.target;
    target.object = path.targetText;
    QString html = QStringLiteral("%1: <b>%2</b>").arg(node_link(target), path.explanation.toHtmlEscaped());
    if (!path.hops.empty()) html += QStringLiteral("<br>held through: ") + chain(node_link(path.hops.front()));
    return html;
}

}  // namespace refscope::app
