#include "refscope/analysis/subgraph.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "refscope/analysis/edge_labels.h"

namespace refscope::analysis {
namespace {

// SubgraphEdge::gc_invisible for one snapshot edge (see subgraph.h).
bool hidden_from_gc(const Snapshot& s, uint32_t edge) {
    const uint8_t flags = s.edge_flags[edge];
    return (flags & format::kEdgeOwned) != 0 && (flags & format::kEdgeGcVisible) == 0 &&
           (s.node_flags[s.edge_target[edge]] & format::kNodeGcTracked) != 0;
}

using format::EdgeKind;

// One bit per snapshot node: 1.25 MB for 10M nodes, so an extraction never
// allocates per-node structures proportional to the heap beyond these.
class NodeBits {
public:
    explicit NodeBits(size_t count) : words_((count + 63) / 64, 0) {}
    bool test(uint32_t n) const { return (words_[n >> 6] >> (n & 63)) & 1u; }
    // True if the bit was clear.
    bool set(uint32_t n) {
        uint64_t& word = words_[n >> 6];
        const uint64_t bit = uint64_t{1} << (n & 63);
        const bool was_clear = (word & bit) == 0;
        word |= bit;
        return was_clear;
    }
    void clear(uint32_t n) { words_[n >> 6] &= ~(uint64_t{1} << (n & 63)); }

private:
    std::vector<uint64_t> words_;
};

bool contains(const std::vector<uint32_t>& sorted, uint32_t value) {
    return std::binary_search(sorted.begin(), sorted.end(), value);
}

void sort_unique(std::vector<uint32_t>& values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
}

// A candidate alternative path: leave the shortest path at path node
// `position` through retaining in-edge `edge` (whose source has its own
// shortest path), then follow the shortest path's suffix to the target.
struct Deviation {
    uint32_t length;
    uint32_t position;
    uint32_t edge;
};

// A raw edge between two drawn nodes, before parallel edges are merged.
struct DrawnEdge {
    uint32_t to;
    uint32_t edge;
    uint8_t style;  // on_path | gc_invisible << 1 | weak << 2 | owned << 3
};

// Running totals of the edges between an anchor and one group node.
struct GroupEdges {
    uint32_t group = 0;
    uint32_t first_edge = kNoEdge;
    uint32_t count = 0;
    uint8_t kind = 0;
    bool mixed_kinds = false;
    bool gc_invisible = false;
    bool all_weak = true;
    bool any_owned = false;
};

class Extraction {
public:
    Extraction(const GraphIndex& index, const RootClasses& roots, const RetentionPaths& paths,
               const SubgraphOptions& options)
        : index_(index), s_(index.snapshot()), roots_(roots), paths_(paths), options_(options),
          selected_(index.node_count()), taken_(index.node_count()),
          seen_here_(index.node_count()), overflow_(index.node_count()),
          bfs_seen_(index.node_count()),
          type_count_(s_.types.size() + 1, 0), type_bytes_(s_.types.size() + 1, 0),
          type_group_(s_.types.size() + 1, kNoNode) {}

    Subgraph run(std::span<const uint32_t> targets);

private:
    uint32_t select(uint32_t node);
    void add_path_edges(uint32_t first, const std::vector<uint32_t>& edges);
    void add_retention_paths(uint32_t target);
    void add_alternative_paths(const RetentionPath& shortest);
    void add_neighbourhood();
    void expand(uint32_t node, uint32_t distance, bool referrers);
    void add_edges_between_drawn_nodes();
    void describe_nodes();
    void make_clusters();
    uint32_t type_slot(uint32_t node) const {
        const uint32_t t = s_.node_type[node];
        return t < s_.types.size() ? t : static_cast<uint32_t>(s_.types.size());
    }
    uint32_t sub_index(uint32_t node) const {
        const auto it = std::lower_bound(lookup_.begin(), lookup_.end(),
                                         std::pair<uint32_t, uint32_t>{node, 0});
        return it != lookup_.end() && it->first == node ? it->second : kNoNode;
    }
    bool room() const { return out_.nodes.size() < options_.max_nodes; }

    const GraphIndex& index_;
    const Snapshot& s_;
    const RootClasses& roots_;
    const RetentionPaths& paths_;
    const SubgraphOptions& options_;
    Subgraph out_;

    NodeBits selected_;   // drawn as its own node
    NodeBits taken_;      // drawn, or a member of a group node
    NodeBits seen_here_;  // neighbours of the node being expanded (cleared after)
    NodeBits overflow_;   // of those, the ones in the busy node's mixed group
    NodeBits bfs_seen_;
    std::vector<std::pair<uint32_t, uint32_t>> bfs_queue_;  // (node, distance)

    std::vector<uint32_t> targets_;       // sorted
    std::vector<uint32_t> path_nodes_;    // sorted at the end
    std::vector<uint32_t> path_edges_;    // sorted at the end
    std::vector<uint32_t> holders_;       // sorted at the end
    std::vector<std::pair<uint32_t, uint32_t>> lookup_;  // (snapshot node, subgraph index)
    std::vector<GroupEdges> group_edges_;

    // Per-type scratch for one expansion, indexed by type id (+1 slot for bad ids).
    std::vector<uint32_t> type_count_;
    std::vector<uint64_t> type_bytes_;
    std::vector<uint32_t> type_group_;
    std::vector<uint32_t> touched_types_;
    std::vector<uint32_t> candidates_;
};

uint32_t Extraction::select(uint32_t node) {
    taken_.set(node);
    if (!selected_.set(node)) return kNoNode;
    SubgraphNode n;
    n.node = node;
    out_.nodes.push_back(std::move(n));
    return static_cast<uint32_t>(out_.nodes.size() - 1);
}

void Extraction::add_path_edges(uint32_t first, const std::vector<uint32_t>& edges) {
    select(first);
    path_nodes_.push_back(first);
    for (uint32_t e : edges) {
        const uint32_t target = index_.target(e);
        select(target);
        path_nodes_.push_back(target);
        path_edges_.push_back(e);
    }
}

void Extraction::add_retention_paths(uint32_t target) {
    if (const auto shortest = paths_.path_to(target)) {
        add_path_edges(shortest->root_node, shortest->edges);
        ++out_.path_count;
        if (options_.max_paths > 1) add_alternative_paths(*shortest);
        return;
    }
    // No path: the explanation names the nearest holder with unexplained
    // surplus, the likely C/C++ owner or leak; draw the chain from it.
    NoPathExplanation why = paths_.explain_unreachable(target, 200'000);
    out_.notes.push_back(describe_node(s_, target) + ": " + why.text);
    if (why.reason == NoPathExplanation::Reason::UnexplainedSurplus) {
        holders_.push_back(target);
    } else if (why.holder != kNoNode) {
        holders_.push_back(why.holder);
        add_path_edges(why.holder, why.holder_edges);
    }
}

void Extraction::add_alternative_paths(const RetentionPath& shortest) {
    std::vector<uint32_t> nodes{shortest.root_node};
    for (uint32_t e : shortest.edges) nodes.push_back(index_.target(e));
    const auto length = static_cast<uint32_t>(shortest.edges.size());

    // Every retaining in-edge of a path node from a reachable source is a
    // detour; its total length is known without building it. Bounded so that
    // a path through an object with millions of referrers stays fast.
    constexpr size_t kMaxScanned = 1'000'000;
    std::vector<Deviation> deviations;
    size_t scanned = 0;
    for (uint32_t i = 0; i <= length && scanned < kMaxScanned; ++i) {
        const uint32_t path_in = i == 0 ? kNoEdge : shortest.edges[i - 1];
        for (uint32_t e : index_.in_edges(nodes[i])) {
            if (++scanned > kMaxScanned) break;
            if (e == path_in || !index_.retains(e)) continue;
            const uint32_t source = index_.source(e);
            if (!paths_.reachable(source)) continue;
            deviations.push_back({paths_.distance(source) + 1 + (length - i), i, e});
        }
    }
    std::sort(deviations.begin(), deviations.end(), [](const Deviation& a, const Deviation& b) {
        return std::tie(a.length, a.position, a.edge) < std::tie(b.length, b.position, b.edge);
    });

    uint32_t accepted = 1;
    std::vector<uint32_t> used;
    for (const Deviation& d : deviations) {
        if (accepted >= options_.max_paths) break;
        const auto prefix = paths_.path_to(index_.source(d.edge));
        if (!prefix) continue;
        std::vector<uint32_t> edges = prefix->edges;
        edges.push_back(d.edge);
        edges.insert(edges.end(), shortest.edges.begin() + d.position, shortest.edges.end());
        // Only simple paths: the detour must not come back through the suffix.
        used.assign({prefix->root_node});
        for (uint32_t e : edges) used.push_back(index_.target(e));
        const size_t before = used.size();
        sort_unique(used);
        if (used.size() != before) continue;
        add_path_edges(prefix->root_node, edges);
        ++accepted;
        ++out_.path_count;
    }
}

void Extraction::add_neighbourhood() {
    for (uint32_t t : targets_) {
        if (bfs_seen_.set(t)) bfs_queue_.push_back({t, 0});
    }
    // Nodes enter the queue in distance order, so the cap keeps the nearest.
    for (size_t head = 0; head < bfs_queue_.size(); ++head) {
        const auto [node, distance] = bfs_queue_[head];
        if (const uint32_t i = sub_index(node); i != kNoNode) {
            out_.nodes[i].distance = std::min(out_.nodes[i].distance, distance);
        }
        if (distance >= options_.hops) continue;
        if (options_.referents) expand(node, distance, false);
        if (options_.referrers) expand(node, distance, true);
    }
}

// Looks at one direction of `node`'s neighbours: same-type crowds become a
// group node, then up to max_fanout are drawn one by one while the cap
// allows, and what is left of a busy node becomes one mixed group.
void Extraction::expand(uint32_t node, uint32_t distance, bool referrers) {
    const auto for_each_edge = [&](auto&& visit) {
        if (referrers) {
            for (uint32_t e : index_.in_edges(node)) visit(e, index_.source(e));
        } else {
            for (uint32_t e : index_.out_edges(node)) visit(e, index_.target(e));
        }
    };

    candidates_.clear();
    touched_types_.clear();
    for_each_edge([&](uint32_t, uint32_t other) {
        if (other == node) return;
        if (taken_.test(other)) {
            // Already drawn (a path node, say): the BFS still walks through it.
            if (selected_.test(other) && bfs_seen_.set(other)) {
                bfs_queue_.push_back({other, distance + 1});
            }
            return;
        }
        if (!seen_here_.set(other)) return;
        candidates_.push_back(other);
        const uint32_t t = type_slot(other);
        if (type_count_[t]++ == 0) touched_types_.push_back(t);
        type_bytes_[t] += s_.node_size[other];
    });

    const uint32_t anchor = sub_index(node);
    const auto new_group = [&](uint32_t count, uint64_t bytes, uint32_t type) {
        SubgraphNode group;
        group.group_count = count;
        group.group_bytes = bytes;
        group.group_type = type;
        group.group_anchor = anchor;
        group.group_are_referrers = referrers;
        group.distance = distance + 1;
        out_.nodes.push_back(std::move(group));
        group_edges_.push_back({});
        group_edges_.back().group = static_cast<uint32_t>(out_.nodes.size() - 1);
        return group_edges_.back().group;
    };
    bool made_group = false;
    uint32_t individual = static_cast<uint32_t>(candidates_.size());
    for (uint32_t t : touched_types_) {
        if (type_count_[t] < options_.collapse_threshold || !room() || anchor == kNoNode) continue;
        type_group_[t] = new_group(type_count_[t], type_bytes_[t],
                                   t < s_.types.size() ? t : kNoType);
        individual -= type_count_[t];
        made_group = true;
    }
    // The overflow of a busy node: everything past the first max_fanout − 1
    // individual neighbours (the group takes the last slot).
    uint32_t overflow_group = kNoNode;
    if (options_.max_fanout > 0 && individual > options_.max_fanout && room() &&
        anchor != kNoNode) {
        uint32_t kept = 0;
        uint32_t count = 0;
        uint64_t bytes = 0;
        for (uint32_t other : candidates_) {
            if (type_group_[type_slot(other)] != kNoNode) continue;
            if (++kept < options_.max_fanout) continue;
            overflow_.set(other);
            ++count;
            bytes += s_.node_size[other];
        }
        overflow_group = new_group(count, bytes, kNoType);
        made_group = true;
    }
    const auto group_of = [&](uint32_t other) {
        const uint32_t g = type_group_[type_slot(other)];
        return g != kNoNode ? g : overflow_.test(other) ? overflow_group : kNoNode;
    };

    if (made_group) {
        for_each_edge([&](uint32_t e, uint32_t other) {
            if (!seen_here_.test(other)) return;
            const uint32_t g = group_of(other);
            if (g == kNoNode) return;
            // This expansion's groups are the last few entries.
            auto it = std::find_if(group_edges_.rbegin(), group_edges_.rend(),
                                   [g](const GroupEdges& ge) { return ge.group == g; });
            GroupEdges& ge = *it;
            const uint8_t flags = s_.edge_flags[e];
            const uint8_t kind = s_.edge_kind[e];
            if (ge.count++ == 0) {
                ge.first_edge = e;
                ge.kind = kind;
            } else if (kind != ge.kind) {
                ge.mixed_kinds = true;
            }
            const bool owned = (flags & format::kEdgeOwned) != 0;
            ge.any_owned |= owned;
            ge.gc_invisible |= hidden_from_gc(s_, e);
            ge.all_weak &= static_cast<EdgeKind>(kind) == EdgeKind::Weak;
        });
    }

    for (uint32_t other : candidates_) {
        seen_here_.clear(other);
        if (group_of(other) != kNoNode) {
            overflow_.clear(other);
            taken_.set(other);
            continue;
        }
        if (!room()) {
            ++out_.omitted_nodes;
            out_.truncated = true;
            continue;
        }
        const uint32_t i = select(other);
        out_.nodes[i].distance = distance + 1;
        lookup_.insert(std::upper_bound(lookup_.begin(), lookup_.end(),
                                        std::pair<uint32_t, uint32_t>{other, i}),
                       {other, i});
        bfs_seen_.set(other);
        bfs_queue_.push_back({other, distance + 1});
    }
    for (uint32_t t : touched_types_) {
        type_count_[t] = 0;
        type_bytes_[t] = 0;
        type_group_[t] = kNoNode;
    }
}

void Extraction::add_edges_between_drawn_nodes() {
    std::vector<DrawnEdge> raw;
    const size_t drawn = out_.nodes.size();
    for (uint32_t from = 0; from < drawn; ++from) {
        const SubgraphNode& n = out_.nodes[from];
        if (n.is_group()) continue;
        raw.clear();
        for (uint32_t e : index_.out_edges(n.node)) {
            const uint32_t target = index_.target(e);
            if (!selected_.test(target)) continue;
            const uint8_t flags = s_.edge_flags[e];
            const bool owned = (flags & format::kEdgeOwned) != 0;
            const uint8_t style = static_cast<uint8_t>(
                (contains(path_edges_, e) ? 1 : 0) |
                (hidden_from_gc(s_, e) ? 2 : 0) |
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
        if (const auto records = roots_.roots_of(node); !records.empty()) {
            std::string root = "root: " + describe_root(s_, s_.roots[records.front()]);
            if (records.size() > 1) root += " (+" + std::to_string(records.size() - 1) + " more)";
            n.lines.push_back(std::move(root));
        }
        if (unexplained > 0) {
            n.lines.push_back(with_thousands(static_cast<uint64_t>(unexplained)) +
                              (unexplained == 1 ? " reference" : " references") +
                              " the GC cannot see");
        }
        n.tooltip = describe_node(s_, node);
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

Subgraph Extraction::run(std::span<const uint32_t> targets) {
    for (uint32_t t : targets) {
        if (t < index_.node_count()) targets_.push_back(t);
    }
    sort_unique(targets_);
    for (uint32_t t : targets_) select(t);
    for (uint32_t t : targets_) add_retention_paths(t);
    sort_unique(path_nodes_);
    sort_unique(path_edges_);
    sort_unique(holders_);

    lookup_.reserve(out_.nodes.size());
    for (uint32_t i = 0; i < out_.nodes.size(); ++i) lookup_.push_back({out_.nodes[i].node, i});
    std::sort(lookup_.begin(), lookup_.end());

    add_neighbourhood();
    add_edges_between_drawn_nodes();
    describe_nodes();
    make_clusters();
    return std::move(out_);
}

}  // namespace

std::string_view cluster_by_name(ClusterBy by) {
    switch (by) {
        case ClusterBy::None: return "none";
        case ClusterBy::Module: return "module";
        case ClusterBy::Type: return "type";
        case ClusterBy::Cycle: return "cycle";
    }
    return "?";
}

uint32_t Subgraph::find(uint32_t snapshot_node) const {
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].node == snapshot_node) return i;
    }
    return kNoNode;
}

Subgraph extract_subgraph(const GraphIndex& index, const RootClasses& roots,
                          const RetentionPaths& paths, std::span<const uint32_t> targets,
                          const SubgraphOptions& options) {
    Extraction extraction(index, roots, paths, options);
    return extraction.run(targets);
}

std::vector<uint32_t> pick_targets_of_type(const GraphIndex& index, const RootClasses& roots,
                                           const RetentionPaths& paths,
                                           std::string_view type_name, size_t limit) {
    const Snapshot& s = index.snapshot();
    std::vector<uint8_t> wanted(s.types.size(), 0);
    bool any = false;
    for (size_t t = 0; t < s.types.size(); ++t) {
        if (s.strings.view(s.types[t].name) == type_name) wanted[t] = 1, any = true;
    }
    std::vector<uint32_t> found;
    if (!any || limit == 0) return found;
    for (uint32_t n = 0; n < index.node_count(); ++n) {
        const uint32_t t = s.node_type[n];
        if (t < wanted.size() && wanted[t]) found.push_back(n);
    }
    // Most telling first: no path (a leak), unexplained surplus, far from roots.
    const auto rank = [&](uint32_t n) {
        const bool reachable = paths.reachable(n);
        return std::tuple(reachable, roots.unexplained(n) <= 0,
                          reachable ? ~paths.distance(n) : 0u, n);
    };
    const size_t keep = std::min(limit, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                      [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    found.resize(keep);
    return found;
}

std::string with_thousands(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string human_bytes(uint64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

}  // namespace refscope::analysis
