// Labelling a subgraph once its nodes are chosen: the edges between drawn
// nodes (parallel ones merged, a group's edges summed into one), the text
// lines and tooltip of each node, and the clusters nodes are framed in.
#include <algorithm>
#include <string>
#include <tuple>

#include "refscope/analysis/descriptions.h"
#include "subgraph_extraction.h"

namespace refscope::analysis::detail {
namespace {

// Characters of a root line in a node's label: a quoted preview
// (SubgraphOptions::preview_chars) and "root: frame …/", so that a frame
// root keeps its file, line, function and local once its directories go.
constexpr size_t kRootLineChars = 64;

// A raw edge between two drawn nodes, before parallel edges are merged.
struct DrawnEdge {
    uint32_t to;
    uint32_t edge;
    uint8_t style;  // on_path | gc_invisible << 1 | weak << 2 | owned << 3
};

}  // namespace

void Extraction::add_edges_between_drawn_nodes() {
    std::vector<DrawnEdge> raw;
    const size_t drawn = out_.nodes.size();
    // On long paths, a path node beyond the neighbourhood (distance
    // kUnreached) shows only its path edges: a long path's nodes all point
    // at their type, and a hub with a hundred arrows across the drawing says
    // nothing and makes the layout crawl. Short paths keep every edge.
    constexpr size_t kLongPath = 24;
    const size_t beyond = static_cast<size_t>(std::count_if(out_.nodes.begin(), out_.nodes.end(), [](const SubgraphNode& n) {
        return !n.is_group() && n.distance == kUnreached;
    }));
    const auto in_neighbourhood = [&](uint32_t sub) {
        return beyond <= kLongPath || out_.nodes[sub].distance != kUnreached;
    };
    for (uint32_t from = 0; from < drawn; ++from) {
        const SubgraphNode& n = out_.nodes[from];
        if (n.is_group()) continue;
        raw.clear();
        for (uint32_t e : index_.out_edges(n.node)) {
            const uint32_t target = index_.target(e);
            if (!selected_.test(target)) continue;
            if (!contains(path_edges_, e) && (!in_neighbourhood(from) || !in_neighbourhood(sub_index(target))))
                continue;
            const uint8_t flags = s_.edge_flags[e];
            const bool owned = (flags & format::kEdgeOwned) != 0;
            const uint8_t style = static_cast<uint8_t>(
                (contains(path_edges_, e) ? 1 : 0) |
                (index_.hidden_from_gc(e, n.node) ? 2 : 0) |
                (index_.kind(e) == EdgeKind::Weak ? 4 : 0) | (owned ? 8 : 0));
            raw.push_back({sub_index(target), e, style});
        }
        // Parallel edges with the same look become one edge listing a few
        // labels: a list holding one object 500 times is one arrow.
        std::stable_sort(raw.begin(), raw.end(), [](const DrawnEdge& a, const DrawnEdge& b) {
            return std::tie(a.to, a.style) < std::tie(b.to, b.style);
        });
        for (size_t i = 0; i < raw.size();) {
            size_t j = i;
            SubgraphEdge edge;
            edge.from = from;
            edge.to = raw[i].to;
            edge.edge = raw[i].edge;
            edge.on_path = (raw[i].style & 1) != 0;
            edge.gc_invisible = (raw[i].style & 2) != 0;
            edge.weak = (raw[i].style & 4) != 0;
            edge.owned = (raw[i].style & 8) != 0;
            constexpr size_t kLabelsShown = 3;
            for (; j < raw.size() && raw[j].to == raw[i].to && raw[j].style == raw[i].style; ++j) {
                if (j - i < kLabelsShown) {
                    if (j > i) edge.label += ", ";
                    edge.label += describe_edge(s_, raw[j].edge);
                }
            }
            edge.count = static_cast<uint32_t>(j - i);
            if (edge.count > kLabelsShown) {
                edge.label += ", \u2026 (" + with_thousands(edge.count) + " references)";
            }
            out_.edges.push_back(std::move(edge));
            i = j;
        }
    }
    // An elided stretch: one arrow in, labelled with the first hidden
    // reference, and one out, with the last.
    for (const Elision& el : elisions_) {
        for (const bool into : {true, false}) {
            SubgraphEdge edge;
            edge.from = into ? sub_index(el.before) : el.node;
            edge.to = into ? el.node : sub_index(el.after);
            edge.edge = into ? el.first_edge : el.last_edge;
            edge.label = describe_edge(s_, edge.edge);
            edge.on_path = true;
            edge.gc_invisible = index_.hidden_from_gc(edge.edge);
            edge.weak = index_.kind(edge.edge) == EdgeKind::Weak;
            edge.owned = (s_.edge_flags[edge.edge] & format::kEdgeOwned) != 0;
            if (edge.from != kNoNode && edge.to != kNoNode) out_.edges.push_back(std::move(edge));
        }
    }
    for (const GroupEdges& ge : group_edges_) {
        const SubgraphNode& group = out_.nodes[ge.group];
        SubgraphEdge edge;
        edge.from = group.group_are_referrers ? ge.group : group.group_anchor;
        edge.to = group.group_are_referrers ? group.group_anchor : ge.group;
        edge.edge = ge.first_edge;
        edge.count = ge.count;
        edge.label = with_thousands(ge.count) + " \u00d7 " +
                     (ge.mixed_kinds ? std::string("mixed") : std::string(edge_kind_name(ge.kind)));
        edge.gc_invisible = ge.gc_invisible;
        edge.weak = ge.count > 0 && ge.all_weak;
        edge.owned = ge.any_owned;
        out_.edges.push_back(std::move(edge));
    }
}

void Extraction::describe_nodes() {
    std::vector<uint32_t> suspects(options_.suspects.begin(), options_.suspects.end());
    sort_unique(suspects);
    for (SubgraphNode& n : out_.nodes) {
        if (n.is_elision()) {
            n.lines = {"\u2026 " + with_thousands(n.elided_objects) + " objects \u2026",
                       with_thousands(n.elided_objects + 1) + " references along the path"};
            n.tooltip = "the retention path goes on through " + with_thousands(n.elided_objects) +
                        " more objects, not drawn (a path of more than half the node cap keeps its ends)";
            continue;
        }
        if (n.is_group()) {
            const bool mixed = n.group_type == kNoType;
            const std::string type =
                mixed ? std::string() : std::string(s_.strings.view(s_.types[n.group_type].name));
            const SubgraphNode& anchor = out_.nodes[n.group_anchor];
            n.lines = {mixed ? with_thousands(n.group_count) + " more"
                             : with_thousands(n.group_count) + " \u00d7 " + type,
                       human_bytes(n.group_bytes) + " total"};
            n.tooltip = with_thousands(n.group_count) + (mixed ? " more" : " " + type) +
                        " objects " +
                        (n.group_are_referrers ? "referring to " : "referred to by ") +
                        describe_node(s_, anchor.node) + " (" + human_bytes(n.group_bytes) +
                        " shallow)";
            continue;
        }
        const uint32_t node = n.node;
        n.is_root = roots_.is_root(node);
        n.is_target = contains(targets_, node);
        n.on_path = contains(path_nodes_, node);
        n.is_holder = contains(holders_, node);
        const int64_t unexplained = roots_.unexplained(node);
        n.is_suspect = unexplained > 0 || contains(suspects, node);

        n.lines.emplace_back(type_name(s_, node));
        const std::string_view preview = s_.strings.view(s_.node_preview[node]);
        if (!preview.empty()) {
            std::string shown = quote_text(preview, options_.preview_chars);
            const bool text_like = n.lines[0] == "str" || n.lines[0] == "bytes";
            // Names and numbers read better without quotes ("app.f", "42").
            if (!text_like && shown.size() >= 2) shown = shown.substr(1, shown.size() - 2);
            n.lines.push_back(std::move(shown));
        }
        n.lines.push_back(format_address(s_.node_address[node]));
        std::string size = human_bytes(s_.node_size[node]);
        if ((s_.node_flags[node] & (format::kNodeImmortal | format::kNodeNative)) == 0) {
            size += " \u00b7 refcount " + std::to_string(s_.node_refcount[node]);
        }
        n.lines.push_back(std::move(size));
        n.tooltip = describe_node(s_, node);
        if (const auto records = roots_.roots_of(node); !records.empty()) {
            std::string root = "root: " + describe_root(s_, s_.roots[records.front()]);
            if (records.size() > 1) root += " (+" + std::to_string(records.size() - 1) + " more)";
            // A frame root names its whole file path, which would make the
            // box as wide as the path (one such root fills the view at fit
            // zoom). The label drops the path's directories first (the file,
            // line, function and local say where), then the middle; the
            // tooltip has the whole line.
            std::string shown = root;
            const size_t frame = shown.find("frame ");
            if (frame != std::string::npos && elide_middle(shown, kRootLineChars) != shown) {
                // "frame DIRS/FILE:LINE in …": only a frame's own path.
                const size_t path = frame + 6;
                const size_t colon = shown.find(':', path);
                const size_t last_slash = colon == std::string::npos ? colon : shown.rfind('/', colon);
                if (last_slash != std::string::npos && last_slash > path)
                    shown = shown.substr(0, path) + "\u2026" + shown.substr(last_slash);
            }
            shown = elide_middle(shown, kRootLineChars);
            if (shown != root) n.tooltip += "\n" + root;
            n.lines.push_back(std::move(shown));
        }
        if (unexplained > 0) {
            n.lines.push_back(with_thousands(static_cast<uint64_t>(unexplained)) +
                              (unexplained == 1 ? " reference" : " references") +
                              " the GC cannot see");
        }
    }
}

void Extraction::make_clusters() {
    if (options_.cluster_by == ClusterBy::None) return;
    std::vector<std::pair<std::string, uint32_t>> keyed;  // (cluster label, subgraph index)
    for (uint32_t i = 0; i < out_.nodes.size(); ++i) {
        const SubgraphNode& n = out_.nodes[i];
        switch (options_.cluster_by) {
            case ClusterBy::Module: {
                const std::string_view module =
                    !n.is_group()               ? module_name(s_, n.node)
                    : n.group_type != kNoType ? s_.strings.view(s_.types[n.group_type].module)
                                              : std::string_view();
                // Builtin dicts, lists and strs serve every module: a
                // "builtins" frame would only pull unrelated boxes together.
                if (!module.empty() && module != "builtins") {
                    keyed.push_back({"module " + std::string(module), i});
                }
                break;
            }
            case ClusterBy::Type:
                if (!n.is_group()) {
                    keyed.push_back({"type " + std::string(type_name(s_, n.node)), i});
                } else if (n.group_type != kNoType) {
                    keyed.push_back(
                        {"type " + std::string(s_.strings.view(s_.types[n.group_type].name)), i});
                }
                break;
            case ClusterBy::Cycle:
                // Group members may belong to different components: not clustered.
                if (!n.is_group() && n.node < options_.component.size() &&
                    options_.component[n.node] != kNoCluster) {
                    keyed.push_back({"cycle #" + std::to_string(options_.component[n.node]), i});
                }
                break;
            case ClusterBy::None: break;
        }
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keyed.size();) {
        size_t j = i;
        while (j < keyed.size() && keyed[j].first == keyed[i].first) ++j;
        // A cluster of one is only a frame around a box: skip it.
        if (j - i >= 2) {
            const auto cluster = static_cast<uint32_t>(out_.clusters.size());
            out_.clusters.push_back({keyed[i].first, static_cast<uint32_t>(j - i)});
            for (size_t k = i; k < j; ++k) out_.nodes[keyed[k].second].cluster = cluster;
        }
        i = j;
    }
}

}  // namespace refscope::analysis::detail
